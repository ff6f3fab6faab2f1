//! The book's own casing of its heading words, for the follow-ups the index stores
//! (`IndexMeta::follow_ups`, phrased in `follow_ups::phrase`): headings are often
//! in title case ("Sensor Fusion"), and a follow-up built from one reads like a template ("What is
//! Sensor Fusion?") unless its common words are written as the book writes them in its sentences
//! ("sensor fusion"). Names the book capitalizes mid-sentence ("Isaac Sim", "Gazebo") keep their
//! capitals. Written here because it is a count over the book's own prose; no library knows a
//! book's casing.

use std::collections::{HashMap, HashSet};

use book_answer::phrasing::{capitalized, plural_form, BookCasing, CountedNouns};
use book_retrieval::analyzer::analyze;

use crate::chunker::BuiltChunk;

/// What the book's prose tells of its heading words, for phrasing follow-ups in its own usage.
pub struct BookUsage {
    /// How the prose writes the capitalized heading words (section headings and page titles), by
    /// their lowercase forms, sorted and distinct:
    /// - `lowercase`: in lowercase at least [`MIN_LOWERCASE`] times (once, if never capitalized in
    ///   mid-sentence), and [`LOWERCASE_RATIO`] times as often as capitalized in mid-sentence. The
    ///   first word of a heading in sentence case, whose capital only opens it ("Evaluation
    ///   metrics", "Auto-hide sticky navbar"), needs only the ratio: a word the prose never
    ///   capitalizes mid-sentence is common there, even one it never writes;
    /// - `names`: capitalized in mid-sentence at least [`MIN_NAME`] times, and more often than in
    ///   lowercase ("Isaac", "Python"); a word written both ways ("Role" in a bold label, "role" in
    ///   sentences) is neither.
    ///
    /// A word the prose never writes is `lowercase` when the prose writes another form of it in
    /// lowercase ("explode" for "Explodes" in "Robot Explodes on Import"), else in neither. Code
    /// blocks, inline code, links' targets and words at the start of a sentence, line, list item or
    /// table cell are not counted, nor the capitals of a table's rows (titled as headings are); a
    /// name spelled as its domain or file ("Drone.io", "Node.js") counts as capitalized.
    pub casing: BookCasing,
    /// The heading words (lowercase, singular) that the book's prose uses as things one counts: at
    /// least [`MIN_COUNTED`] times as the head of a phrase opened by "a" or "an" ([`phrase_head`]:
    /// "a workspace.", "an image that …", "a ROS 2 workspace for …"; "loop", not "control", in "a
    /// control loop", where the word modifies another). Sorted, distinct.
    /// A follow-up names such a thing with "the" ("How do I create the workspace?"); a mass noun
    /// ("physics", "fusion") the book never counts stays bare. `kinds` are the counted words the
    /// prose also writes in the plural ("workspaces", "categories") at least [`MIN_COUNTED`] times:
    /// "What is category?" asks what a category is, while a word never plural names the one thing
    /// the book describes ("What is the architecture?"). The book's own usage, so no list of
    /// English nouns has to know its vocabulary.
    pub counted: CountedNouns,
    /// The headings' first two words (lowercase, one space between) that the book's prose writes
    /// after an article or determiner at least [`MIN_COMPOUND`] times: "Access Token" is a thing the
    /// book names ("an access token", "the access token"), not the task "access token", and "Design
    /// Principles" ("these design principles") is not "How do I design principles?". A heading whose
    /// first word is a verb the phrasing knows is otherwise asked as a task.
    pub compounds: HashSet<String>,
}

/// The book's [`BookUsage`], from one walk of its prose lines.
pub fn book_usage(chunks: &[BuiltChunk]) -> BookUsage {
    let mut casing = CasingCount::new(chunks);
    let mut counted = CountedCount::new(chunks);
    let mut compounds = CompoundCount::new(chunks);
    for c in chunks {
        for line in book_answer::text::prose_lines(&c.chunk.text) {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            casing.line(line, &tokens);
            counted.line(&tokens);
            compounds.line(&tokens);
        }
    }
    BookUsage {
        casing: casing.finish(),
        counted: counted.finish(),
        compounds: compounds.finish(),
    }
}

/// Times the book must write a word in lowercase before its headings' capital is dropped.
const MIN_LOWERCASE: usize = 2;
/// Times the book must capitalize a word mid-sentence before it is taken for a name.
const MIN_NAME: usize = 2;
/// A word the book also capitalizes mid-sentence keeps its capital unless the lowercase form is
/// this many times more frequent ("Python" in "python3 script.py" and "Python nodes" stays;
/// "service" 19 times against "a Service?" and "Quality of Service" 8 times is common).
const LOWERCASE_RATIO: usize = 2;

/// The counts behind [`BookUsage::casing`], added line by line.
struct CasingCount {
    /// Each capitalized heading word: its lowercase uses and its mid-sentence capitals.
    wanted: HashMap<String, (usize, usize)>,
    /// The first words of headings in sentence case.
    opening: HashSet<String>,
    /// Every word the prose writes in lowercase.
    lowercase_words: HashSet<String>,
}

impl CasingCount {
    fn new(chunks: &[BuiltChunk]) -> Self {
        let mut wanted: HashMap<String, (usize, usize)> = HashMap::new();
        let mut opening: HashSet<String> = HashSet::new();
        for h in heading_texts(chunks) {
            for w in words_of(h) {
                if capitalized(w) {
                    wanted.entry(w.to_lowercase()).or_default();
                }
            }
            if let Some(first) = sentence_case_opening(h) {
                opening.insert(first.to_lowercase());
            }
        }
        CasingCount {
            wanted,
            opening,
            lowercase_words: HashSet::new(),
        }
    }

    /// Adds one prose line's lowercase and mid-sentence capitalized uses of the wanted words, and
    /// every word it writes in lowercase.
    fn line(&mut self, line: &str, tokens: &[&str]) {
        let mut sentence_start = true;
        let mut in_code = false;
        // A table row's cells are titled as headings are: their capitals say nothing of names.
        let table_row = line.trim_start().starts_with('|') || line.contains(" | ");
        for &token in tokens {
            let ticks = token.matches('`').count();
            let code = in_code || ticks > 0;
            if ticks % 2 == 1 {
                in_code = !in_code;
            }
            // Inline code, paths, URLs, link targets, identifiers: not prose.
            let prose = !code && !token.contains(['/', '=', '_', '@', '\\', '<', '>', '{', '}']);
            let word = token.trim_matches(|c: char| !c.is_alphanumeric());
            if prose && is_word(word) {
                let lower = word.to_lowercase();
                if let Some((in_lowercase, mid_capital)) = self.wanted.get_mut(&lower) {
                    if word == lower {
                        *in_lowercase += 1;
                    } else if capitalized(word) && !sentence_start && !table_row {
                        *mid_capital += 1;
                    }
                }
                if word == lower {
                    self.lowercase_words.insert(lower);
                }
            } else if let Some(name) = prose.then(|| dotted_name(word)).flatten() {
                // "Drone.io", "Node.js": a name, wherever it stands.
                if let Some((_, mid_capital)) = self.wanted.get_mut(&name.to_lowercase()) {
                    *mid_capital += 1;
                }
            }
            // The next word opens a sentence, a cell or an item after these.
            sentence_start = token.ends_with(['.', '!', '?', ':', '|'])
                || matches!(
                    token,
                    "-" | "*" | "+" | "|" | ">" | "#" | "##" | "###" | "####"
                )
                || token
                    .trim_end_matches(['.', ')'])
                    .chars()
                    .all(|c| c.is_ascii_digit());
        }
    }

    fn finish(self) -> BookCasing {
        let lowercase_stems: HashSet<String> = self
            .lowercase_words
            .iter()
            .filter(|w| w.chars().count() > 2)
            .flat_map(|w| analyze(w))
            .collect();
        let mut casing = BookCasing::default();
        for (word, (lower, mid_capital)) in self.wanted {
            let enough = self.opening.contains(&word)
                || lower >= MIN_LOWERCASE
                || (lower > 0 && mid_capital == 0);
            // "Explodes", "Recognized": a heading word the prose never writes either way is
            // common when the prose writes another form of it in lowercase ("explode",
            // "recognizes").
            let everyday = lower == 0 && mid_capital == 0 && {
                let stems = analyze(&word);
                !stems.is_empty() && stems.iter().all(|stem| lowercase_stems.contains(stem))
            };
            if everyday || enough && lower >= LOWERCASE_RATIO * mid_capital {
                casing.lowercase.push(word);
            } else if mid_capital >= MIN_NAME && mid_capital > lower {
                casing.names.push(word);
            }
        }
        casing.lowercase.sort_unstable();
        casing.names.sort_unstable();
        casing
    }
}

/// The first word of `heading` when the heading is in sentence case: that word capitalized, and a
/// later word of four letters or more in lowercase ("Evaluation metrics", "Unit and integration
/// tests"; not "Sensor Fusion", nor "Drone").
fn sentence_case_opening(heading: &str) -> Option<&str> {
    let mut words = heading.split_whitespace();
    let first = words.next().filter(|w| capitalized(w))?;
    words
        .any(|w| w.chars().count() >= 4 && w.chars().all(char::is_lowercase))
        .then_some(first)
}

/// Times the book must write "a word" or "an word" (the phrase ending there) before a follow-up
/// gives the word "the" ([`BookUsage::counted`]).
const MIN_COUNTED: usize = 2;

/// Words that may follow the noun that ends a noun phrase ("a workspace for …", "a node that …").
const AFTER_NOUN: &[&str] = &[
    "of", "for", "in", "on", "to", "with", "from", "that", "which", "who", "is", "are", "was",
    "were", "and", "or", "but", "as", "at", "by", "into", "when", "if", "can", "will", "should",
    "must", "may", "has", "have", "you", "we", "it",
];

/// The counts behind [`BookUsage::counted`], added line by line.
struct CountedCount {
    /// Each singular heading word: times written as the head of a phrase opened by "a" or "an".
    wanted: HashMap<String, usize>,
    /// Each heading phrase of two or three words: times written bare, and after an article.
    phrases: HashMap<String, (usize, usize)>,
    /// Each wanted word: times the prose writes its plural.
    plurals: HashMap<String, usize>,
}

impl CountedCount {
    fn new(chunks: &[BuiltChunk]) -> Self {
        let mut wanted: HashMap<String, usize> = HashMap::new();
        for w in heading_texts(chunks).flat_map(words_of) {
            let w = w.to_lowercase();
            if w.len() >= 3 && !plural_form(&w) {
                wanted.entry(w).or_default();
            }
        }
        CountedCount {
            wanted,
            phrases: heading_phrases(chunks),
            plurals: HashMap::new(),
        }
    }

    fn line(&mut self, tokens: &[&str]) {
        count_bare(tokens, &mut self.phrases);
        for token in tokens {
            let word = token.trim_matches(|c: char| !c.is_ascii_alphanumeric());
            if word.len() > 3 && word.chars().all(|c| c.is_ascii_lowercase()) {
                if let Some(one) = singulars(word)
                    .into_iter()
                    .find(|w| self.wanted.contains_key(w))
                {
                    *self.plurals.entry(one).or_default() += 1;
                }
            }
        }
        for (i, article) in tokens.iter().enumerate() {
            if !matches!(*article, "a" | "an" | "A" | "An") {
                continue;
            }
            if let Some(n) = phrase_head(&tokens[i + 1..]).and_then(|w| self.wanted.get_mut(w)) {
                *n += 1;
            }
        }
    }

    fn finish(self) -> CountedNouns {
        let words = sorted_where(self.wanted, |&n| n >= MIN_COUNTED);
        let kinds = words
            .iter()
            .filter(|w| self.plurals.get(*w).is_some_and(|&n| n >= MIN_COUNTED))
            .cloned()
            .collect();
        let bare = sorted_where(self.phrases, |&(bare, with_article)| {
            bare >= MIN_COUNTED && bare >= 2 * with_article
        });
        CountedNouns { words, kinds, bare }
    }
}

/// Words after which a noun phrase is bare ("in dark mode", "enable dark mode"; also the start of
/// a line): a phrase after another word ("Optuna sweeper plugin") is part of a longer one.
const BEFORE_BARE: &[&str] = &[
    "in", "on", "for", "with", "to", "from", "of", "by", "into", "about", "via", "without",
    "using", "use", "uses", "enable", "enables", "support", "supports", "and", "or", "is", "are",
];

/// Each phrase of two or three words of a heading (lowercase, one space between), with no
/// count yet: how often the prose writes it bare, and how often after an article.
fn heading_phrases(chunks: &[BuiltChunk]) -> HashMap<String, (usize, usize)> {
    let mut phrases = HashMap::new();
    for h in heading_texts(chunks) {
        let words: Vec<String> = words_of(h).map(str::to_lowercase).collect();
        for n in 2..=3 {
            for w in words.windows(n) {
                phrases.entry(w.join(" ")).or_default();
            }
        }
    }
    phrases
}

/// Counts, in one line's `tokens`, each of `phrases` written bare ("supports dark mode", "in
/// front matter", or opening the line) and each written after an article or possessive ("the
/// dark mode", "the page's front matter"): [`CountedNouns::bare`] keeps the phrases written bare
/// at least [`MIN_COUNTED`] times and at least twice as often as after one.
fn count_bare(tokens: &[&str], phrases: &mut HashMap<String, (usize, usize)>) {
    let words: Vec<String> = tokens
        .iter()
        .map(|t| {
            t.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .collect();
    for n in 2..=3 {
        for (i, w) in words.windows(n).enumerate() {
            if let Some((bare, with_article)) = phrases.get_mut(&w.join(" ")) {
                let before = if i > 0 { words[i - 1].as_str() } else { "" };
                let possessive = i > 0 && tokens[i - 1].ends_with("'s");
                if DETERMINERS.contains(&before) || possessive {
                    *with_article += 1;
                } else if i == 0 || BEFORE_BARE.contains(&before) {
                    *bare += 1;
                }
            }
        }
    }
}

/// The singulars a plural may be spelled from, most likely first ("categories" → "category",
/// "boxes" → "box", "databases" → "databas", "database"; "robots" → "robot"), none for a word
/// that does not end like one. Spelling only: the caller keeps the first that is a heading word
/// the book counts.
fn singulars(word: &str) -> Vec<String> {
    if let Some(stem) = word.strip_suffix("ies") {
        return vec![format!("{stem}y")];
    }
    let mut out = Vec::new();
    if let Some(stem) = word.strip_suffix("es") {
        if stem.ends_with(['s', 'x', 'z']) || stem.ends_with("ch") || stem.ends_with("sh") {
            out.push(stem.to_string());
        }
    }
    out.extend(
        word.strip_suffix('s')
            .filter(|stem| !stem.ends_with('s') && !stem.is_empty())
            .map(str::to_string),
    );
    out
}

/// Words that end a sentence after a noun phrase ("use a plugin instead."): not its head.
const ADVERBS: &[&str] = &[
    "instead", "too", "also", "again", "here", "there", "now", "later", "yet", "already", "anyway",
    "though", "well", "away", "once", "twice", "alone", "together", "first", "below", "above",
    "before", "after", "either", "else", "back", "out", "up", "down", "off", "on", "in", "locally",
    "globally",
];

/// Words a noun phrase may hold before its head: after "a" or "an", the phrase "a ROS 2
/// workspace" has two.
const MAX_MODIFIERS: usize = 2;

/// The head of the noun phrase that opens `tokens` (the words after "a" or "an"): its last word, a
/// plain lowercase word where the phrase ends (punctuation, or a word of [`AFTER_NOUN`], or the
/// line's end), after at most [`MAX_MODIFIERS`] plain words ("a workspace.", "a ROS 2
/// workspace for …", "a control loop and …"; not "a physics engine's").
fn phrase_head<'t>(tokens: &[&'t str]) -> Option<&'t str> {
    for (j, token) in tokens.iter().take(MAX_MODIFIERS + 1).enumerate() {
        let word = token.trim_end_matches(|c: char| ",.;:)!?".contains(c));
        let plain = !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '-');
        if !plain || AFTER_NOUN.contains(&word) {
            return None;
        }
        let ends = word.len() < token.len()
            || tokens
                .get(j + 1)
                .is_none_or(|next| AFTER_NOUN.contains(next));
        if ends {
            // "a plugin instead.", "a robot too,": an adverb ends the sentence, not a noun.
            let adverb = j > 0 && (word.ends_with("ly") || ADVERBS.contains(&word));
            return (word.chars().all(|c| c.is_ascii_lowercase()) && !adverb).then_some(word);
        }
    }
    None
}

/// The words whose counts `keep` accepts, sorted.
fn sorted_where<C>(counts: HashMap<String, C>, keep: impl Fn(&C) -> bool) -> Vec<String> {
    let mut out: Vec<String> = counts
        .into_iter()
        .filter(|(_, c)| keep(c))
        .map(|(w, _)| w)
        .collect();
    out.sort();
    out
}

/// Times the book must write a heading's first two words after an article or determiner before
/// the heading is asked about as a thing ([`BookUsage::compounds`]).
const MIN_COMPOUND: usize = 2;

/// Words that open a noun phrase in prose, giving it an article or standing for one.
const DETERMINERS: &[&str] = &[
    "a", "an", "the", "this", "that", "these", "those", "your", "our", "its", "their", "each",
    "every", "any", "no",
];

/// The counts behind [`BookUsage::compounds`], added line by line: each heading's first two words,
/// and the times the prose writes them after a determiner.
struct CompoundCount(HashMap<(String, String), usize>);

impl CompoundCount {
    fn new(chunks: &[BuiltChunk]) -> Self {
        let mut wanted = HashMap::new();
        for c in chunks {
            let meta = &c.chunk.meta;
            for h in [meta.chapter.as_str()]
                .into_iter()
                .chain(meta.section.as_deref())
            {
                let mut words = words_of(h);
                if let (Some(a), Some(b)) = (words.next(), words.next()) {
                    wanted.insert((a.to_lowercase(), b.to_lowercase()), 0);
                }
            }
        }
        CompoundCount(wanted)
    }

    fn line(&mut self, tokens: &[&str]) {
        for t in tokens.windows(3) {
            if !DETERMINERS.contains(&t[0].to_lowercase().as_str())
                || !t[1].chars().all(|c| c.is_alphabetic())
            {
                continue;
            }
            let second = t[2].trim_end_matches(|c: char| !c.is_alphanumeric());
            if !second.chars().all(|c| c.is_alphabetic()) {
                continue;
            }
            let key = (t[1].to_lowercase(), second.to_lowercase());
            if let Some(n) = self.0.get_mut(&key) {
                *n += 1;
            }
        }
    }

    fn finish(self) -> HashSet<String> {
        self.0
            .into_iter()
            .filter(|&(_, n)| n >= MIN_COMPOUND)
            .map(|((a, b), _)| format!("{a} {b}"))
            .collect()
    }
}

/// Every heading text of the book: each chunk's heading path, page title and section heading.
fn heading_texts(chunks: &[BuiltChunk]) -> impl Iterator<Item = &str> {
    chunks.iter().flat_map(|c| {
        let meta = &c.chunk.meta;
        meta.headings
            .iter()
            .map(String::as_str)
            .chain([meta.chapter.as_str()])
            .chain(meta.section.as_deref())
    })
}

/// The plain words of `text`: letters only, punctuation around them dropped; a compound's
/// parts stay joined ("multi-domain").
fn words_of(text: &str) -> impl Iterator<Item = &str> {
    text.split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| is_word(w))
}

/// The capitalized word before a lowercase suffix after a dot ("Drone" of "Drone.io", "Node" of
/// "Node.js"): a product's name, as its domain or file spells it.
fn dotted_name(token: &str) -> Option<&str> {
    let (name, suffix) = token.split_once('.')?;
    let plain = !suffix.is_empty() && suffix.chars().all(|c| c.is_ascii_lowercase());
    (capitalized(name) && is_word(name) && plain).then_some(name)
}

/// Letters only, or a compound of such parts joined by hyphens.
fn is_word(w: &str) -> bool {
    w.split('-')
        .all(|part| !part.is_empty() && part.chars().all(char::is_alphabetic))
}

#[cfg(test)]
mod tests {
    use super::*;
    use book_retrieval::{Chunk, ChunkMeta};

    fn chunk(section: &str, text: &str) -> BuiltChunk {
        BuiltChunk {
            chunk: Chunk {
                meta: ChunkMeta {
                    id: String::new(),
                    module: String::new(),
                    chapter: "Perception With Isaac Sim".into(),
                    section: Some(section.into()),
                    headings: vec!["Perception With Isaac Sim".into(), section.into()],
                    url: "/docs/p#s".into(),
                    path: "p.md".into(),
                    has_code: false,
                    page: 0,
                },
                text: text.into(),
            },
            search_text: text.into(),
            embed_text: text.into(),
            heading: section.into(),
            heading_is_code: false,
            titles: String::new(),
        }
    }

    #[test]
    fn common_words_take_the_books_casing_and_names_keep_theirs() {
        let chunks = [
            chunk(
                "Sensor Fusion In Practice",
                "Sensor fusion combines sensor data. We run sensor fusion in Isaac Sim and \
                 the fusion node in Isaac Sim again.\n- Fusion is listed here.\n\
                 ```\nSensor Sensor Sensor\n```\nSee `Practice` and /docs/practice/here.",
            ),
            chunk(
                "Practice",
                "In practice the practice of Practice matters, and Practice again.",
            ),
            chunk("Evaluation metrics", "Run the evaluation once."),
            chunk("Metrics", "Read the metrics once."),
            chunk("Teleoperation setup", "Set it up."),
            chunk("Headless mode", "Run it Headless twice: Headless."),
            chunk("Tour Guide", "Take the tour with a Tour pass."),
            chunk(
                "Service Table",
                "Scenario | Use Service | Call Service\nStream | Topic | Service\nCall a service, \
                 any service.",
            ),
            chunk("Using Drone", "Start the drone job at Drone.io."),
            chunk(
                "Robot Explodes",
                "Robots explode when their masses are zero.",
            ),
            chunk(
                "Pre-Demo Checks",
                "Before the demo, run the pre-built checks.",
            ),
            chunk("Isaacs Xacro", "Nothing here."),
            chunk(
                "Multi-domain deployment",
                "A multi-domain setup. Close the Sim-to-Real Gap: the sim-to-real gap, twice \
                 sim-to-real.",
            ),
        ];
        let casing = book_usage(&chunks).casing;
        let words = &casing.lowercase;
        // "sensor" (2 lowercase), "fusion" (2; "- Fusion" opens an item): lowercase in the prose.
        assert!(words.contains(&"sensor".to_string()), "{words:?}");
        assert!(words.contains(&"fusion".to_string()), "{words:?}");
        // Once is enough for the first word of a heading in sentence case ("Evaluation
        // metrics"), and for a word the prose never capitalizes mid-sentence ("Metrics"); not
        // for one it capitalizes as often ("tour", "Tour").
        assert!(words.contains(&"evaluation".to_string()), "{words:?}");
        assert!(words.contains(&"metrics".to_string()), "{words:?}");
        assert!(!words.contains(&"tour".to_string()), "{words:?}");
        // A table's cells are titled as headings are: "Service" there is no name.
        assert!(words.contains(&"service".to_string()), "{words:?}");
        // A name spelled as its domain ("Drone.io") counts as capitalized mid-sentence.
        assert!(!words.contains(&"drone".to_string()), "{words:?}");
        // Even never, unless the prose capitalizes it mid-sentence.
        assert!(words.contains(&"teleoperation".to_string()), "{words:?}");
        assert!(!words.contains(&"headless".to_string()), "{words:?}");
        // A word the prose never writes, when it writes another form of it in lowercase
        // ("explode"); not one whose other forms are names ("Isaac") or never written.
        assert!(words.contains(&"explodes".to_string()), "{words:?}");
        assert!(!words.contains(&"isaacs".to_string()), "{words:?}");
        assert!(!words.contains(&"xacro".to_string()), "{words:?}");
        // A compound's parts count as its forms: "pre-demo" from "demo" and "pre-built".
        assert!(words.contains(&"pre-demo".to_string()), "{words:?}");
        // A compound counts as one word, and so does its lowercase use.
        assert!(words.contains(&"multi-domain".to_string()), "{words:?}");
        // Names the prose capitalizes mid-sentence keep their capitals.
        assert!(!words.contains(&"isaac".to_string()));
        assert!(!words.contains(&"sim".to_string()));
        assert_eq!(casing.names, ["isaac", "sim"]);
        // "practice": 2 lowercase against 2 mid-sentence capitals: under the ratio, and not a
        // name either.
        assert!(!words.contains(&"practice".to_string()), "{words:?}");
        // Sorted and distinct.
        assert!(words.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn code_links_and_sentence_starts_do_not_count() {
        let chunks = [chunk(
            "Gazebo Worlds",
            "Gazebo loads them. Gazebo again.\n```\ngazebo gazebo gazebo\n```\n\
             Run `gazebo` or see /usr/share/gazebo/worlds and [it](https://gazebo.org/gazebo).",
        )];
        let casing = book_usage(&chunks).casing;
        assert!(
            !casing.lowercase.contains(&"gazebo".to_string()),
            "{casing:?}"
        );
        assert!(!casing.names.contains(&"gazebo".to_string()), "{casing:?}");
        // "worlds" only in a path, which is not prose.
        assert!(
            !casing.lowercase.contains(&"worlds".to_string()),
            "{casing:?}"
        );
    }

    #[test]
    fn nouns_the_book_counts_are_the_ones_it_writes_after_a() {
        let chunks = [
            chunk(
                "Create Workspace With Physics Control",
                "Make a workspace. An image is a workspace for physics. We tune a control loop \
                 and a control loop again; physics is a physics engine's job.\n\
                 ```\na workspace a workspace\n```\nUse a workspace for this.",
            ),
            chunk("Practice", "A practice, a practice"),
            chunk(
                "Migration Process",
                "Run a ROS 2 process for each robot, then a migration process. \
                 An extra long migration process once.",
            ),
            chunk(
                "Workspaces",
                "Both workspaces build; the workspaces share a practice.",
            ),
        ];
        let nouns = book_usage(&chunks).counted;
        let counted = &nouns.words;
        // "a workspace." and "a workspace for" (the code block does not count).
        assert!(counted.contains(&"workspace".to_string()), "{counted:?}");
        // "a practice," twice, the sentence's "A" included.
        assert!(counted.contains(&"practice".to_string()), "{counted:?}");
        // "a control loop": the word modifies another; "a physics engine's": likewise.
        assert!(!counted.contains(&"control".to_string()), "{counted:?}");
        assert!(!counted.contains(&"physics".to_string()), "{counted:?}");
        // "a ROS 2 process for" and "a migration process." (two words before the head at most:
        // "An extra long migration process" counts nothing), and a singular ending in s.
        assert!(counted.contains(&"process".to_string()), "{counted:?}");
        assert!(!counted.contains(&"migration".to_string()), "{counted:?}");
        // "an image is" once: under the minimum, and "image" is in no heading anyway.
        assert!(!counted.contains(&"image".to_string()), "{counted:?}");
        assert!(counted.windows(2).all(|w| w[0] < w[1]));
        // "workspaces" twice: a kind of thing; "practice" is never plural.
        assert_eq!(nouns.kinds, ["workspace"]);
    }

    #[test]
    fn phrases_the_book_writes_bare_are_listed() {
        let chunks = [
            chunk(
                "Dark Mode and Color Mode",
                "Enable dark mode here. It works in dark mode, and the dark mode toggle is red. \
                 Set the color mode, read the color mode, or pick a theme with color mode.",
            ),
            chunk(
                "Optuna Sweeper Plugin",
                "The Optuna sweeper plugin runs. The Nevergrad sweeper plugin too.",
            ),
        ];
        let bare = book_usage(&chunks).counted.bare;
        // Twice bare, once after "the": bare; "color mode" is more often determined.
        assert_eq!(bare, ["dark mode"], "{bare:?}");
    }

    #[test]
    fn plurals_are_spelled_back_to_their_singular() {
        for (plural, ones) in [
            ("categories", &["category"][..]),
            ("boxes", &["box", "boxe"]),
            ("branches", &["branch", "branche"]),
            ("databases", &["databas", "database"]),
            ("robots", &["robot"]),
            ("docs", &["doc"]),
            ("class", &[]),
            ("robot", &[]),
        ] {
            assert_eq!(singulars(plural), ones, "{plural}");
        }
    }

    #[test]
    fn heading_openings_the_book_names_as_things_are_compounds() {
        let chunks = [
            chunk(
                "Access Token",
                "Paste the access token here. An access token expires. Access tokens rotate.",
            ),
            chunk(
                "Create Workspace",
                "Create workspace folders. We create workspace files.",
            ),
        ];
        let compounds = book_usage(&chunks).compounds;
        assert!(compounds.contains("access token"), "{compounds:?}");
        // The task is written without a determiner: not a thing.
        assert!(!compounds.contains("create workspace"), "{compounds:?}");
    }
}

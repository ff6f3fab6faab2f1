//! Excerpt answers: with no LLM, the answer is the book's own words, quoted and cited. Quotes come
//! from the best-ranked sections first and are chosen by meaning when the question's embedding is
//! available (the encoder has loaded), by the question's terms otherwise; a command or code block
//! is quoted as a code block when the question asks how to do something. The reader's preferences
//! shape them through [`Style`]: how many quotes, a code block for "with examples", citations.

use book_prompt::prefs::{Detail, Format, Preferences};

use crate::passage::{
    antecedent, blocks, code_window, continues_a_sentence, ends_sentence, fix_of,
    is_troubleshooting, label, options_list, passages, restates_problem, states_outcome, successor,
    value_lines, with_its_list, with_its_subsections, Block, Kind, Label, Passage,
};
use crate::read::AlreadyRead;
use crate::source::{cut_at_word, Source};
use crate::text::{plain_words, terms, WordList};
use crate::words::Words;

/// Prose quotes at most with the default preferences.
pub const MAX_SENTENCES: usize = 3;
/// Prose quotes from one source at most with the default preferences.
const PER_SOURCE: usize = 2;
/// Sources searched for quotes (the best-ranked ones).
pub const MAX_SOURCES: usize = 3;
/// Longest quoted sentence, in characters.
const MAX_SENTENCE_CHARS: usize = 320;
/// Sentences embedded per answer with the default preferences (each costs one encoder run in the
/// browser, about 15–20 ms native: two keep excerpt building well inside its 100 ms budget).
pub const MAX_EMBEDDED: usize = 2;
/// Characters of a sentence compared by meaning: its opening carries its topic, and the encoder's
/// time grows with the length (one run per embedded sentence, in the browser after the search).
/// 120 rather than 200: on the five labelled books the first quote and "shown" rates are the same
/// or better (quality test), and composing takes 20–30 % less time (native max 21–31 ms, was 26–44).
pub const EMBED_CHARS: usize = 120;
/// Most token ids (`[CLS]` and `[SEP]` included) of a sentence's opening that are embedded: the
/// encoder's time grows with the tokens (about 1 ms a run plus 0.43 ms a token native), not the
/// characters, and 120 characters of code-laden text (`` `rmw_fastrtps_cpp` ``, paths) run to
/// 40–65 WordPiece tokens where the median opening of the five labelled books has 17–27. With 28,
/// the two openings of the slowest answers (99th percentile) are 56 tokens rather than 73, the
/// median 28–49 rather than 29–52, and the quality test's first-quote and "shown" rates are the
/// same on every book (24 lost one shown quote on textbook 2).
pub const EMBED_TOKENS: usize = 28;
/// How much less a quote from a lower-ranked source is worth, per rank.
const RANK_DECAY: f32 = 0.15;
/// Longest code block quoted as a snippet that answers with the first quote, in lines…
const SNIPPET_LINES: usize = 8;
/// …and the share of the question's terms it must hold itself…
const SNIPPET_TERMS: f32 = 0.5;
/// …while at most this share of its own terms are the question's (more: it is what the reader
/// pasted, the command they ran or the message they saw).
const SNIPPET_ECHO: f32 = 0.6;
/// Most table rows quoted (besides the header): a longer table shows the rows sharing the most
/// of the question's terms.
pub const MAX_TABLE_ROWS: usize = 8;
/// A row of a longer table holding at least this share of the question's terms is one the question
/// names (an option, a part): the rows sharing less than half as much are then left out. The
/// Docusaurus docs' option tables put the two `showLast…` rows asked about under five unrelated
/// ones (`remarkPlugins`, `rehypePlugins`, …) that only filled the quote. A question naming no row
/// ("what states does the task executor go through", "parts list for a robot car") keeps the
/// table's best rows, as the whole is what it asks for.
const TABLE_ROW_NAMED: f32 = 0.5;
/// Most list items quoted.
pub const MAX_LIST_ITEMS: usize = 8;
/// Longest quoted table cell or list item, in characters.
const MAX_CELL_CHARS: usize = 160;
/// When the first quote is a table, list or code block, a sentence of another section is added
/// only if it is this close in meaning to the question (cosine of the sentence's embedding)…
const STRONG_MEANING: f32 = 0.5;
/// …or, before the encoder has loaded, holds this share of the question's terms.
const STRONG_TERMS: f32 = 0.6;

/// How an excerpt answer is shaped: the reader's [`Preferences`] as the excerpt answer applies them
/// (the LLM gets them as prompt instructions). The default preferences give the default style.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Style {
    /// Prose quotes at most: fewer for a beginner, more for an advanced reader or a detailed answer.
    pub sentences: usize,
    /// Prose quotes from one source at most.
    pub per_source: usize,
    /// Quote a code block whenever a quoted section has one ("with examples"), not only for
    /// how-to questions.
    pub prefer_code: bool,
    /// `[n]` after each quote. Off: the quotes carry no marker and the closing line cites the
    /// sources instead, so the list under the answer stays.
    pub citations: bool,
}

impl From<&Preferences> for Style {
    fn from(p: &Preferences) -> Self {
        let base = match p.detail {
            Detail::Basic => MAX_SENTENCES - 1,
            Detail::Intermediate => MAX_SENTENCES,
            Detail::Advanced => MAX_SENTENCES + 1,
        };
        let detailed = p.format == Format::Detailed;
        Style {
            sentences: base + if detailed { 2 } else { 0 },
            per_source: PER_SOURCE + usize::from(detailed),
            prefer_code: p.format == Format::Examples,
            citations: p.citations,
        }
    }
}

impl Default for Style {
    fn default() -> Self {
        Style::from(&Preferences::default())
    }
}

/// Embeds the opening of a text for comparing meaning: at most the given number of token ids
/// ([`EMBED_TOKENS`]; `book_retrieval::Encoder::encode_opening`). `None` when no encoder is
/// available or it failed.
pub type Embed<'a> = &'a dyn Fn(&str, usize) -> Option<Vec<f32>>;

/// How a quote is shown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Form {
    /// One sentence, in quotation marks.
    Sentence,
    /// A code or command block; `lang` is its fence's language tag (may be empty).
    Code {
        /// The fence's language tag.
        lang: String,
    },
    /// A table: `text` holds its rows, one a line, cells separated by a tab, the header first.
    Table,
    /// A list: `text` holds its items, one a line.
    List,
}

/// One quoted passage.
#[derive(Debug, Clone, PartialEq)]
pub struct Quote {
    /// Index of the quoted source in the list given to [`choose`] (0-based).
    pub source: usize,
    /// The sentence, the code, or the table's rows or list's items (see [`Form`]).
    pub text: String,
    /// How it is shown.
    pub form: Form,
    /// For a table or a list: the sentence that leads into it in the book ("Accepted fields:").
    pub intro: Option<String>,
    /// How well the quote matched (for confidence).
    pub score: f32,
    /// Whether the quote was chosen as a sentence, by how well it matched: a sentence, or a list
    /// of options shown whole for one of its items. Confidence compares these quotes' scores; a
    /// block chosen as the section's own answer (a table, a code block) is not one of them.
    pub matched_as_sentence: bool,
}

impl Quote {
    /// The code block's language tag, when the quote is code.
    pub fn code_lang(&self) -> Option<&str> {
        match &self.form {
            Form::Code { lang } => Some(lang),
            _ => None,
        }
    }

    /// Whether the quote is a sentence (not a block: code, table or list).
    pub fn is_sentence(&self) -> bool {
        self.form == Form::Sentence
    }
}

/// A candidate sentence or code block.
struct Cand {
    source: usize,
    order: usize,
    passage: Passage,
    lexical: f32,
    meaning: Option<f32>,
    /// For a code block: what a quote of it shows ([`code_window`] for the question), kept from
    /// scoring so it is worked out once.
    window: Option<String>,
    /// A question, a lead-in whose list is missing, an outcome or a sentence's tail: never the
    /// first quote nor a later one.
    answers_nothing: bool,
    /// A sentence of a section that points elsewhere (objectives, next steps, a quiz): the first
    /// quote only when no section has a sentence that answers, never a later quote.
    points_elsewhere: bool,
    /// A lead-in to a code block of its section ("Always single-quote interpolations in the
    /// shell, to prevent replacement with shell variables:"): it answers with the block it
    /// announces, quoted after it, so it may be the first quote but never a later one.
    announces_code: bool,
    /// The reader has just read it in a previous answer ([`AlreadyRead::may_requote`]): the
    /// first quote only when its section has no other, never a later one.
    read: bool,
}

impl Cand {
    /// Not a sentence that answers, by its form or its section's.
    fn weak(&self) -> bool {
        self.answers_nothing || self.points_elsewhere
    }

    /// May be a quote after the first: a sentence that answers by itself.
    fn later(&self) -> bool {
        !self.weak() && !self.announces_code && !self.read
    }

    /// What a quote of the candidate shows: a code block's window, a sentence whole.
    fn shown(&self) -> &str {
        self.window.as_deref().unwrap_or(&self.passage.text)
    }

    fn score(&self) -> f32 {
        let base = match self.meaning {
            Some(cos) => 0.7 * cos + 0.3 * self.lexical,
            None => self.lexical + if self.order == 0 { 0.05 } else { 0.0 },
        };
        base * (1.0 - RANK_DECAY * self.source as f32)
    }
}

/// Whether a sentence states a default ("By default, the counter starts at line number 1.",
/// "… is enabled by default."): the book's next sentence usually says how to change it.
fn states_default(sentence: &str) -> bool {
    let lower = sentence.to_lowercase();
    let lower = lower.trim_end_matches(['.', ' ']);
    lower.starts_with("by default") || lower.ends_with("by default")
}

/// Whether a code block is an error's output ("ReferenceError: window is not defined", a
/// traceback, "Error merging override …"): what the reader saw, not what fixes it.
fn shows_an_error(code: &str) -> bool {
    code.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w.ends_with("Error") || w.ends_with("Exception") || w == "Traceback")
}

/// Whether `c` says what a chosen quote already says, word for word (books repeat a sentence in
/// two sections: quoted twice, it fills the answer with nothing new).
fn repeats(chosen: &[&Cand], c: &Cand) -> bool {
    let same = |a: &str, b: &str| {
        a.split_whitespace()
            .map(str::to_lowercase)
            .eq(b.split_whitespace().map(str::to_lowercase))
    };
    chosen
        .iter()
        .any(|o| same(&o.passage.text, &c.passage.text))
}

/// Whether the question asks how to do something (then a command or code block answers it).
pub fn asks_how_to(question: &str) -> bool {
    let q = question.trim().to_lowercase();
    const OPENERS: WordList = WordList(concat!(
        "how do|how can|how to|how should|how would|how does one|steps to|command to|",
        "command for|what command|which command|show me how|install|set up|setup|",
        "configure|create|run |launch|bridge|write",
    ));
    // A reader's goal said as an order ("make the app sweep by default", "hide the toggle") asks
    // how to do it as much as "how do I …" does.
    const DOING: WordList = WordList(concat!(
        "add|allow|avoid|build|change|customize|deploy|disable|drop|enable|force|",
        "generate|get|hide|host|keep|let|load|log|make|move|pass|pick|put|remove|rename|",
        "render|replace|set|share|show|skip|stop|submit|swap|switch|turn|use",
    ));
    let first = q.split_whitespace().next().unwrap_or("");
    OPENERS.iter().any(|o| q.starts_with(o))
        || DOING.contains(first)
        || [
            "command",
            "syntax",
            "snippet",
            "code for",
            "how do i",
            "how to",
            "how can",
            "can i ",
            "is there a way",
            "want to",
            "i want",
            "i need",
        ]
        .iter()
        .any(|w| q.contains(w))
}

/// Weight of a question term: bare numbers ("ROS 2", "step 3") say little about the topic.
fn term_weight(t: &str) -> f32 {
    if t.chars().all(|c| c.is_ascii_digit()) {
        0.3
    } else {
        1.0
    }
}

/// Weighted share of `question_terms` found in `text` (0–1; 0 when the question has no topic term).
pub fn term_share(question_terms: &[String], text: &str) -> f32 {
    let total: f32 = question_terms.iter().map(|t| term_weight(t)).sum();
    if total <= 0.0 {
        return 0.0;
    }
    let have = terms(text);
    let hits: f32 = question_terms
        .iter()
        .filter(|t| have.contains(t))
        .map(|t| term_weight(t))
        .sum();
    hits / total
}

/// Whether the question asks what something is ("What is a URDF file?").
fn asks_definition(question: &str) -> bool {
    let q = question.trim().to_lowercase();
    [
        "what is",
        "what are",
        "what's",
        "whats",
        "define",
        "what does",
        "meaning of",
    ]
    .iter()
    .any(|o| q.starts_with(o))
}

/// A sentence that defines one of the question's terms: the term within its first words, then
/// "is", "are", "means" or "refers".
fn defines(sentence: &str, question_terms: &[String]) -> bool {
    let words: Vec<String> = plain_words(sentence).take(8).collect();
    let Some(verb) = words
        .iter()
        .position(|w| matches!(w.as_str(), "is" | "are" | "means" | "refers" | "describes"))
    else {
        return false;
    };
    words[..verb]
        .iter()
        .any(|w| question_terms.contains(&crate::text::stem(w)))
}

/// Whether `src` is a section that points elsewhere (objectives, next steps, a quiz, any section
/// of a quiz page): see [`book_retrieval::chunk::points_elsewhere`].
pub(crate) fn points_elsewhere(src: &Source) -> bool {
    book_retrieval::chunk::points_elsewhere(&src.chapter, src.section.as_deref())
}

fn cosine(a: &[f32], b: &[f32]) -> Option<f32> {
    if a.len() != b.len() || a.is_empty() {
        return None;
    }
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    let c = dot / (na * nb);
    c.is_finite().then_some(c)
}

/// Chooses the quotes for `question` from ranked `sources`. `embed` compares meanings when the
/// encoder is available; `question_vector` is the question's embedding (computed once by the
/// search); `style` says how many quotes and whether to prefer code. No line the reader has just
/// `read` is quoted, unless a previous answer's line is all its section has
/// ([`AlreadyRead::may_requote`]). The result is in reading order (by source rank, then position
/// in the section), the first quote's section first.
pub fn choose(
    question: &str,
    sources: &[Source],
    question_vector: Option<&[f32]>,
    embed: Option<Embed>,
    style: &Style,
    read: Option<&AlreadyRead>,
) -> Vec<Quote> {
    let unread = |line: &String| read.is_none_or(|r| !r.has_read(line));
    let requote = read.is_some_and(AlreadyRead::may_requote);
    // The sentence after or before `sentence` in its paragraph, unless the reader has read it.
    let successor = |text: &str, sentence: &str| successor(text, sentence).filter(unread);
    let antecedent = |text: &str, sentence: &str| antecedent(text, sentence).filter(unread);
    let q_terms = terms(question);
    let how_to = asks_how_to(question);
    let max_sentences = style.sentences.max(1);
    let definition = asks_definition(question);
    let mut prose: Vec<Cand> = Vec::new();
    let mut code: Vec<Cand> = Vec::new();
    // Sections that point elsewhere (objectives, next steps, a quiz), once per searched source.
    let pointing: Vec<bool> = sources
        .iter()
        .take(MAX_SOURCES)
        .map(points_elsewhere)
        .collect();
    // Troubleshooting entries (symptom, cause, solution): the answer is the cause and the fix.
    let troubleshooting: Vec<bool> = sources
        .iter()
        .take(MAX_SOURCES)
        .map(|s| is_troubleshooting(&s.text))
        .collect();
    for (si, src) in sources.iter().enumerate().take(MAX_SOURCES) {
        let ps = passages(&src.text);
        let pointing = pointing[si];
        for (order, p) in ps.iter().enumerate() {
            // Not for a how-to question: its block is chosen by its own rules (the short one
            // holding the question's terms), which a lead-in such as "Finally, to deploy your
            // site, run:" would override with the block after it.
            let announces_code = !how_to
                && p.kind == Kind::Prose
                && p.text.ends_with(':')
                && ps.iter().any(|k| k.intro == Some(order));
            let window =
                matches!(p.kind, Kind::Code { .. }).then(|| code_window(&p.text, &q_terms));
            // What a quote of it would show (a block's window) is what the reader may have read.
            let read = !unread(window.as_ref().unwrap_or(&p.text));
            if read && !requote {
                continue;
            }
            let lexical = match (&p.kind, p.intro) {
                // A block is scored on what a quote of it shows (its window, with its lead-in or
                // its label): a long script holds every word somewhere, a short command the few
                // that matter.
                (Kind::Code { .. }, intro) => {
                    let intro = intro
                        .and_then(|i| ps.get(i))
                        .map(|x| x.text.as_str())
                        .or(p.label.as_deref())
                        .unwrap_or("");
                    let shown = window.as_deref().unwrap_or(&p.text);
                    term_share(&q_terms, &format!("{intro}\n{shown}"))
                }
                _ => {
                    let bonus = if definition && defines(&p.text, &q_terms) {
                        0.3
                    } else {
                        0.0
                    };
                    term_share(&q_terms, &p.text) + bonus
                }
            };
            let c = Cand {
                source: si,
                order,
                passage: p.clone(),
                lexical,
                meaning: None,
                window,
                // A question or a lead-in ("… is a script that:") answers nothing by itself, nor
                // does the outcome of an unstated step ("Expected: Clear audio playback.") or the
                // tail of a sentence begun elsewhere ("via the automatic plugin discovery …"). A
                // lead-in that ends its section announces the sections under it: quoted with
                // their headings, it answers.
                answers_nothing: p.text.ends_with('?')
                    || (p.text.ends_with(':')
                        && !announces_code
                        && with_its_subsections(&src.text, &p.text, &src.subsections).is_none())
                    || states_outcome(&p.text)
                    || continues_a_sentence(&p.text),
                points_elsewhere: pointing,
                announces_code,
                read,
            };
            match p.kind {
                Kind::Prose => prose.push(c),
                Kind::Code { .. } => code.push(c),
            }
        }
    }
    // Meaning: embed the most promising sentences (by terms and position) of each source.
    if let (Some(qv), Some(embed)) = (question_vector, embed) {
        let mut pre: Vec<usize> = (0..prose.len()).collect();
        book_retrieval::sort::sort_by(&mut pre, &|&a, &b| {
            prose[a]
                .weak()
                .cmp(&prose[b].weak())
                .then(prose[b].score().total_cmp(&prose[a].score()))
        });
        // More quotes wanted: more candidates compared by meaning (one encoder run each), spread
        // over the best-ranked sources.
        let embedded = MAX_EMBEDDED.max(max_sentences.saturating_sub(1));
        let per_source = embedded.div_ceil(sources.len().clamp(1, MAX_SOURCES).min(embedded));
        let mut by_rank: Vec<usize> = Vec::new();
        for rank in 0..MAX_SOURCES {
            by_rank.extend(
                pre.iter()
                    .copied()
                    .filter(|&i| prose[i].source == rank)
                    .take(per_source),
            );
        }
        for i in by_rank.into_iter().take(embedded) {
            let opening = cut_at_word(&prose[i].passage.text, EMBED_CHARS);
            prose[i].meaning = embed(&opening, EMBED_TOKENS).and_then(|v| cosine(qv, &v));
        }
        // Sentences not embedded compete on a comparable scale: a low assumed meaning.
        for c in prose.iter_mut().filter(|c| c.meaning.is_none()) {
            c.meaning = Some(0.1);
        }
    }
    let mut order: Vec<usize> = (0..prose.len()).collect();
    book_retrieval::sort::sort_by(&mut order, &|&a, &b| {
        prose[a]
            .weak()
            .cmp(&prose[b].weak())
            .then(prose[b].score().total_cmp(&prose[a].score()))
            .then(prose[a].source.cmp(&prose[b].source))
            .then(prose[a].order.cmp(&prose[b].order))
    });
    // The best-ranked section may say its answer only in a table, a list or code (a comparison
    // table, a price list, a config block): with no sentence of its own to quote, one of those is
    // the first quote, rather than a sentence of a lower-ranked section the search put below it.
    // A section that points elsewhere (a quiz, objectives, next steps) restates what another
    // section explains: the first quote comes from the best-ranked section that does not. So does
    // a chapter's summary, which may still give a later quote (shown after the first quote's).
    let lead_source = (0..pointing.len())
        .position(|i| {
            !pointing[i] && !book_retrieval::chunk::sums_up(sources[i].section.as_deref())
        })
        .unwrap_or(0);
    let has_sentence = |s: usize| prose.iter().any(|c| c.source == s && !c.weak());
    let lead = match sources.get(lead_source) {
        Some(top) if !has_sentence(lead_source) => {
            best_block(&q_terms, (lead_source, top), &code, &unread, requote)
        }
        // So does a section whose sentences share no word with the question while one of its
        // lists or tables does: an exercises section asked about its "coffee maker" exercise
        // holds the question's words only in the item "Action: Brew coffee with progress
        // updates", too short to be a sentence, and its sentences are about the other exercises.
        // (Not code: a how-to question's block has its own rules, and for any other question a
        // word shared with a script is most often a name in it, which answers nothing by itself.)
        Some(top)
            if !prose
                .iter()
                .any(|c| c.source == lead_source && !c.weak() && c.lexical > 0.0) =>
        {
            best_block(&q_terms, (lead_source, top), &[], &unread, requote)
                .filter(|q| q.score > 0.0)
        }
        _ => None,
    };
    let mut chosen: Vec<&Cand> = Vec::new();
    let mut filled: Option<&Cand> = None;
    // The sentence after the first quote in its paragraph, worked out once: the quote added from
    // its section (below) is another one, and the first quote goes on with it (further below).
    let mut first_next: Option<String> = None;
    if lead.is_some() {
        // Sentences of other sections only when they are clearly about the question.
        let budget = max_sentences.saturating_sub(1);
        for &i in order.iter().filter(|&&i| prose[i].later()) {
            if chosen.len() >= budget {
                break;
            }
            let c = &prose[i];
            let strong = match c.meaning {
                Some(m) if question_vector.is_some() => m >= STRONG_MEANING,
                _ => c.lexical >= STRONG_TERMS,
            };
            let per_source = chosen.iter().filter(|x| x.source == c.source).count();
            if strong && per_source < style.per_source && !repeats(&chosen, c) {
                chosen.push(c);
            }
        }
    } else {
        // The first quote comes from the best-ranked section that has a sentence: the search ranks
        // sections with the whole section's evidence, better than one sentence's match does.
        // Never first: a sentence that answers nothing by its form. A sentence weak only for its
        // section may be (a quiz's explanation can hold the answer: "Smoothest + fastest: Flow
        // Matching at 50-120 Hz.").
        let top_source = if has_sentence(lead_source) {
            Some(lead_source)
        } else {
            // The best-ranked section with a sentence that answers, else the best-ranked with a
            // sentence weak only for its section.
            let first_with = |weak_ok: bool| {
                prose
                    .iter()
                    .filter(|c| !c.weak() || (weak_ok && !c.answers_nothing))
                    .map(|c| c.source)
                    .min()
            };
            first_with(false).or_else(|| first_with(true))
        };
        // A line the reader has not read yet, else one of a previous answer (`requote`).
        let first_of = |read_ok: bool| {
            order.iter().copied().find(|&i| {
                Some(prose[i].source) == top_source
                    && !prose[i].answers_nothing
                    && (read_ok || !prose[i].read)
            })
        };
        let first = first_of(false).or_else(|| first_of(true));
        if let (Some(first), Some(&top)) = (first, order.first()) {
            chosen.push(&prose[first]);
            // Later quotes are measured against the best sentence of any section.
            let best = &prose[top];
            let best_score = best.score();
            for &i in order.iter().filter(|&&i| i != first && prose[i].later()) {
                if chosen.len() >= max_sentences {
                    break;
                }
                let c = &prose[i];
                let related = match (c.meaning, best.meaning) {
                    (Some(m), Some(bm)) => m >= bm - 0.12 && m >= 0.3,
                    _ => c.lexical > 0.0 && c.lexical >= best.lexical * 0.5,
                };
                let per_source = chosen.iter().filter(|x| x.source == c.source).count();
                if related
                    && c.score() >= best_score * 0.6
                    && per_source < style.per_source
                    && !repeats(&chosen, c)
                {
                    chosen.push(c);
                }
            }
            // The sentence that matched best often restates the question and the answer comes
            // later in its section ("… it's possible too!" then "You can add another blog by
            // …"): when the other sections leave a quote unused, the first quote's section gives
            // its next best sentence that shares a word with the question (not the one the
            // first quote goes on with, below; this one goes on with its own next sentence too).
            let source = prose[first].source;
            first_next = successor(&sources[source].text, &prose[first].passage.text);
            if chosen.len() < max_sentences {
                let more = order.iter().map(|&i| &prose[i]).find(|c| {
                    c.source == source
                        && c.later()
                        // A lead-in that ends the section, with the sections under it, says
                        // what the section is made of, whatever its words.
                        && (c.lexical > 0.0 || c.passage.text.ends_with(':'))
                        && first_next.as_deref() != Some(c.passage.text.as_str())
                        && !chosen.iter().any(|x| std::ptr::eq(*x, *c))
                        && chosen.iter().filter(|x| x.source == source).count() < style.per_source
                        && !repeats(&chosen, c)
                });
                filled = more;
                chosen.extend(more);
            }
        }
    }
    // The line of a troubleshooting entry that answers the symptom `c` states: the entry's next
    // labelled cause or fix (before the next symptom). Quoted with the symptom, it is not quoted
    // again on its own.
    let answer_to = |c: &Cand| -> Option<&Cand> {
        if !troubleshooting[c.source] || !restates_problem(&c.passage.text) {
            return None;
        }
        prose
            .iter()
            .filter(|o| o.source == c.source && o.order > c.order)
            .take_while(|o| !restates_problem(&o.passage.text))
            .find(|o| label(&o.passage.text) == Some(Label::Answer))
    };
    // A sentence that leans on the one before it ("However, …", "This can …") is quoted after
    // that one; when that one is a quote of its own further down, the two become one quote in
    // the leaning sentence's place.
    let antecedents: Vec<Option<String>> = chosen
        .iter()
        .map(|c| antecedent(&sources[c.source].text, &c.passage.text))
        .collect();
    let quoted_at = |source: usize, text: &str| {
        chosen
            .iter()
            .position(|o| o.source == source && o.passage.text == text)
    };
    let absorbed: Vec<(usize, usize)> = chosen
        .iter()
        .filter_map(|c| answer_to(c))
        .map(|a| (a.source, a.order))
        .chain(
            chosen
                .iter()
                .zip(&antecedents)
                .enumerate()
                .filter_map(|(at, (c, prev))| {
                    let later = quoted_at(c.source, prev.as_deref()?).filter(|&p| p > at)?;
                    Some((chosen[later].source, chosen[later].order))
                }),
        )
        .collect();
    if lead.is_some() {
        first_next = chosen
            .first()
            .and_then(|c| successor(&sources[c.source].text, &c.passage.text));
    }
    // A sentence after a quote that is not quoted already (see below).
    let unquoted = |c: &Cand, next: &String| {
        !chosen
            .iter()
            .any(|o| o.source == c.source && &o.passage.text == next)
    };
    // A troubleshooting entry's lines are quoted by their own rules (`answer_to`, `quote_fix`).
    let next_of_first = chosen
        .first()
        .filter(|c| !troubleshooting[c.source])
        .and(first_next)
        .filter(|next| unquoted(chosen[0], next));
    let next_of_filled = filled
        .filter(|c| !troubleshooting[c.source])
        .and_then(|c| {
            successor(&sources[c.source].text, &c.passage.text).filter(|next| unquoted(c, next))
        })
        .filter(|next| next_of_first.as_ref() != Some(next));
    let mut quotes: Vec<Quote> = lead.into_iter().collect();
    quotes.extend(
        chosen
            .iter()
            .zip(&antecedents)
            .enumerate()
            .filter(|(_, (c, _))| !absorbed.contains(&(c.source, c.order)))
            .map(|(at, (c, prev))| {
                // "This can be useful …" is quoted after the sentence it leans on, unless that
                // one is quoted already, before it.
                let sentence = match prev {
                    Some(prev) if quoted_at(c.source, prev).is_none_or(|p| p > at) => {
                        format!("{prev} {}", c.passage.text)
                    }
                    _ => c.passage.text.clone(),
                };
                // A troubleshooting entry's symptom matches the reader's question but says
                // nothing they do not know: it is quoted with the entry's answer (its cause or
                // fix), or the answer alone when the two do not fit in one quote.
                let sentence = match answer_to(c).map(|a| a.passage.text.as_str()) {
                    Some(answer)
                        if sentence.chars().count() + 2 + answer.chars().count()
                            <= MAX_SENTENCE_CHARS =>
                    {
                        // Two lines of the book: a label without closing punctuation gets a stop.
                        let stop = if ends_sentence(&sentence) { "" } else { "." };
                        format!("{sentence}{stop} {answer}")
                    }
                    Some(answer) => answer.to_string(),
                    None => sentence,
                };
                // The first quote, and the sentence its section added, go on with the sentence
                // after them: the sentence that matched the question best often only restates it,
                // and the next one answers.
                // So does a stated default, with the way to change it ("By default, RSS and Atom
                // feeds are generated. To disable feed generation, set …").
                let next_of_default;
                let next = if std::ptr::eq(*c, chosen[0]) {
                    next_of_first.as_ref()
                } else if filled.is_some_and(|f| std::ptr::eq(*c, f)) {
                    next_of_filled.as_ref()
                } else {
                    next_of_default = states_default(&c.passage.text)
                        .then(|| successor(&sources[c.source].text, &c.passage.text))
                        .flatten()
                        .filter(|next| unquoted(c, next));
                    next_of_default.as_ref()
                };
                let sentence = match next {
                    Some(next)
                        if sentence.chars().count() + 1 + next.chars().count()
                            <= MAX_SENTENCE_CHARS =>
                    {
                        format!("{sentence} {next}")
                    }
                    _ => sentence,
                };
                Quote {
                    source: c.source,
                    text: cut_at_word(
                        &completed_lead_in(&sources[c.source], &sentence),
                        MAX_SENTENCE_CHARS,
                    ),
                    matched_as_sentence: true,
                    form: Form::Sentence,
                    intro: None,
                    score: c.score(),
                }
            }),
    );
    // A troubleshooting entry's fix, with the steps listed under it, after its symptom or cause.
    if let Some(first) = chosen.first().filter(|c| troubleshooting[c.source]) {
        quote_fix(first, &sources[first.source].text, &mut quotes);
    }
    // A quote that ends leaning forward ("In this case, you can set the pagination links with
    // front matter:") announces the block after its last sentence: that block is its answer, and
    // follows the quote, before any other line of its section. The first such quote has it.
    let announced = quotes
        .iter()
        .enumerate()
        .filter(|(_, q)| q.is_sentence() && q.text.ends_with(':'))
        .find_map(|(at, q)| {
            let last = prose
                .iter()
                .filter(|p| p.source == q.source && q.text.ends_with(p.passage.text.as_str()))
                .max_by_key(|p| p.passage.text.len())?;
            code.iter()
                .find(|k| k.source == q.source && k.passage.intro == Some(last.order))
                .map(|k| (at, k))
        });
    if let Some((at, k)) = announced.filter(|_| !quotes.iter().any(|q| q.code_lang().is_some())) {
        if let Kind::Code { lang } = &k.passage.kind {
            quotes.insert(
                at + 1,
                Quote {
                    source: k.source,
                    text: k.shown().to_string(),
                    matched_as_sentence: false,
                    form: Form::Code { lang: lang.clone() },
                    intro: None,
                    score: k.score(),
                },
            );
        }
    }
    // A code block: for how-to questions (or a reader who wants examples) from the best source
    // that has one, and whenever the sections have no prose to quote at all (command-only
    // sections). Examples come from any quoted section.
    // A troubleshooting entry's fix is often a command block ("Solution:" and the commands): it is
    // quoted with the entry's cause, whatever the question's wording.
    let has_code = quotes.iter().any(|q| q.code_lang().is_some());
    let wants_code = how_to || style.prefer_code || quotes.is_empty();
    let fixes = quotes
        .first()
        .is_some_and(|q| troubleshooting.get(q.source) == Some(&true));
    // The section the first quote comes from (its quotes are shown first, below).
    let first_source = quotes.first().map_or(0, |q| q.source);
    // A block of a previous answer is not the snippet (it may still be the block picked below).
    let snippet = snippet(&code, first_source, &q_terms, question).filter(|c| !c.read);
    if let Some(c) = snippet.filter(|_| !(wants_code || fixes || has_code)) {
        if let Kind::Code { lang } = &c.passage.kind {
            // Added to the sentences, none dropped: a later sentence may be the only quote of
            // the section that answers.
            quotes.push(Quote {
                source: c.source,
                text: c.passage.text.clone(),
                matched_as_sentence: false,
                form: Form::Code { lang: lang.clone() },
                intro: None,
                score: c.score(),
            });
        }
    }
    if (wants_code || fixes) && !has_code {
        let quoted = |s: usize| style.prefer_code && quotes.iter().any(|q| q.source == s);
        let empty = quotes.is_empty();
        // A short block of the first quote's section that holds half the question's terms (the
        // snippet) shows the answer's lines; otherwise the block with the most of its terms. A
        // block of another section must hold more than one word in five of the question's (a
        // lone shared word brought `npm run build` to a question about building fewer versions).
        // A diagram of boxes shows nothing to do, but it may show how a thing works ("how does
        // Unity get the joint positions from Gazebo").
        let other_section_terms = 0.2;
        let works = {
            let q = question.trim_start().to_lowercase();
            q.starts_with("how does ") && !q.starts_with("how does one ")
        };
        let pick = snippet.or_else(|| {
            code.iter()
                .filter(|c| {
                    c.source == first_source
                        || (wants_code
                            && (quoted(c.source) || c.lexical > other_section_terms || empty))
                })
                .filter(|c| works || !is_diagram(&c.passage.text))
                .min_by(|a, b| {
                    // One the reader has not read yet first.
                    a.read
                        .cmp(&b.read)
                        .then(a.source.cmp(&b.source))
                        .then(b.lexical.total_cmp(&a.lexical))
                        .then(a.order.cmp(&b.order))
                })
        });
        if let Some(c) = pick {
            if let Kind::Code { lang } = &c.passage.kind {
                // With a code block, two sentences are enough.
                let sentences = quotes.iter().filter(|q| q.is_sentence()).count();
                if sentences >= max_sentences && max_sentences > 1 {
                    quotes.truncate(quotes.len() - 1);
                }
                quotes.push(Quote {
                    source: c.source,
                    text: c.shown().to_string(),
                    matched_as_sentence: false,
                    form: Form::Code { lang: lang.clone() },
                    intro: None,
                    score: c.score(),
                });
            }
        }
    }
    // Last: a list shown whole counts as the sentence it replaces above.
    show_whole_options(sources, &troubleshooting, &mut quotes);
    add_named_value(&q_terms, sources, &mut quotes);
    // A quote completed by the rules above (a lead-in with its list, a fix with its steps) may
    // still be what the reader selected.
    if !requote {
        quotes.retain(|q| unread(&q.text));
    }
    // Reading order, the first quote's section first: a summary or a quiz ranked above it gives
    // later quotes only (it restates what that section explains).
    book_retrieval::sort::sort_by(&mut quotes, &|a, b| {
        (a.source != first_source)
            .cmp(&(b.source != first_source))
            .then(a.source.cmp(&b.source))
    });
    quotes
}

/// `sentence` of `source` completed with what it announces when it is a lead-in: the list after it
/// (`with_its_list`), or, when it ends its section, the headings of the sections under it
/// (`with_its_subsections`).
fn completed_lead_in(source: &Source, sentence: &str) -> String {
    let with_list = with_its_list(&source.text, sentence);
    if with_list.ends_with(':') {
        if let Some(s) = with_its_subsections(&source.text, sentence, &source.subsections) {
            return s;
        }
    }
    with_list
}

/// Turns a sentence quote that is one option of a list of options ("Large (100+): Important data
/// that shouldn't be lost") into the list whole, with its lead-in ("Choosing queue size:"): the
/// reader asked about the choice, and the other options are the rest of the answer. A later quote
/// of the same list is dropped, and so is any sentence another quote of its section already holds
/// (a list item, in its lead-in completed with the list or in a fix's steps). Troubleshooting
/// entries keep their own rules (`quote_fix`).
fn show_whole_options(sources: &[Source], troubleshooting: &[bool], quotes: &mut Vec<Quote>) {
    // Which sentence quote another quote holds (a sentence, or a list: a troubleshooting fix's
    // steps); the holder takes the better match's score.
    let holder = |i: usize| {
        let q = &quotes[i];
        // A lead-in completed with its list ends each item with `;` or `.` (`with_its_list`).
        let bare = q.text.trim_end_matches(['.', ';', ',']);
        quotes.iter().position(|h| {
            matches!(h.form, Form::Sentence | Form::List)
                && h.source == q.source
                && h.text != q.text
                && h.text.contains(bare)
        })
    };
    let held: Vec<Option<usize>> = (0..quotes.len())
        .map(|i| quotes[i].is_sentence().then(|| holder(i)).flatten())
        .collect();
    for (i, h) in held.iter().enumerate() {
        if let Some(h) = *h {
            quotes[h].score = quotes[h].score.max(quotes[i].score);
        }
    }
    let mut held = held.into_iter();
    let mut shown: Vec<(usize, Vec<String>)> = Vec::new();
    quotes.retain_mut(|q| {
        if held.next().flatten().is_some() {
            return false;
        }
        if !q.is_sentence() {
            return true;
        }
        if troubleshooting.get(q.source) != Some(&false) {
            return true;
        }
        let Some((items, intro)) = options_list(&sources[q.source].text, &q.text) else {
            return true;
        };
        if shown.iter().any(|(s, i)| *s == q.source && *i == items) {
            return false;
        }
        q.text = items.join("\n");
        q.form = Form::List;
        q.intro = intro;
        shown.push((q.source, items));
        true
    });
}

/// Adds, after the first quote, its section's line stating the values of the option it
/// describes ("Type: `'ignore' | 'log' | 'warn' | 'throw'`") when that line names a value the
/// question asks for and no quote shows ("can I make it just warn"): the description says what
/// the option does, the line the value to write.
fn add_named_value(q_terms: &[String], sources: &[Source], quotes: &mut Vec<Quote>) {
    let Some(first) = quotes.first().filter(|q| q.is_sentence()) else {
        return;
    };
    let shown: Vec<String> = quotes.iter().flat_map(|q| terms(&q.text)).collect();
    let named = value_lines(&sources[first.source].text)
        .into_iter()
        .find(|(line, values)| {
            !quotes.iter().any(|q| q.text.contains(line.as_str()))
                && terms(values)
                    .iter()
                    .any(|t| q_terms.contains(t) && !shown.contains(t))
        });
    if let Some((line, _)) = named {
        let quote = Quote {
            source: first.source,
            text: line,
            matched_as_sentence: false,
            form: Form::List,
            intro: None,
            score: first.score,
        };
        quotes.insert(1, quote);
    }
}

/// Adds the fix of the troubleshooting entry that `first` (the first quote: its symptom or cause)
/// belongs to in `text`: the fix's line with the steps listed under it ("Solution: Switch from
/// Wayland to X11." and how), or the one-line fix when it is not quoted yet.
fn quote_fix(first: &Cand, text: &str, quotes: &mut Vec<Quote>) {
    let Some((fix, steps)) = fix_of(text, &first.passage.text) else {
        return;
    };
    // One step is the fix's first line, not its steps ("Check if frames exist:" and code).
    if steps.len() > 1 {
        // The fix's line leads into its steps: not quoted a second time on its own.
        quotes.retain(|q| !(q.is_sentence() && q.text == fix));
        quotes.push(Quote {
            source: first.source,
            text: steps
                .iter()
                .map(|s| cut_at_word(s, MAX_CELL_CHARS))
                .collect::<Vec<_>>()
                .join("\n"),
            matched_as_sentence: false,
            form: Form::List,
            intro: Some(fix),
            score: first.score(),
        });
    } else if !quotes.iter().any(|q| q.text.contains(&fix))
        && fix
            .split_once(':')
            .is_some_and(|(_, r)| !r.trim().is_empty())
    {
        quotes.push(Quote {
            source: first.source,
            text: cut_at_word(&fix, MAX_SENTENCE_CHARS),
            matched_as_sentence: true,
            form: Form::Sentence,
            intro: None,
            score: first.score(),
        });
    }
}

/// Whether a code block is drawn in text (box-drawing characters: a diagram or a file tree).
fn is_drawing(code: &str) -> bool {
    code.chars()
        .any(|ch| ('\u{2500}'..='\u{257f}').contains(&ch))
}

/// Whether a code block is a diagram of boxes (their corners drawn in text), which shows no
/// command or code to copy. A file tree ("├── conf") has no corners: it shows what to create.
fn is_diagram(code: &str) -> bool {
    code.contains(['┌', '┐', '┘', '╭', '╮', '╯', '╔', '╗', '╝'])
}

/// A short code block of section `source` that itself names the question's terms (a config key,
/// a command): the answer's other half, whatever the question's wording ("hide the navbar on
/// scroll" is answered by the sentence and `hideOnScroll: true`). Drawings in text (box-drawing
/// characters) are not snippets, nor is an error's output or a block made mostly of the question's
/// own words, which the reader pasted.
fn snippet<'a>(
    code: &'a [Cand],
    source: usize,
    q_terms: &[String],
    question: &str,
) -> Option<&'a Cand> {
    code.iter().find(|c| {
        let t = &c.passage.text;
        c.source == source
            && t.lines().count() <= SNIPPET_LINES
            && term_share(q_terms, t) >= SNIPPET_TERMS
            && !is_drawing(t)
            && !shows_an_error(t)
            && term_share(&terms(t), question) <= SNIPPET_ECHO
    })
}

/// The best block of section `top` (its index among the sources, and the source) by the question's
/// terms: a table (its best rows), a list, or a code block (`code` holds every source's code
/// candidates); the first in the section wins a tie. A block the reader has read (not `unread`)
/// is not one, unless they read it in a previous answer (`requote`) and the section has no other.
/// `None` when the section has none.
fn best_block(
    q_terms: &[String],
    (source, top): (usize, &Source),
    code: &[Cand],
    unread: &dyn Fn(&String) -> bool,
    requote: bool,
) -> Option<Quote> {
    // The best block, and whether the reader has read it.
    let mut best: Option<(Quote, bool)> = None;
    let mut consider = |q: Quote| {
        let read = !unread(&q.text);
        let better = match &best {
            None => true,
            Some((b, b_read)) => (*b_read && !read) || (*b_read == read && q.score > b.score),
        };
        if (requote || !read) && better {
            best = Some((q, read));
        }
    };
    for (block, intro) in blocks(&top.text) {
        match block {
            Block::Table(rows) => {
                let lines: Vec<String> = rows.iter().map(|r| r.join(" | ")).collect();
                let score = term_share(q_terms, &lines.join("\n"));
                // Of a long table, the rows sharing the most of the question's terms.
                let body = most_sharing(
                    q_terms,
                    lines.get(1..).unwrap_or(&[]),
                    MAX_TABLE_ROWS,
                    Trim::AllButNamed,
                )
                .into_iter()
                .map(|r| r + 1);
                let text = std::iter::once(0)
                    .chain(body)
                    .map(|r| {
                        let cells: Vec<String> = rows[r]
                            .iter()
                            .map(|c| cut_at_word(&c.replace('\t', " "), MAX_CELL_CHARS))
                            .collect();
                        cells.join("\t")
                    })
                    .collect::<Vec<_>>()
                    .join("\n");
                consider(Quote {
                    source,
                    text,
                    matched_as_sentence: false,
                    form: Form::Table,
                    intro: intro.clone(),
                    score,
                });
            }
            Block::List(items) => {
                let score = term_share(q_terms, &items.join("\n"));
                // Of a long list, only the items sharing the question's terms (its opening items
                // when none does): an exercises list's third exercise is the one asked about, and
                // the items about the other exercises would fill the quote before it.
                let text = most_sharing(q_terms, &items, MAX_LIST_ITEMS, Trim::Unrelated)
                    .into_iter()
                    .map(|i| cut_at_word(&items[i], MAX_CELL_CHARS))
                    .collect::<Vec<_>>()
                    .join("\n");
                consider(Quote {
                    source,
                    text,
                    matched_as_sentence: false,
                    form: Form::List,
                    intro: intro.clone(),
                    score,
                });
            }
        }
    }
    for c in code.iter().filter(|c| c.source == source) {
        if let Kind::Code { lang } = &c.passage.kind {
            consider(Quote {
                source,
                text: c.shown().to_string(),
                matched_as_sentence: false,
                form: Form::Code { lang: lang.clone() },
                intro: None,
                score: c.lexical,
            });
        }
    }
    best.map(|(q, _)| q)
}

/// Which lines of a long table or list a quote leaves out, besides those past the `max` best.
#[derive(Clone, Copy)]
enum Trim {
    /// Lines sharing none of the question's terms (unless no line shares any).
    Unrelated,
    /// When a line holds [`TABLE_ROW_NAMED`] of the question's terms (the question names it),
    /// the lines sharing less than half as much.
    AllButNamed,
}

/// Which of `lines` (a table's body rows, a list's items) a quote shows, in their order: all when
/// they are at most `max`, else the `max` sharing the most of the question's terms (the first of
/// equals), less those `trim` leaves out.
fn most_sharing(q_terms: &[String], lines: &[String], max: usize, trim: Trim) -> Vec<usize> {
    let mut kept: Vec<usize> = (0..lines.len()).collect();
    if kept.len() > max {
        let share: Vec<f32> = lines.iter().map(|l| term_share(q_terms, l)).collect();
        let best = share.iter().copied().fold(0f32, f32::max);
        let floor = match trim {
            Trim::Unrelated if best > 0.0 => Some(0.0),
            Trim::AllButNamed if best >= TABLE_ROW_NAMED => Some(best / 2.0),
            _ => None,
        };
        if let Some(floor) = floor {
            kept.retain(|&i| share[i] > 0.0 && share[i] >= floor);
        }
        book_retrieval::sort::sort_by(&mut kept, &|&a, &b| {
            share[b].total_cmp(&share[a]).then(a.cmp(&b))
        });
        kept.truncate(max);
        kept.sort_unstable();
    }
    kept
}

/// Renders quotes as the answer's Markdown; `number(q)` is the citation number of quote `q`'s
/// source. Without `citations` the quotes carry no `[n]`; the closing line then cites every quoted
/// source once, so the sources stay listed under the answer (the widget lists cited sources).
/// `also` (a paragraph such as "Also relevant: …", or empty) goes between the quotes and the
/// closing line, which stays last.
pub fn render(
    quotes: &[Quote],
    number: impl Fn(usize) -> usize,
    citations: bool,
    also: &str,
    words: &Words,
) -> String {
    let mut md = words.excerpt_label.clone();
    md.push_str("\n\n");
    let mut cited: Vec<usize> = Vec::new();
    for q in quotes {
        let n = number(q.source);
        if !cited.contains(&n) {
            cited.push(n);
        }
        let from = if citations {
            words.from_source.replace("{n}", &n.to_string())
        } else {
            words.from_book.clone()
        };
        match &q.form {
            Form::Sentence if citations => {
                md.push_str(&format!("> “{}” [{n}]\n\n", escape_quoted(&q.text)))
            }
            Form::Sentence => md.push_str(&format!("> “{}”\n\n", escape_quoted(&q.text))),
            Form::Code { lang } => {
                let fence = "`".repeat(longest_backtick_run(&q.text).max(2) + 1);
                md.push_str(&format!("{from}\n\n{fence}{lang}\n{}\n{fence}\n\n", q.text));
            }
            Form::Table => {
                md.push_str(&from_with(&from, q.intro.as_deref()));
                // Every row as wide as the widest: a header with an empty last cell ("| Name |
                // Description |  |") loses it in the chunk text, and Markdown drops the cells of a
                // row past its header's (a rule table's ✅ column).
                let width = q.text.lines().map(|l| l.split('\t').count()).max();
                for (r, line) in q.text.lines().enumerate() {
                    let mut cells: Vec<String> = line.split('\t').map(escape_cell).collect();
                    cells.resize(width.unwrap_or(cells.len()).max(cells.len()), String::new());
                    md.push_str(&format!("| {} |\n", cells.join(" | ")));
                    if r == 0 {
                        md.push_str(&format!("|{}\n", " --- |".repeat(cells.len())));
                    }
                }
                md.push('\n');
            }
            Form::List => {
                md.push_str(&from_with(&from, q.intro.as_deref()));
                for item in q.text.lines() {
                    md.push_str(&format!("- {}\n", escape_quoted(item)));
                }
                md.push('\n');
            }
        }
    }
    if !also.is_empty() {
        md.push_str(also);
        md.push_str("\n\n");
    }
    if citations {
        md.push_str(&words.follow_sources);
    } else {
        cited.sort_unstable();
        let list: Vec<String> = cited.iter().map(|n| format!("[{n}]")).collect();
        md.push_str(
            &words
                .follow_sources_cited
                .replace("{list}", &list.join(", ")),
        );
    }
    md
}

fn longest_backtick_run(s: &str) -> usize {
    s.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// "From [n]:" before a table or list, with the book's lead-in to it when it has one.
fn from_with(from: &str, intro: Option<&str>) -> String {
    match intro {
        Some(i) => format!("{from} “{}”\n\n", escape_quoted(i)),
        None => format!("{from}\n\n"),
    }
}

/// Quoted text (a sentence, a list item, a lead-in) shown literally like [`escape_md`], except
/// that balanced inline code (`` `GIT_USER` ``) stays code, as the book shows it.
fn escape_quoted(s: &str) -> String {
    escape_keeping_code(s, false)
}

/// A table cell: as [`escape_quoted`], and inside its inline code `|` is escaped, which a table
/// cell needs (GFM tables read `\|` in a code span as a literal bar; elsewhere it would show).
fn escape_cell(s: &str) -> String {
    escape_keeping_code(s, true)
}

fn escape_keeping_code(s: &str, in_table: bool) -> String {
    // Unbalanced or doubled backticks: shown literally rather than guessed at.
    if s.matches('`').count() % 2 == 1 || s.contains("``") {
        return escape_md(s);
    }
    s.split('`')
        .enumerate()
        .map(|(i, part)| match i % 2 {
            1 if in_table => part.replace('|', "\\|"),
            1 => part.to_string(),
            _ => escape_md(part),
        })
        .collect::<Vec<_>>()
        .join("`")
}

/// Quoted book text is shown literally: Markdown/HTML-significant characters are escaped.
pub fn escape_md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(n: u32, text: &str) -> Source {
        Source {
            chunk: n,
            chapter: "C".into(),
            section: None,
            parent: None,
            url: format!("/c#{n}"),
            text: text.into(),
            score: 1.0,
            subsections: Vec::new(),
        }
    }

    #[test]
    fn questions_lead_ins_and_objectives_are_not_quoted() {
        let quiz = src(
            1,
            "Which physics engine is best suited for humanoid robot simulation?\n\nA physics engine is the software that computes the contact forces of the robot:\n\n- collisions between links\n- friction at the feet\n\nThe physics engine computes how the walking robot's feet touch the ground.",
        );
        let mut objectives = src(
            2,
            "Set up a basic physics engine simulation for a walking humanoid robot.",
        );
        objectives.section = Some("What You'll Learn".into());
        let style = Style {
            sentences: 3,
            ..Style::default()
        };
        let q = choose(
            "Which physics engine suits a humanoid robot simulation?",
            &[quiz, objectives],
            None,
            None,
            &style,
            None,
        );
        assert!(!q.is_empty());
        assert!(q.iter().all(|q| q.source == 0), "objectives quoted: {q:?}");
        assert!(
            q.iter()
                .all(|q| !q.text.ends_with('?') && !q.text.ends_with(':')),
            "a question or a bare lead-in quoted: {q:?}"
        );
        // The lead-in is quoted with its list.
        let lead_text = "The engine computes three things:\n\n- contact forces\n- friction;\n- joint limits.\n\nNext paragraph here.";
        let p = passages(lead_text);
        assert_eq!(
            crate::passage::with_its_list(lead_text, &p[0].text),
            "The engine computes three things: contact forces; friction; joint limits."
        );
        // With nothing but a question, a bare lead-in or a quoted utterance in the sections,
        // nothing is quoted (the answer lists its sources: `render`), rather than a line that
        // answers nothing.
        let only = src(
            1,
            "Which physics engine is best for a walking humanoid robot?\n\nYou will build a walking humanoid robot that responds to:\n\n> **\"Pick the physics engine for the humanoid robot\"**",
        );
        let q = quotes("physics engine for a humanoid robot", &[only]);
        assert!(q.is_empty(), "{q:?}");
        // A section with a sentence that answers is quoted first, though ranked below.
        let answers = src(
            2,
            "The physics engine computes contact forces for a humanoid robot.",
        );
        let only = src(
            1,
            "Which physics engine is best for a walking humanoid robot?",
        );
        let q = quotes("physics engine for a humanoid robot", &[only, answers]);
        assert_eq!(q.first().map(|q| q.source), Some(1), "{q:?}");
    }

    #[test]
    fn picks_relevant_sentences() {
        let sources = vec![
            src(1, "# Nodes\n\nROS 2 has many parts to learn about. A node is a process that performs computation in the graph. Nodes talk over topics.\n```python\nrclpy.init()\n```"),
            src(2, "Topics are named buses over which nodes exchange messages. Services are request and reply."),
        ];
        let q = quotes("What is a node in ROS 2?", &sources);
        assert_eq!(q[0].source, 0);
        assert_eq!(
            q[0].text,
            "A node is a process that performs computation in the graph."
        );
        assert!(
            q.iter().all(|q| q.code_lang().is_none()),
            "not a how-to question"
        );
    }

    #[test]
    fn one_option_of_a_list_of_options_shows_the_list_whole() {
        let sources = vec![src(
            1,
            "The queue size says how many messages are buffered for slow subscribers.\n\nChoosing queue size:\n\n- Small (1-10): Real-time data where old messages are irrelevant (sensor readings, velocity commands)\n- Large (100+): Important data that shouldn't be lost (logging, diagnostics)\n\nAdvanced QoS profiles are described later.",
        )];
        let q = quotes(
            "which queue size for logging data that shouldn't be lost",
            &sources,
        );
        let list: Vec<&Quote> = q.iter().filter(|q| q.form == Form::List).collect();
        assert_eq!(list.len(), 1, "{q:?}");
        assert_eq!(list[0].intro.as_deref(), Some("Choosing queue size:"));
        assert!(list[0].text.starts_with("Small (1-10): Real-time data"));
        assert!(list[0].text.contains("\nLarge (100+): Important data"));
        assert!(list[0].matched_as_sentence);
        // The other item is not quoted again on its own.
        assert!(!q
            .iter()
            .any(|x| x.is_sentence() && x.text.starts_with("Small")));
    }

    #[test]
    fn an_item_its_lead_in_already_holds_is_not_quoted_twice() {
        let sources = vec![src(
            1,
            "The Unitree Go2, a quadruped robot, presents challenges related to dynamic locomotion. Sim-to-real transfer will focus on:\n\n- Dynamic Locomotion Policies: Transferring walking, trotting, or even jumping gaits.\n- Object Tracking Policies: Using its onboard camera for visual servoing tasks.",
        )];
        let style = Style {
            sentences: 3,
            ..Style::default()
        };
        let q = choose(
            "quadruped dynamic locomotion: transferring walking and trotting gaits",
            &sources,
            None,
            None,
            &style,
            None,
        );
        let holding: Vec<&Quote> = q
            .iter()
            .filter(|x| x.text.contains("Transferring walking"))
            .collect();
        assert_eq!(holding.len(), 1, "{q:#?}");
    }

    #[test]
    fn a_fix_step_is_not_quoted_again_beside_the_fix_steps() {
        let sources = vec![src(
            1,
            "Symptom: Docker commands fail, but `df -h` shows plenty of disk space.\n\nRoot Cause: Docker's internal storage is on a separate volume or has run out of inodes.\n\nSolution:\n\n- Check Docker's disk usage with the command `docker system df`\n- Clean up unused Docker objects with `docker system prune -a`\n- Consider moving Docker's data root to a larger disk if needed.",
        )];
        let style = Style {
            sentences: 3,
            ..Style::default()
        };
        let q = choose(
            "docker commands fail but df -h shows plenty of disk space, move the data root to a larger disk?",
            &sources,
            None,
            None,
            &style,
            None,
        );
        let holding = q
            .iter()
            .filter(|x| x.text.contains("Consider moving Docker's data root"))
            .count();
        assert_eq!(holding, 1, "{q:#?}");
    }

    #[test]
    fn the_value_the_question_names_is_shown_from_the_options_type_line() {
        let sources = vec![src(
            1,
            "- Type: `'ignore' | 'log' | 'warn' | 'throw'`\n\nThe behavior of Docusaurus when it detects any broken link.\n\nBy default, it throws an error, to ensure you never ship any broken link.",
        )];
        let q = quotes(
            "the build fails on a broken link, can I make Docusaurus just warn",
            &sources,
        );
        assert!(
            q.iter()
                .any(|x| x.form == Form::List
                    && x.text == "Type: `'ignore' | 'log' | 'warn' | 'throw'`"),
            "{q:#?}"
        );
        // Not when the question names no value of the line.
        let q = quotes(
            "what does Docusaurus do when it detects a broken link",
            &sources,
        );
        assert!(!q.iter().any(|x| x.text.starts_with("Type:")), "{q:#?}");
    }

    #[test]
    fn the_outcome_of_an_unstated_step_is_not_quoted() {
        let sources = vec![src(
            1,
            "Record five seconds from the microphone and play them back.\n\n- Expected: Clear audio playback with your voice, no crackling from the microphone.\n\nIf no device is listed, the microphone is not seen by the system: check `arecord -l`.",
        )];
        let q = quotes("my microphone is not found", &sources);
        assert!(!q.is_empty());
        assert!(q.iter().all(|q| !q.text.contains("Expected")), "{q:?}");
    }

    #[test]
    fn first_quote_comes_from_the_best_ranked_section() {
        // The third section matches the question's words better, but the search ranked the
        // first ones higher: they are quoted first. A section with no sentence (code only) has its
        // code quoted, as the answer it gives.
        let sources = vec![
            src(0, "```bash\nros2 launch robot bringup.launch.py\n```"),
            src(
                1,
                "Launch files start several nodes at once with their parameters.",
            ),
            src(
                2,
                "A launch file in ROS 2 is a launch file that launches ROS 2 launch nodes.",
            ),
        ];
        let q = quotes("What is a launch file in ROS 2?", &sources);
        assert_eq!(q[0].source, 0, "{q:?}");
        assert_eq!(q[0].code_lang(), Some("bash"), "{q:?}");
        assert!(q.iter().any(|q| q.source == 2), "{q:?}");
        // Without the code-only section, the best-ranked section with a sentence comes first.
        let q = quotes("What is a launch file in ROS 2?", &sources[1..]);
        assert_eq!(q[0].source, 0, "{q:?}");
        assert!(q[0].is_sentence(), "{q:?}");
        assert!(q.iter().any(|q| q.source == 1), "{q:?}");
    }

    #[test]
    fn a_lead_in_ending_the_section_is_quoted_with_the_sections_under_it() {
        let mut why = src(
            0,
            "Physical AI isn't new: robotics research dates back to the 1950s. So why is 2024-2026 the inflection point? Five technological trends are converging simultaneously:",
        );
        why.subsections = vec![
            "1. Vision-Language-Action (VLA) Models".into(),
            "2. Sim-to-Real Transfer".into(),
        ];
        let q = quotes(
            "why is physical ai happening now when robotics research is old",
            &[why.clone()],
        );
        let texts: Vec<&str> = q.iter().map(|q| q.text.as_str()).collect();
        assert!(
            texts.contains(&"Five technological trends are converging simultaneously: Vision-Language-Action (VLA) Models; Sim-to-Real Transfer."),
            "{texts:?}"
        );
        assert!(texts.iter().all(|t| !t.ends_with('?')), "{texts:?}");
        // Without the sections under it, the lead-in announces nothing it can show.
        why.subsections.clear();
        let q = quotes(
            "why is physical ai happening now when robotics research is old",
            &[why],
        );
        assert!(q.iter().all(|q| !q.text.ends_with(':')), "{q:?}");
    }

    #[test]
    fn a_how_to_answer_takes_code_of_another_section_only_when_it_is_about_the_question() {
        let tip = src(
            0,
            "Tip: limit the docs to 2 or 3 versions in dev and deploy previews to improve startup and build time.",
        );
        let build = src(
            1,
            "You can build the site for production:\n\n```bash\nnpm run build\n```",
        );
        let question = "how do I build only a couple of the old versions locally";
        let q = quotes(question, &[tip.clone(), build]);
        assert!(q.iter().all(|q| q.code_lang().is_none()), "{q:?}");
        let only_versions = src(
            1,
            "Build only the versions you list in dev:\n\n```js\nonlyIncludeVersions: ['current', '1.0.0'] // build only these old versions locally\n```",
        );
        let q = quotes(question, &[tip, only_versions]);
        assert!(q.iter().any(|q| q.code_lang().is_some()), "{q:?}");
    }

    #[test]
    fn a_quiz_ranked_first_yields_the_first_quote_to_the_section_it_restates() {
        let mut quiz = src(
            0,
            "Which launch file argument runs three robots with separate topic prefixes?\n\nA) `/cmd_vel` for every robot in the launch file B) `/robot1/cmd_vel` with a namespace per robot",
        );
        quiz.section = Some("Question 8: Launch File Namespaces".into());
        quiz.chapter = "Chapter 03 Quiz".into();
        let content = src(
            1,
            "Give each robot's nodes a namespace in the launch file, so every topic is prefixed with the robot's name.",
        );
        let q = quotes(
            "run three robots with separate topic prefixes",
            &[quiz.clone(), content.clone()],
        );
        assert_eq!(q[0].source, 1, "{q:?}");
        assert!(q.iter().all(|q| q.source == 1), "{q:?}");
        // With nothing else, the quiz's question is never quoted as if it answered (its options
        // or explanation may be).
        let q = quotes("run three robots with separate topic prefixes", &[quiz]);
        assert!(q.iter().all(|q| !q.text.ends_with('?')), "{q:?}");
    }

    #[test]
    fn a_summary_ranked_first_does_not_keep_the_section_it_sums_up_unquoted() {
        let mut summary = src(
            0,
            "Topics stream data to subscribers, while a service answers one request.",
        );
        summary.section = Some("Summary".into());
        let content = src(1, "A service answers one request with one response.");
        // The summary's line matches best, and the section's own line too weakly to be a later
        // quote: the section that explains gives the first quote, shown first, and the summary,
        // a section like any other for later quotes, is quoted after it.
        let q = quotes("topic and service", &[summary.clone(), content]);
        assert_eq!(q.first().map(|q| q.source), Some(1), "{q:?}");
        assert!(q.iter().any(|q| q.source == 0), "{q:?}");
        // Alone, it answers.
        let q = quotes("topic and service", &[summary]);
        assert_eq!(q.first().map(|q| q.source), Some(0), "{q:?}");
    }

    #[test]
    fn a_section_that_answers_in_a_table_or_list_has_it_quoted() {
        let table = src(
            0,
            "Type | Motion | Humanoid example\n`revolute` | Rotation with limits | Knee, elbow\n`fixed` | No motion | Camera mount, IMU",
        );
        let list = src(
            1,
            "Premium humanoids cost:\n\n- Unitree G1: $16,000\n- Unitree H1: $90,000",
        );
        let elsewhere = src(
            2,
            "This chapter brings together every module of the course you have read so far.",
        );
        let q = quotes(
            "which joint type for a knee vs a camera mount",
            &[table.clone(), list.clone(), elsewhere.clone()],
        );
        assert_eq!(q[0].form, Form::Table, "{q:?}");
        assert_eq!(q[0].text.lines().count(), 3, "header and both rows: {q:?}");
        assert!(
            q.iter().all(|q| q.source != 2),
            "an unrelated sentence added: {q:?}"
        );
        let md = render(&q, |s| s + 1, true, "", &Words::default());
        assert!(
            md.contains("From [1]:\n\n| Type | Motion | Humanoid example |\n| --- | --- | --- |\n| `revolute` |"),
            "{md}"
        );
        let q = quotes("how much does a Unitree H1 cost", &[list, elsewhere]);
        assert_eq!(q[0].form, Form::List, "{q:?}");
        let md = render(&q, |s| s + 1, true, "", &Words::default());
        assert!(
            md.contains("From [1]: “Premium humanoids cost:”\n\n- Unitree G1: $16,000\n- Unitree H1: $90,000\n"),
            "{md}"
        );
        // A long table shows the rows that match, in order, under its header.
        let mut rows = vec!["Name | Meaning".to_string()];
        rows.extend((0..20).map(|i| format!("`opt{i}` | setting number {i}")));
        rows.push("`draft` | Draft documents are only built in development".into());
        let q = quotes("what does the draft option do", &[src(0, &rows.join("\n"))]);
        assert_eq!(q[0].form, Form::Table);
        let lines: Vec<&str> = q[0].text.lines().collect();
        assert_eq!(
            lines,
            [
                "Name\tMeaning",
                "`draft`\tDraft documents are only built in development"
            ],
            "rows sharing nothing do not fill the quote of a row the question names"
        );
        // Rows sharing much less than the named one are left out too; a question naming no row
        // gets the best rows, and with none sharing a term (the question's words in the header)
        // the table's first rows.
        let mut rows = vec!["Name | Meaning".to_string()];
        rows.extend((0..12).map(|i| format!("`doc{i}` | a doc setting number {i}")));
        rows.push("`showLastUpdateTime` | Show the date a doc was last updated".into());
        let q = quotes(
            "show the last updated date on each doc",
            &[src(0, &rows.join("\n"))],
        );
        let lines: Vec<&str> = q[0].text.lines().collect();
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[1].starts_with("`showLastUpdateTime`"), "{lines:?}");
        let q = quotes("what does each name mean", &[src(0, &rows.join("\n"))]);
        assert_eq!(q[0].text.lines().count(), 1 + MAX_TABLE_ROWS, "{q:?}");
        let q = quotes(
            "which doc settings matter for a small robot site",
            &[src(0, &rows.join("\n"))],
        );
        assert_eq!(q[0].text.lines().count(), 1 + MAX_TABLE_ROWS, "{q:?}");
        // Inline code stays code in a cell, its `|` escaped for the table; other text is literal.
        let q = quotes(
            "lastmod values",
            &[src(0, "Name | Type\n`lastmod` | `'date' | null` or *none*")],
        );
        assert!(
            render(&q, |s| s + 1, true, "", &Words::default())
                .contains("| `lastmod` | `'date' \\| null` or \\*none\\* |"),
            "{q:?}"
        );
    }

    #[test]
    fn a_list_holding_the_only_words_of_the_question_is_quoted_before_unrelated_sentences() {
        // An exercises section: its sentences (long items) are about other exercises; the
        // question's words are only in short items of a long list.
        let mut text = String::from("Try these hands-on challenges:\n\n");
        for (n, task) in [
            "Service: Create a service that converts Celsius to Fahrenheit",
            "Action: Create an action that counts down from N to zero",
            "Timer: Publish a message every second with the remaining count",
            "Parameters: Declare a parameter that sets the publishing rate of the node",
        ]
        .iter()
        .enumerate()
        {
            text.push_str(&format!(
                "{}. {task}\n   - Define the interface\n   - Test it\n",
                n + 1
            ));
        }
        text.push_str("5. Integration: Build a coffee maker simulation\n   - Action: Brew coffee with progress updates\n");
        let q = quotes("how do I brew good coffee", &[src(0, &text)]);
        assert_eq!(q[0].form, Form::List, "{q:?}");
        assert_eq!(
            q[0].text,
            "Integration: Build a coffee maker simulation\nAction: Brew coffee with progress updates",
            "of a long list, the items holding the question's words"
        );
        assert_eq!(
            q[0].intro.as_deref(),
            Some("Try these hands-on challenges:")
        );
        // A sentence sharing a word with the question keeps the first place.
        let q = quotes("how do I convert Celsius", &[src(0, &text)]);
        assert_eq!(q[0].form, Form::Sentence, "{q:?}");
    }

    #[test]
    fn few_sentences_are_embedded_best_ranked_sections_first() {
        let sources = vec![
            src(0, "Nodes are processes that run your robot code. Nodes talk to each other over named topics."),
            src(1, "Topics carry typed messages between the nodes of the graph. Topics have one message type each."),
            src(2, "Services answer one request with one reply. A service call blocks until the reply arrives."),
        ];
        let calls = std::cell::RefCell::new(Vec::new());
        let embed = |t: &str, max_tokens: usize| {
            calls.borrow_mut().push(t.to_string());
            assert_eq!(max_tokens, EMBED_TOKENS);
            Some(vec![1.0, 0.0])
        };
        let q = choose(
            "What do nodes and topics do?",
            &sources,
            Some(&[1.0, 0.0]),
            Some(&embed),
            &Style::default(),
            None,
        );
        let calls = calls.into_inner();
        assert_eq!(calls.len(), MAX_EMBEDDED, "{calls:?}");
        assert!(
            calls[0].starts_with("Nodes") && calls[1].starts_with("Topics"),
            "{calls:?}"
        );
        assert_eq!(q[0].source, 0);
    }

    /// The quotes for `question` with the default style, before the encoder has loaded.
    fn quotes(question: &str, sources: &[Source]) -> Vec<Quote> {
        choose(question, sources, None, None, &Style::default(), None)
    }

    /// The quoted code block.
    fn code_of(q: &[Quote]) -> &Quote {
        q.iter()
            .find(|q| q.code_lang().is_some())
            .expect("code quoted")
    }

    #[test]
    fn how_to_quotes_the_command_block() {
        let sources = vec![src(
            1,
            "The bridge connects Gazebo transport topics to ROS 2.\n\n```bash\nros2 run ros_gz_bridge parameter_bridge /chatter@std_msgs/msg/String@gz.msgs.StringMsg\n```",
        )];
        let q = quotes("How do I bridge Gazebo topics to ROS 2?", &sources);
        let code = code_of(&q);
        assert!(code.text.starts_with("ros2 run ros_gz_bridge"));
        let md = render(&q, |s| s + 1, true, "", &Words::default());
        assert!(md.contains("From [1]:\n\n```bash\nros2 run"), "{md}");
    }

    #[test]
    fn a_task_is_answered_by_a_command_and_a_diagram_shows_how_a_thing_works() {
        let sources = vec![
            src(
                1,
                "Gazebo and ROS 2 talk through the bridge.\n\n```text\n┌────────┐     ┌───────┐\n│ Gazebo │ ──► │ ROS 2 │\n└────────┘     └───────┘\n```",
            ),
            src(
                2,
                "Run the bridge for each topic.\n\n```bash\nros2 run ros_gz_bridge parameter_bridge /clock@rosgraph_msgs/msg/Clock@gz.msgs.Clock\n```",
            ),
        ];
        // A task: the command, never the diagram.
        let q = quotes("How do I bridge Gazebo topics to ROS 2?", &sources);
        assert!(
            code_of(&q).text.starts_with("ros2 run ros_gz_bridge"),
            "{q:?}"
        );
        assert!(!q.iter().any(|x| x.text.contains('┌')), "{q:?}");
        // How a thing works: the diagram may show it.
        let q = quotes("how does Gazebo talk to ROS 2 through the bridge", &sources);
        assert!(code_of(&q).text.contains("│ Gazebo │"), "{q:?}");
    }

    #[test]
    fn the_first_quote_goes_on_with_the_sentence_that_answers() {
        let sources = vec![src(
            1,
            "The blog sidebar displays recent blog posts. The default number of items shown is 5, but you can customize it with the `blogSidebarCount` option.\n\nYou can also alter the sidebar heading text with the `blogSidebarTitle` option.",
        )];
        let q = quotes(
            "blog sidebar only lists 5 recent posts, want all of them",
            &sources,
        );
        assert!(
            q[0].text.starts_with("The blog sidebar displays recent blog posts. The default number of items shown is 5"),
            "{q:?}"
        );
        // The continuation is not quoted a second time on its own.
        assert_eq!(
            q.iter()
                .filter(|x| x.text.contains("The default number"))
                .count(),
            1
        );
    }

    #[test]
    fn a_leaning_sentence_ranked_first_is_quoted_after_the_one_it_continues() {
        let sources = vec![
            src(
                1,
                "In light mode, the `<html>` element has a `data-theme=\"light\"` attribute; in dark mode, it is `data-theme=\"dark\"`. Therefore, you can scope your CSS to dark mode only by targeting `html` with a specific attribute.",
            ),
            src(2, "Deploying needs a build first."),
        ];
        let q = quotes(
            "how do I write css that applies only in dark mode",
            &sources,
        );
        let pair = "In light mode, the `<html>` element has a `data-theme=\"light\"` attribute; in dark mode, it is `data-theme=\"dark\"`. Therefore, you can scope your CSS";
        assert!(q[0].text.starts_with(pair), "{q:?}");
        // The sentence it continues is not quoted again on its own.
        assert_eq!(
            q.iter()
                .filter(|x| x.text.contains("In light mode"))
                .count(),
            1,
            "{q:?}"
        );
    }

    #[test]
    fn an_unused_quote_goes_to_a_later_sentence_of_the_first_section() {
        let sources = vec![
            src(
                1,
                "By default, the classic theme assumes one instance of each plugin. If you would like to have two separate blogs on a single site, it's possible too!\n\nEach plugin reads its options from the config file.\n\nYou can add another blog by specifying another plugin in the `plugins` option.",
            ),
            src(2, "Deploying needs a build first."),
        ];
        let q = quotes("can a site have two separate blogs?", &sources);
        assert!(q[0].text.contains("two separate blogs"), "{q:?}");
        assert!(
            q.iter()
                .any(|x| x.text.starts_with("You can add another blog")),
            "{q:?}"
        );
        // Only sentences sharing a word with the question: not the one about options.
        assert!(!q.iter().any(|x| x.text.contains("options from")), "{q:?}");
    }

    #[test]
    fn the_sentence_added_from_the_first_section_goes_on_with_the_next() {
        let sources = vec![
            src(
                1,
                "You can enable line numbering for your code block with the `showLineNumbers` key.\n\nBy default, each block starts at one. You may pass a custom value after the key, like `showLineNumbers=5`.",
            ),
            src(2, "Deploying needs a build first."),
        ];
        let q = quotes(
            "code block line numbers, but starting the count at 3",
            &sources,
        );
        assert!(
            q.iter().any(|x| x.text
                == "By default, each block starts at one. You may pass a custom value after the key, like `showLineNumbers=5`."),
            "{q:?}"
        );
    }

    #[test]
    fn a_block_is_scored_with_the_short_item_that_labels_it() {
        let sources = vec![src(
            1,
            "You can manage the cluster lifecycle by configuring the flags provided by the plugin.\n\n- Default setting: delete cluster after job finishes remotely:\n  ```commandline\nhydra.launcher.stop_cluster=true\nhydra.launcher.teardown_cluster.keep_min_workers=false\n  ```\n\n- Keep cluster running after jobs finish\n  ```commandline\nhydra.launcher.stop_cluster=false\n  ```",
        )];
        let q = quotes("keep the cluster running after my jobs finish", &sources);
        assert_eq!(
            code_of(&q).text,
            "hydra.launcher.stop_cluster=false",
            "{q:?}"
        );
    }

    #[test]
    fn a_how_to_block_is_the_short_one_that_holds_the_question() {
        // Both blocks hold the question's words; the short call, not the class definitions.
        let sources = vec![src(
            1,
            "The trainer holds a Dataset and an Optimizer instance.\n\n```python\nclass Optimizer:\n    def __init__(self, lr: float) -> None:\n        self.lr = lr\n\nclass Dataset:\n    def __init__(self, name: str) -> None:\n        self.name = name\n\nclass Trainer:\n    def __init__(self, optimizer, dataset) -> None:\n        self.optimizer = optimizer\n        self.dataset = dataset\n```\n\nIt is used like this:\n\n```python\ntrainer = instantiate(cfg.trainer)\nprint(trainer)  # Trainer(optimizer=..., dataset=...)\n```",
        )];
        let q = quotes(
            "build a trainer that holds an optimizer and a dataset in one call",
            &sources,
        );
        assert!(
            code_of(&q).text.starts_with("trainer = instantiate"),
            "{q:?}"
        );
    }

    #[test]
    fn a_troubleshooting_entry_is_not_continued_twice() {
        // The entry's lines share a paragraph: its cause is quoted once, with the symptom.
        let sources = vec![src(
            1,
            "Symptom: The robot drifts to the left when driving straight.\nCause: The wheel odometry was never calibrated on this robot.\n\nMore text about driving the robot around the lab safely.",
        )];
        let q = quotes("why does my robot drift to the left when driving", &sources);
        let all: String = q.iter().map(|x| x.text.as_str()).collect();
        assert_eq!(all.matches("wheel odometry").count(), 1, "{q:?}");
    }

    #[test]
    fn a_quote_leaning_forward_has_its_block_quoted() {
        // The first code block holds more of the question's words; the block the quoted sentence
        // announces ("… with front matter:") is the answer.
        let sources = vec![src(
            1,
            "The pagination next link on windows points to linux, but you want readers to go to getting started. In this case, set the pagination links with front matter:\n\n```md\n---\npagination_next: getting-started\n---\n```\n\n```js\nexport default { installation: ['windows', 'linux', 'macos'], next: 'getting-started' };\n```",
        )];
        let q = quotes(
            "the next link on my windows page goes to linux, I want getting started",
            &sources,
        );
        let code = code_of(&q);
        assert!(
            code.text.contains("pagination_next: getting-started"),
            "{q:?}"
        );
    }

    #[test]
    fn a_lead_in_that_answers_is_quoted_with_its_block_right_after_it() {
        // The advice is said in the lead-in to a command: quoted first, with the command next,
        // before the section's other sentences.
        let sources = vec![src(
            1,
            "Constants (null, true, false, inf, nan) are case-insensitive in any override.\n\nAlways single-quote interpolations in the shell, to prevent replacement with shell variables:\n\n```shell\n$ python my_app.py 'dir=/root/${name}'\n```\n\nMore complex values may need double quotes inside the single ones.",
        )];
        let q = quotes("the shell replaces ${name} before my app sees it", &sources);
        assert!(q[0].text.starts_with("Always single-quote"), "{q:?}");
        assert!(q[1].text.contains("dir=/root/${name}"), "{q:?}");
        assert!(q[2..].iter().all(|x| x.is_sentence()), "{q:?}");
        // Not a later quote: with no block after it, a lead-in ending in ":" would hang.
        let q = quotes(
            "are constants like null case-insensitive in the shell?",
            &sources,
        );
        assert!(q[0].text.starts_with("Constants"), "{q:?}");
        assert!(
            q.iter().all(|x| !x.text.starts_with("Always single-quote")),
            "{q:?}"
        );
    }

    #[test]
    fn a_quoted_default_goes_on_with_the_way_to_change_it() {
        let sources = vec![src(
            1,
            "You can generate RSS and Atom feeds for the blog by passing feed options. By default, RSS and Atom feeds are generated for the blog. To disable feed generation, set `feedOptions.type` to `null`.",
        )];
        let q = quotes(
            "how to stop the blog from generating rss and atom feeds",
            &sources,
        );
        assert!(
            q.iter().any(|x| x.text
                == "By default, RSS and Atom feeds are generated for the blog. To disable feed generation, set `feedOptions.type` to `null`."),
            "{q:?}"
        );
        assert!(states_default(
            "Collapsible categories are collapsed by default."
        ));
        assert!(!states_default("The default number of items is 5."));
    }

    #[test]
    fn a_later_quote_leaning_forward_has_its_block_after_it() {
        // The second quote ends in ":" (the default and the way to change it): the block it
        // announces follows it.
        let sources = vec![src(
            1,
            "When a category is not collapsible, the category is always rendered expanded in the sidebar.\n\nCollapsible categories are collapsed by default. If you want them expanded on the first render, set `collapsed` to `false`:\n\n```js\nexport default { collapsed: false };\n```",
        )];
        let q = quotes(
            "sidebar category rendered expanded by default, not collapsed",
            &sources,
        );
        let at = q
            .iter()
            .position(|x| x.text.ends_with("set `collapsed` to `false`:"))
            .expect("the default quoted with its change");
        assert_eq!(
            q[at + 1].text,
            "export default { collapsed: false };",
            "{q:?}"
        );
        assert!(at > 0, "{q:?}");
    }

    #[test]
    fn a_goal_said_as_an_order_asks_how_to() {
        for q in [
            "make the app sweep by default without passing -m each time",
            "hide the light/dark toggle",
            "can I run the dev server with https?",
            "I need the feed to list every post",
        ] {
            assert!(asks_how_to(q), "{q}");
        }
        for q in [
            "what is a node?",
            "why does my build fail?",
            "difference between docs and blog",
        ] {
            assert!(!asks_how_to(q), "{q}");
        }
    }

    #[test]
    fn troubleshooting_entry_quotes_its_cause_and_fix() {
        let sources = vec![src(
            1,
            "Symptom: Goal accepted, but no feedback callbacks triggered\n\nCause: Forgot to pass `feedback_callback` to `send_goal_async()`\n\nSolution:\n```python\ngoal_future = client.send_goal_async(goal_msg, feedback_callback=self.feedback_cb)\n```",
        )];
        // The reader describes the symptom, not a task ("how do I …"): the fix is still quoted.
        for embed in [false, true] {
            let qv = [1.0f32, 0.0];
            let e = |_: &str, _: usize| Some(vec![1.0f32, 0.0]);
            let q = choose(
                "my action client never gets any feedback callbacks",
                &sources,
                embed.then_some(&qv[..]),
                embed.then_some(&e as Embed),
                &Style::default(),
                None,
            );
            assert!(
                q[0].text.starts_with("Symptom: Goal accepted, but no feedback callbacks triggered. Cause: Forgot to pass"),
                "{q:?}"
            );
            assert_eq!(q.len(), 2, "{q:?}");
            assert!(q[1].text.contains("feedback_callback=self.feedback_cb"));
        }
        // Outside a troubleshooting entry, a question's answer is not padded with code.
        let plain = vec![src(
            1,
            "Feedback arrives while the goal runs, through the callback you pass.\n\n```python\nx()\n```",
        )];
        let q = quotes("when does action feedback arrive", &plain);
        assert!(q.iter().all(|q| q.code_lang().is_none()), "{q:?}");
    }

    #[test]
    fn troubleshooting_entry_quotes_its_fix_steps() {
        let sources = vec![src(
            1,
            "- Symptom: The Isaac Sim window opens but the viewport is black.\n- Root Cause: An incompatibility between the windowing system and Isaac Sim.\n- Solution: Switch from Wayland to X11.\n  1. Log out of your Ubuntu session.\n  2. Select Ubuntu on Xorg from the menu.",
        )];
        let q = quotes("isaac sim viewport is black", &sources);
        assert!(
            q[0].text.contains("Root Cause: An incompatibility"),
            "{q:?}"
        );
        let steps = q
            .iter()
            .find(|q| q.form == Form::List)
            .expect("the fix's steps");
        assert_eq!(
            steps.intro.as_deref(),
            Some("Solution: Switch from Wayland to X11.")
        );
        assert_eq!(
            steps.text,
            "Log out of your Ubuntu session.\nSelect Ubuntu on Xorg from the menu."
        );
    }

    #[test]
    fn a_short_snippet_naming_the_question_is_quoted_with_the_sentence() {
        let sources = vec![src(
            1,
            "You can enable this UI feature that automatically hides the navbar when a user starts scrolling down the page.\n\n```js\nexport default {\n  themeConfig: {\n    navbar: {\n      hideOnScroll: true,\n    },\n  },\n};\n```",
        )];
        let q = quotes("navbar that hides when scrolling down", &sources);
        assert_eq!(q.len(), 2, "{q:?}");
        assert!(q[1].text.contains("hideOnScroll: true"), "{q:?}");
        // The error the reader pasted is not its answer.
        let error = vec![src(
            1,
            "Docusaurus guards your config from unknown fields, which you can declare under customFields.\n\n```text\nError: The field(s) 'foo' are not recognized in docusaurus.config.js\n```",
        )];
        let q = quotes(
            "Error: The field(s) 'foo' are not recognized in docusaurus.config.js",
            &error,
        );
        assert!(q.iter().all(|q| q.code_lang().is_none()), "{q:?}");
    }

    #[test]
    fn a_sentence_two_sections_share_is_quoted_once() {
        let sources = vec![
            src(1, "We recommend using ColorBox to find the shades of your primary color."),
            src(2, "We recommend using ColorBox to find the shades of your primary color.\n\nThe primary color is set with the --ifm-color-primary variable."),
        ];
        let q = quotes("change the primary color", &sources);
        let texts: Vec<&str> = q.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(
            texts.iter().filter(|t| t.contains("ColorBox")).count(),
            1,
            "{texts:?}"
        );
        assert!(
            texts.iter().any(|t| t.contains("--ifm-color-primary")),
            "{texts:?}"
        );
    }

    #[test]
    fn command_only_section_is_quoted() {
        let sources = vec![src(1, "```bash\nsudo apt install ros-humble-desktop\n```")];
        let q = quotes("ROS desktop packages", &sources);
        assert_eq!(q.len(), 1);
        assert_eq!(q[0].code_lang(), Some("bash"));
    }

    #[test]
    fn unrelated_sentences_are_not_added() {
        let sources = vec![
            src(
                1,
                "A URDF file describes the links and joints of a robot in XML.",
            ),
            src(
                2,
                "The world file lists the models and lights of a simulated scene.",
            ),
            src(
                3,
                "If the launch fails with an error, check the package path.",
            ),
        ];
        let q = quotes("What is a URDF file?", &sources);
        assert_eq!(q.len(), 1, "{q:?}");
    }

    #[test]
    fn meaning_picks_the_paraphrase() {
        let sources = vec![src(
            1,
            "The robot has many parts to learn about. Balance is kept by reading the inertial sensor in the torso.",
        )];
        let embed = |s: &str, _: usize| -> Option<Vec<f32>> {
            Some(if s.contains("inertial") {
                vec![1.0, 0.0]
            } else {
                vec![0.0, 1.0]
            })
        };
        let q = choose(
            "which sensors keep a humanoid upright",
            &sources,
            Some(&[1.0, 0.0]),
            Some(&embed),
            &Style::default(),
            None,
        );
        assert!(q[0].text.contains("inertial"), "{q:?}");
    }

    #[test]
    fn quoted_text_cannot_inject_markup() {
        let sources = vec![src(
            1,
            "The robot <img src=x onerror=alert(1)> moves its arm [9] quickly.",
        )];
        let q = quotes("robot arm", &sources);
        let md = render(&q, |s| s + 1, true, "", &Words::default());
        assert!(md.contains("\\<img"), "{md}");
        assert!(md.contains("\\[9\\]"));
    }

    #[test]
    fn code_fence_is_longer_than_backticks_inside() {
        let q = Quote {
            source: 0,
            text: "echo ```".into(),
            matched_as_sentence: false,
            form: Form::Code {
                lang: String::new(),
            },
            intro: None,
            score: 1.0,
        };
        assert!(render(&[q], |_| 1, true, "", &Words::default()).contains("````\necho ```\n````"));
    }

    #[test]
    fn quoted_inline_code_stays_code() {
        let quote = |text: &str, form: Form| Quote {
            source: 0,
            text: text.into(),
            matched_as_sentence: form == Form::Sentence,
            form,
            intro: None,
            score: 1.0,
        };
        let md = |q: Quote| render(&[q], |_| 1, true, "", &Words::default());
        // As the book shows it: code, not backticks and backslashes.
        assert!(md(quote(
            "Cause: Forgot to pass `feedback_callback` to `send_goal_async()`",
            Form::Sentence
        ))
        .contains("“Cause: Forgot to pass `feedback_callback` to `send_goal_async()`”"));
        // Prose around it is still shown literally; unbalanced backticks are text.
        assert!(md(quote("Use *stars* and `a_b`.", Form::Sentence))
            .contains("Use \\*stars\\* and `a_b`."));
        assert!(md(quote("An odd ` backtick_here.", Form::Sentence))
            .contains("An odd \\` backtick\\_here."));
        // A bar in code needs escaping in a table cell only.
        assert!(md(quote("Run `a | b` now, please.", Form::List))
            .contains("- Run `a | b` now, please."));
        assert!(
            md(quote("Op\tMeaning\n`a | b`\tpipe", Form::Table)).contains("| `a \\| b` | pipe |")
        );
    }

    #[test]
    fn table_rows_wider_than_the_header_keep_their_cells() {
        let q = Quote {
            source: 0,
            text: "Name\tDescription\n`no-html-links`\tEnsures Link is used\t✅".into(),
            matched_as_sentence: false,
            form: Form::Table,
            intro: None,
            score: 1.0,
        };
        let md = render(&[q], |_| 1, true, "", &Words::default());
        assert!(
            md.contains("| Name | Description |  |\n| --- | --- | --- |\n"),
            "{md}"
        );
        assert!(
            md.contains("| `no-html-links` | Ensures Link is used | ✅ |"),
            "{md}"
        );
    }

    #[test]
    fn nothing_to_quote() {
        assert!(quotes("x", &[]).is_empty());
    }
}

/// Whatever the sections hold (prose, tables, lists, fences, headings, stray pipes), the excerpt
/// answer is well formed: every quote cites a listed source and says something, tables keep their
/// header, and rendering never fails.
#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            "[A-Za-z ,.:]{0,60}",
            "(- |\\* |1\\. |> )[A-Za-z ,.:`$]{0,40}",
            "[A-Za-z`| ]{0,20}( \\| [A-Za-z`]{0,12}){1,4}",
            "\\|[ a-z|:-]{0,20}\\|",
            "(```|~~~)[a-z]{0,6}",
            "#{1,4} [A-Za-z ]{0,20}",
            Just(String::new()),
        ]
    }

    fn section() -> impl Strategy<Value = String> {
        prop::collection::vec(line(), 0..14).prop_map(|l| l.join("\n"))
    }

    /// One source a text, ranked in order; the first in a chapter named `first_chapter` (the
    /// others in "C").
    fn sources_of(texts: &[String], first_chapter: &str) -> Vec<Source> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| Source {
                chunk: i as u32,
                chapter: if i == 0 {
                    first_chapter.into()
                } else {
                    "C".into()
                },
                section: None,
                parent: None,
                url: format!("/c#{i}"),
                text: t.clone(),
                score: 1.0,
                subsections: Vec::new(),
            })
            .collect()
    }

    proptest! {
        #[test]
        fn quotes_are_well_formed(
            texts in prop::collection::vec(section(), 1..4),
            question in "(how do I |what is |which )?[a-z ]{0,30}",
            sentences in 1usize..6,
        ) {
            let sources = sources_of(&texts, "Chapter 1 Quiz");
            let style = Style { sentences, ..Style::default() };
            let quotes = choose(&question, &sources, None, None, &style, None);
            for q in &quotes {
                prop_assert!(q.source < sources.len(), "{q:?}");
                prop_assert!(!q.text.trim().is_empty(), "{q:?}");
                if q.form == Form::Table {
                    let rows: Vec<&str> = q.text.lines().collect();
                    prop_assert!(rows.len() >= 2 && rows.len() <= 1 + MAX_TABLE_ROWS, "{q:?}");
                }
                if q.form == Form::List {
                    prop_assert!(q.text.lines().count() <= MAX_LIST_ITEMS, "{q:?}");
                }
            }
            let md = render(&quotes, |s| s + 1, true, "", &Words::default());
            prop_assert!(md.starts_with(crate::words::EXCERPT_LABEL));
            for q in &quotes {
                let cite = format!("[{}]", q.source + 1);
                prop_assert!(md.contains(&cite), "{md}");
            }
        }

        #[test]
        fn a_selection_is_never_quoted_back(
            texts in prop::collection::vec(section(), 1..4),
            question in "(why|explain this|what does this mean|how do I [a-z ]{0,20})",
            (from, len) in (0usize..400, 1usize..400),
            pick in 0usize..4,
        ) {
            // Any stretch of a section's text, as the reader's selection.
            let text = &texts[pick % texts.len()];
            let chars: Vec<char> = text.chars().collect();
            let from = from.min(chars.len());
            let selection: String = chars[from..(from + len).min(chars.len())].iter().collect();
            let sources = sources_of(&texts, "C");
            let query = format!("{question} {selection}");
            let selected =
                AlreadyRead::of(&question, crate::followup::Leaning::of(&question, Some(&selection), &[]));
            let quotes = choose(&query, &sources, None, None, &Style::default(), selected.as_ref());
            if let Some(selected) = &selected {
                for q in &quotes {
                    prop_assert!(!selected.has_read(&q.text), "{q:?} quoted from {selection:?}");
                }
            }
        }
    }
}

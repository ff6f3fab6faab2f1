//! Follow-up questions offered under an answer: drawn from sections related to it (the next step
//! in the chapter, other sections the search found, the next page) and phrased as a reader would
//! ask them. Each names a real section of the book, so the book can answer it; headings that name a
//! kind of section ("Summary") or cannot be phrased as a question are skipped, never pasted into a
//! template.

use serde::Serialize;

/// How a related section relates to the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// The section after the answer's in the same page: the next step.
    Next,
    /// Another section the search found but the answer did not quote.
    Found,
    /// The first section of the next page.
    NextPage,
    /// The section before the answer's.
    Previous,
}

/// A section next to the answer, a source of follow-up questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    /// Chapter (page title).
    pub chapter: String,
    /// Section heading; `None` for the page top.
    pub section: Option<String>,
    /// Site URL of the section.
    pub url: String,
    /// How it relates to the answer.
    pub relation: Relation,
}

/// Follow-ups offered at most.
pub const MAX_SUGGESTIONS: usize = 3;

/// Headings that name a kind of section, not a topic.
const GENERIC_HEADINGS: &[&str] = &[
    "summary",
    "introduction",
    "intro",
    "overview",
    "conclusion",
    "conclusions",
    "exercises",
    "exercise",
    "next steps",
    "what's next",
    "whats next",
    "further reading",
    "references",
    "prerequisites",
    "key takeaways",
    "takeaways",
    "recap",
    "review questions",
    "learning objectives",
    "learning outcomes",
    "objectives",
    "resources",
    "see also",
    "faq",
    "troubleshooting",
    "getting started",
    "background",
    "notes",
    "note",
    "example",
    "examples",
    "usage",
    "quiz",
    "assessment",
    "lab",
    "table of contents",
    "contents",
    "appendix",
    "glossary",
    "readme",
    "what you will learn",
    "what you'll learn",
    "before you begin",
    "requirements",
    "setup",
];

/// Verbs that open task headings ("Install ROS 2", "Creating a node").
const VERBS: &[&str] = &[
    "access",
    "add",
    "avoid",
    "balance",
    "bridge",
    "build",
    "calibrate",
    "call",
    "capture",
    "change",
    "check",
    "choose",
    "collect",
    "compare",
    "compute",
    "configure",
    "connect",
    "control",
    "convert",
    "create",
    "customize",
    "debug",
    "define",
    "deploy",
    "describe",
    "design",
    "detect",
    "display",
    "document",
    "download",
    "edit",
    "enable",
    "estimate",
    "evaluate",
    "export",
    "extend",
    "fetch",
    "filter",
    "fix",
    "generate",
    "handle",
    "host",
    "implement",
    "import",
    "inspect",
    "install",
    "integrate",
    "launch",
    "link",
    "load",
    "log",
    "manage",
    "map",
    "measure",
    "migrate",
    "monitor",
    "move",
    "navigate",
    "open",
    "optimize",
    "organize",
    "pick",
    "plan",
    "process",
    "publish",
    "read",
    "record",
    "register",
    "render",
    "re-run",
    "rerun",
    "run",
    "search",
    "select",
    "send",
    "serve",
    "set",
    "simulate",
    "spawn",
    "start",
    "stream",
    "structure",
    "style",
    "subscribe",
    "swizzle",
    "test",
    "track",
    "train",
    "transform",
    "translate",
    "tune",
    "update",
    "upgrade",
    "upload",
    "use",
    "verify",
    "visualize",
    "write",
];

/// Words that make a heading a statement addressed to the reader ("Software you will need"):
/// such headings read badly inside a question, so they are skipped.
const ADDRESS_WORDS: &[&str] = &[
    "you", "your", "you'll", "we", "we'll", "our", "i", "my", "will", "should", "must", "let's",
    "this", "these", "here",
];

/// Words that label a numbered part of a book (`Step 3:`, `Lab 2 -`): the label is dropped.
const LABELS: &[&str] = &[
    "step", "part", "lab", "module", "chapter", "lesson", "week", "section",
];

/// More labels dropped from follow-ups (`Question 2:`, `Error 1:`); a heading that is nothing but a
/// label ("Question 7") names no topic a reader would ask about.
const READER_LABELS: &[&str] = &[
    "question",
    "exercise",
    "problem",
    "task",
    "challenge",
    "error",
    "issue",
    "example",
    "case",
    "tip",
    "day",
    "phase",
    "scenario",
    "option",
    "method",
    "approach",
    "stage",
    "level",
    "tier",
    "demo",
];

/// Last words that make a heading name a kind of section ("Key Concepts Summary", "Additional
/// Resources", "🙏 Acknowledgments"): a reader does not ask about it.
const GENERIC_LAST_WORDS: &[&str] = &[
    "summary",
    "overview",
    "recap",
    "introduction",
    "conclusion",
    "conclusions",
    "resources",
    "acknowledgments",
    "acknowledgements",
    "credits",
    "output",
    "takeaways",
    "prerequisites",
    "notes",
    "scenario",
    "problems",
    "solutions",
    "issues",
    "tips",
    "steps",
    "questions",
    "answers",
    "results",
    "observations",
    "highlights",
    "goals",
    "diagram",
    "diagrams",
    "figure",
    "figures",
    "screenshot",
    "screenshots",
];

/// Words that cannot open a heading a reader asks about ("For Publishers:", "From Language to
/// Action", "With Docker"): the heading qualifies its section rather than names a topic.
const OPENING_PARTICLES: &[&str] = &[
    "for", "with", "without", "in", "on", "from", "to", "about", "and", "or", "if", "by", "at",
    "as", "into", "after", "during", "via", "beyond",
];

/// Headings that name a part of a worked pattern or reference page ("Problem", "Solution"),
/// skipped as follow-ups.
const READER_GENERIC: &[&str] = &[
    "problem",
    "solution",
    "discussion",
    "motivation",
    "api",
    "details",
    "code example",
    "example usage",
    "how it works",
    "installation",
    "benefits",
    "advantages",
    "disadvantages",
    "limitations",
    "caveats",
    "features",
    "options",
    "configuration",
];

/// Last words that make a heading a document to be shown ("Dual-Boot Guide"): asked for like an
/// example.
const SHOWN_LAST_WORDS: &[&str] = &[
    "guide",
    "tutorial",
    "walkthrough",
    "checklist",
    "cheatsheet",
];

/// Nouns that, after a verb of [`NOUN_MODIFIERS`], make the heading a thing ("Launch File",
/// "Control Loop", "Build Tools") rather than a task.
const THING_NOUNS: &[&str] = &[
    "file",
    "files",
    "server",
    "servers",
    "loop",
    "loops",
    "rate",
    "rates",
    "tool",
    "tools",
    "system",
    "systems",
    "model",
    "models",
    "pipeline",
    "pipelines",
    "description",
    "descriptions",
    "argument",
    "arguments",
    "frame",
    "frames",
    "suite",
    "script",
    "scripts",
    "message",
    "messages",
    "configuration",
    "type",
    "types",
    "output",
    "format",
    "formats",
    "policy",
    "policies",
];

/// Words that make a section an assessment (a quiz, exercises): its questions test the reader,
/// the book does not answer them there.
const ASSESSMENT_WORDS: &[&str] = &["quiz", "quizzes", "exercise", "exercises", "homework"];

/// Words that make a heading a problem report ("Colcon build fails …", "setup.bash not found");
/// nouns such as "error" are left out: "Error Handling" is a topic.
const TROUBLE_WORDS: &[&str] = &[
    "fail",
    "fails",
    "failed",
    "failing",
    "crashes",
    "crashing",
    "crashed",
    "broken",
    "freezes",
    "hangs",
    "denied",
    "cannot",
    "can't",
    "won't",
    "doesn't",
    "isn't",
    "slower",
    "lagging",
    "stuck",
    "unresponsive",
    "overheating",
];

/// Verbs that, before a single plural noun, name a kind of thing ("Launch Files", "Build Tools")
/// rather than a task ("Install Dependencies").
const NOUN_MODIFIERS: &[&str] = &[
    "launch",
    "build",
    "log",
    "map",
    "test",
    "record",
    "control",
    "plan",
    "search",
    "track",
    "stream",
    "transform",
    "style",
    "process",
    "display",
    "filter",
    "link",
    "set",
    "update",
];

/// Whether `h` is only labels and their numbers or ranges ("Question 7", "Step 2", "Weeks 4-6",
/// "Module 1, Chapter 1, Page 3b").
fn only_label(h: &str) -> bool {
    let label = |w: &str| LABELS.contains(&w) || READER_LABELS.contains(&w) || w == "page";
    h.split(',').all(|part| {
        let words: Vec<String> = part.split_whitespace().map(str::to_lowercase).collect();
        words.len() == 2
            && (label(&words[0]) || words[0].strip_suffix('s').is_some_and(label))
            && words[1]
                .trim_end_matches(['.', ':'])
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '–' | '&'))
            && words[1].chars().any(|c| c.is_ascii_digit())
    })
}

/// Words that open a heading phrased as a question ("How discovery works", "What Not to Do").
const QUESTION_WORDS: &[&str] = &["how", "what", "why", "when", "where", "which", "who"];

/// Words that name the book's own parts; a heading opening with one and no number ("Chapter
/// Structure", "Course Overview", "Module Roadmap") is about how the book is organised, not a
/// topic a reader asks about.
const BOOK_PARTS: &[&str] = &[
    "book", "course", "chapter", "module", "lesson", "week", "weekly", "syllabus",
];

/// Particles of phrasal verbs ("Set Up Isaac SDK" → "set up Isaac SDK").
const PARTICLES: &[&str] = &["up", "out", "off", "down", "in", "on", "over", "back"];

/// A heading as a follow-up names it: without leading symbols ("🙏 Acknowledgments", "✅ Done") and
/// without a trailing parenthesis ("Isaac Sim (Ubuntu 22.04 or Windows)" → "Isaac Sim"), which
/// qualifies the section rather than names its topic.
fn reader_heading(h: &str) -> String {
    let t = h.trim_start_matches(|c: char| !c.is_alphanumeric() && !"\"“'`(".contains(c));
    let t = t.trim();
    match t
        .strip_suffix(')')
        .and_then(|x| x.rfind(" (").map(|i| &t[..i]))
    {
        Some(head) if head.split_whitespace().count() >= 1 => head.trim().to_string(),
        _ => t.to_string(),
    }
}

/// Drops `2.1.3.`, `1.`, `Step 3:`, `Lab 2 -` style numbering from a heading (with `reader`, also
/// `Question 2:` style labels).
fn clean_heading(h: &str, reader: bool) -> String {
    let mut t = h.trim();
    let n = t
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.' || *c == ')')
        .last()
        .map_or(0, |(i, c)| i + c.len_utf8());
    // Numbering is digits with a dot or parenthesis, then a space ("2.1.3. ", "1) ", "2.1 "): the
    // 3 of "3D reconstruction" and the year of "2026 Hardware" stay.
    let numbering = n > 0 && t[..n].contains(['.', ')']) && t[n..].starts_with(char::is_whitespace);
    if numbering {
        t = t[n..].trim_start();
    }
    let extra: &[&str] = if reader { READER_LABELS } else { &[] };
    for lead in LABELS.iter().chain(extra) {
        let lower = t.to_ascii_lowercase();
        if let Some(rest) = lower.strip_prefix(lead) {
            let rest = rest.trim_start();
            let digits = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .count();
            let after = rest[digits..].trim_start();
            if (1..=3).contains(&digits) && after.starts_with([':', '-', '–', '.']) {
                // `to_ascii_lowercase` keeps byte offsets, so `after` indexes `t` from the end.
                let sep = after.chars().next().map_or(1, char::len_utf8);
                let cut = t.len() - after.len() + sep;
                t = t[cut..].trim_start();
            }
        }
    }
    t.trim_end_matches([':', '.', ' ']).to_string()
}

/// The base form of a gerund ("creating" → "create") when it is a known task verb.
fn base_verb(word: &str) -> Option<&'static str> {
    if let Some(v) = VERBS.iter().find(|v| **v == word) {
        return Some(*v);
    }
    let stem = word.strip_suffix("ing")?;
    let undoubled = stem.len().checked_sub(1).and_then(|i| {
        (stem.as_bytes().get(i) == stem.as_bytes().get(i.checked_sub(1)?)).then(|| &stem[..i])
    });
    VERBS
        .iter()
        .copied()
        .find(|v| *v == stem || v.strip_suffix('e') == Some(stem) || Some(*v) == undoubled)
}

/// Lowercases a leading article ("The layers" → "the layers"); other words may be names.
fn lower_first(s: &str) -> String {
    let first = s.split_whitespace().next().unwrap_or("");
    if ["The", "A", "An"].contains(&first) {
        lower_initial(s)
    } else {
        s.to_string()
    }
}

/// `s` with its first character lowercased.
fn lower_initial(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_lowercase().chain(c).collect(),
        None => String::new(),
    }
}

/// The follow-up-only rules: `Some(None)` skips the heading, `Some(Some(q))` is the question,
/// `None` leaves it to the plain phrasing.
fn reader_phrase(h: &str, lower_words: &[String]) -> Option<Option<String>> {
    if lower_words
        .iter()
        .any(|w| ASSESSMENT_WORDS.contains(&w.as_str()))
    {
        return Some(None);
    }
    if h.ends_with('?') {
        return Some(Some(h.to_string()));
    }
    // An error message as the heading ("\"Launch file not found\"") or a problem report.
    let quoted =
        h.starts_with(['"', '“', '`']) && h.trim_end_matches(')').contains(['"', '”', '`']);
    if quoted {
        return Some(Some(format!("How do I fix {h}?")));
    }
    // "NVIDIA Driver Not Detected After Ubuntu Install": "not" after the first word states a
    // problem ("What Not to Do" opens with a question word and is left to the plain phrasing).
    let opens_question = lower_words
        .first()
        .is_some_and(|w| QUESTION_WORDS.contains(&w.as_str()));
    let trouble = lower_words
        .iter()
        .any(|w| TROUBLE_WORDS.contains(&w.as_str()))
        || (!opens_question && lower_words.iter().skip(1).any(|w| w == "not"));
    trouble.then(|| Some(format!("What should I do when {}?", lower_first(h))))
}

/// "Can you show the Dual-Boot Guide?"; a heading with its own article keeps it ("A humanoid
/// example" → "Can you show a humanoid example?").
fn show(h: &str) -> String {
    let first = h.split_whitespace().next().unwrap_or("").to_lowercase();
    if ["a", "an", "the"].contains(&first.as_str()) {
        format!("Can you show {}?", lower_initial(h))
    } else {
        format!("Can you show the {}?", lower_first_word(h))
    }
}

/// Lowercases the first word unless it looks like a name (all capitals, inner capitals, digits).
fn lower_first_word(s: &str) -> String {
    let first = s.split_whitespace().next().unwrap_or("");
    let plain = first.chars().skip(1).all(|c| c.is_lowercase());
    if plain {
        lower_initial(s)
    } else {
        s.to_string()
    }
}

/// A heading phrased plainly as a question the section answers, or `None` when it cannot be. The
/// refusal calibration makes a book's self-questions with it (its thresholds were fitted on this
/// phrasing); follow-ups use [`follow_up`].
pub fn as_question(heading: &str) -> Option<String> {
    phrase(heading, false)
}

/// A heading phrased as a follow-up a reader would click, or `None`: as [`as_question`], and also
/// never a bare label ("Question 7") or an assessment ("Chapter 11 Quiz"); error messages and
/// problem reports become "How do I fix …?" / "What should I do when …?"; "Launch Files" names a
/// kind of thing, not a task; an example is asked for.
pub fn follow_up(heading: &str) -> Option<String> {
    phrase(heading, true)
}

fn phrase(heading: &str, reader: bool) -> Option<String> {
    let h = if reader {
        clean_heading(&reader_heading(heading), reader)
    } else {
        clean_heading(heading, reader)
    };
    // "Services: request and response" → "Services": the part before a colon names the topic.
    let h = match h.split_once(": ") {
        Some((head, _)) if head.split_whitespace().count() >= 1 && head.len() >= 3 => {
            head.trim().to_string()
        }
        _ => h,
    };
    // "Isaac SDK Setup - Required Assets" → the head; "Python Agent Reasons — Planning the
    // Motion" → the tail, when it is a task.
    let h = match [" — ", " – ", " - "].iter().find_map(|d| h.split_once(d)) {
        Some((head, tail)) if reader && !head.trim().is_empty() && !tail.trim().is_empty() => {
            let tail_word = tail.split_whitespace().next().unwrap_or("").to_lowercase();
            if base_verb(&tail_word).is_some() {
                tail.trim().to_string()
            } else {
                head.trim().to_string()
            }
        }
        _ => h,
    };
    let words: Vec<&str> = h.split_whitespace().collect();
    if words.is_empty() || words.len() > 9 || h.chars().filter(|c| c.is_alphabetic()).count() < 3 {
        return None;
    }
    let lower = h.to_lowercase();
    if GENERIC_HEADINGS.contains(&lower.as_str()) || (reader && only_label(&h)) {
        return None;
    }
    let lower_words: Vec<String> = words
        .iter()
        .map(|w| {
            w.to_lowercase()
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_string()
        })
        .collect();
    if reader {
        if let Some(q) = reader_phrase(&h, &lower_words) {
            return q;
        }
        let last = lower_words[lower_words.len() - 1].as_str();
        let about_the_book = BOOK_PARTS.contains(&lower_words[0].as_str())
            && !lower_words
                .get(1)
                .is_some_and(|w| w.chars().any(|c| c.is_ascii_digit()));
        if about_the_book
            || OPENING_PARTICLES.contains(&lower_words[0].as_str())
            || GENERIC_LAST_WORDS.contains(&last)
            || lower_words[0] == "welcome"
            || READER_GENERIC.contains(&lower.as_str())
        {
            return None;
        }
        if SHOWN_LAST_WORDS.contains(&last) && !h.ends_with('?') {
            return Some(show(&h));
        }
    }
    if h.ends_with('?') {
        return Some(h);
    }
    let first = lower_words[0].as_str();
    if QUESTION_WORDS.contains(&first) {
        // "How to deploy" reads as a question; "How discovery works" does not.
        return match lower_words.get(1).map(String::as_str) {
            Some("to") if words.len() > 2 => base_verb(&lower_words[2])
                .map(|v| format!("How do I {v} {}?", words[3..].join(" "))),
            Some("do" | "does" | "is" | "are" | "can" | "should") => Some(format!("{h}?")),
            _ => None,
        };
    }
    if lower_words
        .iter()
        .any(|w| ADDRESS_WORDS.contains(&w.as_str()))
    {
        return None;
    }
    // "Launch File", "Control Loop with Feedback": a verb that names a kind of thing.
    let thing = reader
        && NOUN_MODIFIERS.contains(&first)
        && lower_words
            .get(1)
            .is_some_and(|w| THING_NOUNS.contains(&w.as_str()));
    if let Some(verb) = base_verb(first).filter(|_| !thing) {
        let rest = words[1..].join(" ");
        // "Build and Run": the task's object is missing.
        if rest.is_empty() || (reader && ["and", "or", "&"].contains(&lower_words[1].as_str())) {
            return None;
        }
        let kind_of_thing = reader
            && words.len() == 2
            && NOUN_MODIFIERS.contains(&first)
            && lower_words[1].ends_with('s')
            && words[1].chars().next().is_some_and(char::is_uppercase);
        if kind_of_thing {
            return Some(format!("What are {h}?"));
        }
        let rest = match words.get(1) {
            Some(w) if reader && PARTICLES.contains(&lower_words[1].as_str()) => {
                format!("{}{}", lower_words[1], &rest[w.len()..])
            }
            _ => rest,
        };
        return Some(format!("How do I {verb} {}?", lower_first(&rest)));
    }
    // "Dual-Boot vs Alternatives": a comparison.
    if reader {
        let pos = lower_words
            .iter()
            .position(|w| ["vs", "versus"].contains(&w.as_str()))
            .filter(|&i| i > 0 && i + 1 < words.len());
        if let Some(i) = pos {
            return Some(format!(
                "How does {} compare with {}?",
                lower_first(&words[..i].join(" ")),
                lower_first(&words[i + 1..].join(" "))
            ));
        }
    }
    // "Basic Launch File Example": a reader asks to see it.
    if reader
        && words.len() >= 2
        && matches!(
            lower_words[lower_words.len() - 1].as_str(),
            "example" | "examples"
        )
    {
        return Some(show(&h));
    }
    // "Following Along as a Beginner": a task whose verb the list does not know cannot be asked as
    // "What is …?"; it is skipped.
    if reader && words.len() >= 2 && first.len() > 5 && first.ends_with("ing") {
        return None;
    }
    // The head noun: the last word, or the word before "of"/"for"/"in"/"with" ("Layers of ROS 2").
    let head = lower_words
        .iter()
        .position(|w| ["of", "for", "in", "with", "on", "from"].contains(&w.as_str()))
        .filter(|&i| i > 0)
        .map_or(lower_words.len() - 1, |i| i - 1);
    let noun = lower_words[head].as_str();
    // "APIs", "GPUs": capitals and a plural s.
    let original = words[head].trim_matches(|c: char| !c.is_alphanumeric());
    let acronyms = reader
        && original.len() >= 3
        && original.ends_with('s')
        && original[..original.len() - 1]
            .chars()
            .all(|c| c.is_ascii_uppercase());
    let plural = acronyms
        || (noun.len() > 3
            && noun.ends_with('s')
            && !["ss", "us", "is", "os"].iter().any(|e| noun.ends_with(e)))
        || joined(&words, &lower_words, head, reader);
    // "A service server and client": the article says one thing.
    let one = ["a", "an"].contains(&lower_words[0].as_str());
    let verb = if plural && !one { "are" } else { "is" };
    Some(format!("What {verb} {}?", lower_first(&h)))
}

/// Whether the heading names several things joined by "and", "&" or commas ("Names, namespaces and
/// remapping"). For follow-ups (`reader`) only a join up to the head noun counts: "Unity for
/// Human-Robot Interaction and Rendering" is one thing.
fn joined(words: &[&str], lower_words: &[String], head: usize, reader: bool) -> bool {
    let upto = if reader { head + 1 } else { words.len() };
    lower_words[..upto.min(lower_words.len())]
        .iter()
        .any(|w| w == "and")
        || words[..upto.min(words.len())]
            .iter()
            .any(|w| w.contains(',') || (reader && *w == "&"))
}

/// Up to [`MAX_SUGGESTIONS`] follow-ups from `related` (in the caller's order of preference), none
/// repeating the question or a section the answer already quotes (`quoted_urls`).
pub fn suggestions(question: &str, related: &[Related], quoted_urls: &[&str]) -> Vec<String> {
    let asked = question.trim().trim_end_matches('?').to_lowercase();
    // "What are VLA Models?" after "what is a VLA model": no term the reader did not ask.
    let asked_terms = crate::text::terms(question);
    let only_asked = |q: &str| {
        crate::text::terms(q)
            .iter()
            .all(|t| asked_terms.contains(t))
    };
    let mut out: Vec<String> = Vec::new();
    for r in related {
        if out.len() >= MAX_SUGGESTIONS {
            break;
        }
        if quoted_urls.contains(&r.url.as_str()) {
            continue;
        }
        let heading = r.section.as_deref().unwrap_or(&r.chapter);
        let Some(q) = follow_up(heading) else {
            continue;
        };
        let key = q.trim_end_matches('?').to_lowercase();
        // "What is Isaac Sim?" after "What is NVIDIA Isaac Sim?" asks the same thing.
        let topic = |k: &str| {
            let words: Vec<&str> = k.split_whitespace().skip(2).collect();
            format!(" {}", words.join(" "))
        };
        let same = |o: &String| {
            let o = o.trim_end_matches('?').to_lowercase();
            o == key || o.ends_with(&topic(&key)) || key.ends_with(&topic(&o))
        };
        if key == asked || only_asked(&q) || out.iter().any(same) {
            continue;
        }
        out.push(q);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_with_an_unknown_verb_is_not_asked_as_a_thing() {
        assert_eq!(follow_up("Following Along as a Beginner"), None);
        assert_eq!(
            follow_up("Sensor Fusion").as_deref(),
            Some("What is Sensor Fusion?")
        );
        assert_eq!(
            follow_up("Installing ROS 2").as_deref(),
            Some("How do I install ROS 2?")
        );
    }

    #[test]
    fn headings_become_questions() {
        assert_eq!(
            as_question("2.1.3. Whole-Body Control").as_deref(),
            Some("What is Whole-Body Control?")
        );
        assert_eq!(
            as_question("Installing ROS 2").as_deref(),
            Some("How do I install ROS 2?")
        );
        assert_eq!(
            as_question("Creating a Launch File").as_deref(),
            Some("How do I create a Launch File?")
        );
        assert_eq!(
            as_question("Services: request and response").as_deref(),
            Some("What are Services?")
        );
        assert_eq!(
            as_question("The layers of ROS 2").as_deref(),
            Some("What are the layers of ROS 2?")
        );
        assert_eq!(
            as_question("Names, namespaces and remapping").as_deref(),
            Some("What are Names, namespaces and remapping?")
        );
        assert_eq!(as_question("How discovery works"), None);
        assert_eq!(as_question("Conventions used in this book"), None);
        assert_eq!(
            as_question("How to deploy a site").as_deref(),
            Some("How do I deploy a site?")
        );
        assert_eq!(
            as_question("Step 3: Run the simulation").as_deref(),
            Some("How do I run the simulation?")
        );
        assert_eq!(
            as_question("URDF Joints").as_deref(),
            Some("What are URDF Joints?")
        );
        assert_eq!(
            as_question("Why simulate first?").as_deref(),
            Some("Why simulate first?")
        );
        assert_eq!(as_question("Summary"), None);
        assert_eq!(follow_up("Question 7"), None);
        assert_eq!(
            follow_up("Question 2: Physics Engine Characteristics").as_deref(),
            Some("What are Physics Engine Characteristics?")
        );
        assert_eq!(
            follow_up("Chapter 11 Quiz - Voice-to-Action Pipeline"),
            None
        );
        assert_eq!(
            follow_up("2. \"Launch file not found\"").as_deref(),
            Some("How do I fix \"Launch file not found\"?")
        );
        assert_eq!(
            follow_up("Error 1: \"Failed to parse URDF file\"").as_deref(),
            Some("How do I fix \"Failed to parse URDF file\"?")
        );
        assert_eq!(
            follow_up("8. Colcon build fails with missing dependencies").as_deref(),
            Some("What should I do when Colcon build fails with missing dependencies?")
        );
        assert_eq!(
            follow_up("79. setup.bash not found after ROS 2 install").as_deref(),
            Some("What should I do when setup.bash not found after ROS 2 install?")
        );
        assert_eq!(
            follow_up("Error Handling").as_deref(),
            Some("What is Error Handling?")
        );
        assert_eq!(
            follow_up("Launch Files").as_deref(),
            Some("What are Launch Files?")
        );
        assert_eq!(
            follow_up("Install Dependencies").as_deref(),
            Some("How do I install Dependencies?")
        );
        assert_eq!(
            follow_up("Basic Launch File Example").as_deref(),
            Some("Can you show the basic Launch File Example?")
        );
        assert_eq!(as_question("Software and hardware you will need"), None);
        assert_eq!(as_question("1.2."), None);
        // The plain phrasing (the refusal calibration's self-questions) keeps its old form.
        assert_eq!(
            as_question("Question 7").as_deref(),
            Some("What is Question 7?")
        );
    }

    #[test]
    fn follow_ups_read_as_a_reader_would_ask() {
        let cases: &[(&str, Option<&str>)] = &[
            (
                "Isaac Sim (Ubuntu 22.04 or Windows)",
                Some("What is Isaac Sim?"),
            ),
            ("Sensor Tests (via ROS 2)", Some("What are Sensor Tests?")),
            ("🙏 Acknowledgments", None),
            ("Key Concepts Summary", None),
            ("Common Resources", None),
            ("Sample Output", None),
            ("Welcome to Physical AI & Humanoid Robotics", None),
            ("Weeks 4-6", None),
            ("Scenario 2", None),
            ("Build and Run", None),
            ("Launch File", Some("What is Launch File?")),
            (
                "Launch File with Parameters",
                Some("What is Launch File with Parameters?"),
            ),
            ("Launch Gazebo", Some("How do I launch Gazebo?")),
            (
                "Step-by-Step Dual-Boot Guide (Windows)",
                Some("Can you show the Step-by-Step Dual-Boot Guide?"),
            ),
            (
                "Dual-Boot vs Alternatives",
                Some("How does Dual-Boot compare with Alternatives?"),
            ),
            (
                "Simulation Runs Slower Than Real-Time (RTF under 1.0)",
                Some("What should I do when Simulation Runs Slower Than Real-Time?"),
            ),
            (
                "Cost & Resource Efficiency",
                Some("What are Cost & Resource Efficiency?"),
            ),
            (
                "Network Configuration for the G1",
                Some("What is Network Configuration for the G1?"),
            ),
            (
                "Isaac SDK Setup - Required Assets",
                Some("What is Isaac SDK Setup?"),
            ),
            ("Problem", None),
            (
                "Unity for Human-Robot Interaction and Rendering",
                Some("What is Unity for Human-Robot Interaction and Rendering?"),
            ),
            (
                "Physics Engines, Time Steps and Contact",
                Some("What are Physics Engines, Time Steps and Contact?"),
            ),
            ("Module 1, Chapter 1, Page 3b", None),
            ("Important Notes", None),
            ("Set Up Isaac SDK", Some("How do I set up Isaac SDK?")),
            ("APIs", Some("What are APIs?")),
            (
                "The Grounding Problem",
                Some("What is the Grounding Problem?"),
            ),
            (
                "Re-run a job from previous config",
                Some("How do I re-run a job from previous config?"),
            ),
            (
                "Python Agent Reasons — Planning the Motion",
                Some("How do I plan the Motion?"),
            ),
        ];
        for (heading, want) in cases {
            assert_eq!(follow_up(heading).as_deref(), *want, "{heading}");
        }
        // The plain phrasing (the refusal calibration's self-questions) is unchanged.
        assert_eq!(
            as_question("Isaac Sim (Ubuntu 22.04 or Windows)").as_deref(),
            Some("What are Isaac Sim (Ubuntu 22.04 or Windows)?")
        );
    }

    /// A section the search found, as follow-ups are drawn from.
    fn found(section: &str, url: &str) -> Related {
        Related {
            chapter: "Book".into(),
            section: Some(section.into()),
            url: url.into(),
            relation: Relation::Found,
        }
    }

    #[test]
    fn suggestions_skip_quoted_repeated_and_generic() {
        let r = found;
        let related = vec![
            r("Nodes", "/n"),
            r("Summary", "/s"),
            r("Topics", "/t"),
            r("Topics", "/t2"),
            r("Services", "/sv"),
            r("Actions", "/a"),
        ];
        let s = suggestions("What are topics?", &related, &["/n"]);
        assert_eq!(s, ["What are Services?", "What are Actions?"]);
        let related = vec![
            r("NVIDIA Isaac Sim", "/i"),
            r("Isaac Sim (Ubuntu 22.04)", "/u"),
            r("Sim", "/s"),
            r("Isaac Lab", "/l"),
        ];
        assert_eq!(
            suggestions("Which GPU?", &related, &[]),
            ["What is NVIDIA Isaac Sim?", "What is Isaac Lab?"]
        );
        for q in &s {
            assert!(q.ends_with('?'));
        }
    }

    #[test]
    fn suggestions_never_ask_the_question_again_or_about_the_book() {
        let r = found;
        let related = vec![
            r("VLA Models", "/m"),
            r("Chapter Structure", "/c"),
            r("Course Overview", "/o"),
            r("OpenVLA Architecture", "/a"),
        ];
        assert_eq!(
            suggestions("what is a VLA model", &related, &[]),
            ["What is OpenVLA Architecture?"]
        );
    }

    #[test]
    fn headings_that_qualify_or_name_a_part_are_not_asked() {
        for h in [
            "For Publishers:",
            "From Language to Action",
            "The Scenario",
            "Specific Solutions",
            "Data Flow Diagram",
            "Isaac Sim Issues",
        ] {
            assert_eq!(follow_up(h), None, "{h}");
        }
        assert_eq!(
            follow_up("Context Windows and Continuous Learning").as_deref(),
            Some("What are Context Windows and Continuous Learning?")
        );
    }

    #[test]
    fn articles_and_leading_numbers_read_right() {
        assert_eq!(
            follow_up("3D reconstruction with nvblox").as_deref(),
            Some("What is 3D reconstruction with nvblox?")
        );
        assert_eq!(
            follow_up("A humanoid example").as_deref(),
            Some("Can you show a humanoid example?")
        );
        assert_eq!(
            follow_up("A service server and client").as_deref(),
            Some("What is a service server and client?")
        );
        assert_eq!(
            follow_up("2.1 Sensor Fusion").as_deref(),
            Some("What is Sensor Fusion?")
        );
    }

    #[test]
    fn a_heading_saying_not_is_a_problem() {
        assert_eq!(
            follow_up("NVIDIA Driver Not Detected After Ubuntu Install").as_deref(),
            Some("What should I do when NVIDIA Driver Not Detected After Ubuntu Install?")
        );
        assert_eq!(follow_up("What Not to Do"), None);
        // A numbered chapter is a label, not the book's structure.
        assert_eq!(
            follow_up("Chapter 5: Sensor Fusion").as_deref(),
            Some("What is Sensor Fusion?")
        );
    }
}

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
];

/// Words that make a section an assessment (a quiz, exercises): its questions test the reader,
/// the book does not answer them there.
const ASSESSMENT_WORDS: &[&str] = &["quiz", "quizzes", "exercise", "exercises", "homework"];

/// Words that make a heading a problem report ("Colcon build fails …", "setup.bash not found");
/// nouns such as "error" are left out: "Error Handling" is a topic.
const TROUBLE_WORDS: &[&str] = &[
    "fail", "fails", "failed", "failing", "crashes", "crashing", "crashed", "broken", "freezes",
    "hangs", "denied", "cannot", "can't", "won't", "doesn't", "isn't",
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

/// Whether `h` is only a label and its number ("Question 7", "Step 2").
fn only_label(h: &str) -> bool {
    let words: Vec<String> = h.split_whitespace().map(str::to_lowercase).collect();
    words.len() == 2
        && (LABELS.contains(&words[0].as_str()) || READER_LABELS.contains(&words[0].as_str()))
        && words[1]
            .trim_end_matches(['.', ':'])
            .chars()
            .all(|c| c.is_ascii_alphanumeric())
        && words[1].chars().any(|c| c.is_ascii_digit())
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
    if n > 0 {
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
fn reader_phrase(h: &str, lower: &str, lower_words: &[String]) -> Option<Option<String>> {
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
    let trouble = lower_words
        .iter()
        .any(|w| TROUBLE_WORDS.contains(&w.as_str()))
        || lower.contains("not found")
        || lower.contains("not working");
    trouble.then(|| Some(format!("What should I do when {}?", lower_first(h))))
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
    let h = clean_heading(heading, reader);
    // "Services: request and response" → "Services": the part before a colon names the topic.
    let h = match h.split_once(": ") {
        Some((head, _)) if head.split_whitespace().count() >= 1 && head.len() >= 3 => {
            head.trim().to_string()
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
        if let Some(q) = reader_phrase(&h, &lower, &lower_words) {
            return q;
        }
    }
    if h.ends_with('?') {
        return Some(h);
    }
    let first = lower_words[0].as_str();
    if ["how", "what", "why", "when", "where", "which", "who"].contains(&first) {
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
    if let Some(verb) = base_verb(first) {
        let rest = words[1..].join(" ");
        if rest.is_empty() {
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
        return Some(format!("How do I {verb} {}?", lower_first(&rest)));
    }
    // "Basic Launch File Example": a reader asks to see it.
    if reader
        && words.len() >= 2
        && matches!(
            lower_words[lower_words.len() - 1].as_str(),
            "example" | "examples"
        )
    {
        return Some(format!("Can you show the {}?", lower_first_word(&h)));
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
    let plural = (noun.len() > 3
        && noun.ends_with('s')
        && !["ss", "us", "is", "os"].iter().any(|e| noun.ends_with(e)))
        || lower_words.iter().any(|w| w == "and")
        || h.contains(',');
    let verb = if plural { "are" } else { "is" };
    Some(format!("What {verb} {}?", lower_first(&h)))
}

/// Up to [`MAX_SUGGESTIONS`] follow-ups from `related` (in the caller's order of preference), none
/// repeating the question or a section the answer already quotes (`quoted_urls`).
pub fn suggestions(question: &str, related: &[Related], quoted_urls: &[&str]) -> Vec<String> {
    let asked = question.trim().trim_end_matches('?').to_lowercase();
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
        if key == asked
            || out
                .iter()
                .any(|o| o.trim_end_matches('?').to_lowercase() == key)
        {
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
    fn suggestions_skip_quoted_repeated_and_generic() {
        let r = |s: &str, url: &str| Related {
            chapter: "ROS 2".into(),
            section: Some(s.into()),
            url: url.into(),
            relation: Relation::Found,
        };
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
        for q in &s {
            assert!(q.ends_with('?'));
        }
    }
}

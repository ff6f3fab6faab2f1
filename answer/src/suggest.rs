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

/// Drops `2.1.3.`, `1.`, `Step 3:`, `Lab 2 -` style numbering from a heading.
fn clean_heading(h: &str) -> String {
    let mut t = h.trim();
    let n = t
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.' || *c == ')')
        .last()
        .map_or(0, |(i, c)| i + c.len_utf8());
    if n > 0 {
        t = t[n..].trim_start();
    }
    for lead in [
        "step", "part", "lab", "module", "chapter", "lesson", "week", "section",
    ] {
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
        let mut c = s.chars();
        match c.next() {
            Some(f) => f.to_lowercase().chain(c).collect(),
            None => String::new(),
        }
    } else {
        s.to_string()
    }
}

/// A heading phrased as a reader's question, or `None` when it cannot be.
pub fn as_question(heading: &str) -> Option<String> {
    let h = clean_heading(heading);
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
    if GENERIC_HEADINGS.contains(&lower.as_str()) {
        return None;
    }
    if h.ends_with('?') {
        return Some(h);
    }
    let lower_words: Vec<String> = words
        .iter()
        .map(|w| {
            w.to_lowercase()
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '\'')
                .to_string()
        })
        .collect();
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
        return Some(format!("How do I {verb} {}?", lower_first(&rest)));
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
        let Some(q) = as_question(heading) else {
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
        assert_eq!(as_question("Software and hardware you will need"), None);
        assert_eq!(as_question("1.2."), None);
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

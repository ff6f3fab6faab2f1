//! Rewrites a follow-up question into a stand-alone retrieval query from the conversation,
//! with no LLM call: short or pronoun-led questions borrow the topic words of the previous turn.

use crate::prompt::Turn;
use crate::text::{content_words, words};

/// Words that point back at something said before.
const ANAPHORA: &[&str] = &[
    "it", "its", "this", "that", "these", "those", "they", "them", "their", "there", "he", "she",
    "one", "ones", "same", "above", "previous", "former", "latter",
];

/// Openers of elliptical follow-ups ("what about …", "and …"). Not "why": "Why?" and "why not?"
/// have at most one topic word, which makes a follow-up anyway, and a question such as "why does
/// ros2 run say no executable found" stands on its own (glued to the previous question's words,
/// it was searched for something else).
const ELLIPTIC_OPENERS: &[&str] = &[
    "and",
    "also",
    "so",
    "then",
    "but",
    "or",
    "what about",
    "how about",
    "more",
];

/// Topic words that ask for more of the same rather than name a subject: a question whose one
/// topic word is one of these ("Show the code", "Any alternatives?") leans on the conversation,
/// while one naming a thing ("What is URDF?", "What is a quaternion?") stands on its own.
const MORE_OF_THE_SAME: &[&str] = &[
    "code", "explain", "elaborate", "clarify", "expand", "detail", "details", "detailed", "more",
    "simpler", "simply", "summary", "summarize", "step", "steps", "next", "further", "else",
    "continue", "why", "how", "alternative", "alternatives", "instead", "difference",
    "differences", "pros", "cons", "advantages", "disadvantages", "limitations", "example",
    "examples", "sample", "snippet", "syntax", "usage", "use", "used", "work", "works", "mean",
];

/// Whether the question leans on the conversation to be understood.
pub fn is_follow_up(question: &str) -> bool {
    let ws = words(question);
    let topic = content_words(question);
    let lower = question.trim().to_lowercase();
    ws.iter().any(|w| ANAPHORA.contains(&w.as_str()))
        || ELLIPTIC_OPENERS
            .iter()
            .any(|o| lower.starts_with(&format!("{o} ")) || lower == *o || lower == format!("{o}?"))
        || match topic.as_slice() {
            [] => true,
            [one] => MORE_OF_THE_SAME.contains(&one.as_str()),
            _ => false,
        }
}

/// The retrieval query for `question`: the question itself, plus the selection's and the previous
/// turn's topic words when it is a follow-up. Stays within 1000 characters.
pub fn standalone_query(question: &str, history: &[Turn], selection: Option<&str>) -> String {
    let mut query = question.trim().to_string();
    let own = content_words(question);
    let mut extra: Vec<String> = Vec::new();
    if let Some(sel) = selection {
        // The selection is the subject of "Explain this": its topic words lead the query.
        extra.extend(content_words(sel).into_iter().take(24));
    } else if is_follow_up(question) {
        if let Some(prev) = history.last() {
            let mut prev_words = content_words(&prev.question);
            if prev_words.len() < 3 {
                prev_words.extend(content_words(&prev.answer).into_iter().take(6));
            }
            extra.extend(prev_words.into_iter().take(12));
        }
    }
    for w in extra {
        if !own.contains(&w) && !query.to_lowercase().split_whitespace().any(|q| q == w) {
            query.push(' ');
            query.push_str(&w);
        }
    }
    crate::source::cut_at_word(&query, 1000)
        .trim_end_matches('…')
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(q: &str, a: &str) -> Turn {
        Turn {
            question: q.into(),
            answer: a.into(),
        }
    }

    #[test]
    fn self_contained_question_is_unchanged() {
        let h = [turn("What is a ROS 2 node?", "A node is a process.")];
        assert_eq!(
            standalone_query("How do I launch Gazebo worlds?", &h, None),
            "How do I launch Gazebo worlds?"
        );
    }

    #[test]
    fn pronoun_follow_up_borrows_previous_topic() {
        let h = [turn("What is a ROS 2 node?", "A node is a process.")];
        let q = standalone_query("How do I create one in Python?", &h, None);
        assert!(q.starts_with("How do I create one in Python?"));
        assert!(q.contains("ros") && q.contains("node"), "{q}");
    }

    #[test]
    fn elliptic_follow_up() {
        let h = [turn("How does Isaac Sim render scenes?", "With RTX.")];
        let q = standalone_query("What about physics?", &h, None);
        assert!(q.contains("isaac") && q.contains("physics"), "{q}");
        assert!(is_follow_up("Why?"));
        assert!(is_follow_up("why not?"));
        assert!(!is_follow_up("How do quaternions represent rotation?"));
        assert!(!is_follow_up("why does ros2 run say no executable found"));
        // One topic word: a follow-up when it asks for more, not when it names the subject.
        assert!(is_follow_up("Show the code"));
        assert!(is_follow_up("Any alternatives?"));
        assert!(is_follow_up("in C++?"));
        assert!(!is_follow_up("What is URDF?"));
        assert!(!is_follow_up("What is a quaternion?"));
        let q = standalone_query("What is URDF?", &h, None);
        assert_eq!(q, "What is URDF?");
        let q = standalone_query("why does ros2 run say no executable found", &h, None);
        assert_eq!(q, "why does ros2 run say no executable found");
    }

    #[test]
    fn selection_drives_explain_this() {
        let q = standalone_query(
            "Explain this",
            &[],
            Some("The URDF file describes links and joints."),
        );
        assert!(q.contains("urdf") && q.contains("joints"), "{q}");
    }

    #[test]
    fn no_history_keeps_question() {
        assert_eq!(standalone_query("Why?", &[], None), "Why?");
    }

    #[test]
    fn query_is_bounded() {
        let long_sel = "distinctword ".repeat(200);
        let q = standalone_query(&"x".repeat(990), &[], Some(&long_sel));
        assert!(q.chars().count() <= 1000);
    }
}

//! Two or three follow-up questions offered under each answer, built from the sources (no LLM call).

use crate::source::Source;
use crate::text::content_words;

/// Up to three suggestions (at least two), none repeating the question just asked.
pub fn suggestions(question: &str, sources: &[Source], cited: &[usize]) -> Vec<String> {
    let asked = question.trim().to_lowercase();
    let mut out: Vec<String> = Vec::new();
    let add = |s: String, out: &mut Vec<String>| {
        if out.len() < 3 && s.to_lowercase() != asked && !out.contains(&s) {
            out.push(s);
        }
    };
    // Sections retrieved but not cited are the natural "read next".
    for (i, src) in sources.iter().enumerate() {
        if cited.contains(&(i + 1)) {
            continue;
        }
        if let Some(sec) = src.section.as_deref().filter(|s| !s.is_empty()) {
            add(format!("What does the book say about {sec}?"), &mut out);
            break;
        }
    }
    let topic = sources
        .first()
        .and_then(|s| s.section.clone().or_else(|| Some(s.chapter.clone())))
        .unwrap_or_else(|| {
            content_words(question)
                .into_iter()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        });
    if !topic.is_empty() {
        if sources.iter().take(3).any(|s| s.text.contains("```")) {
            add(format!("Show me a code example for {topic}"), &mut out);
        } else {
            add(format!("Can you give an example of {topic}?"), &mut out);
        }
        add(format!("Explain {topic} in simpler terms"), &mut out);
    }
    add("What should I read next?".to_string(), &mut out);
    add("Summarize this section".to_string(), &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(section: Option<&str>, text: &str) -> Source {
        Source {
            chunk: 0,
            chapter: "ROS 2".into(),
            section: section.map(Into::into),
            url: "/x".into(),
            text: text.into(),
            score: 1.0,
        }
    }

    #[test]
    fn two_or_three_distinct() {
        let sources = vec![
            src(Some("Nodes"), "```py\nx\n```"),
            src(Some("Topics"), "t"),
        ];
        let s = suggestions("What is a node?", &sources, &[1]);
        assert_eq!(s.len(), 3);
        assert_eq!(s[0], "What does the book say about Topics?");
        assert_eq!(s[1], "Show me a code example for Nodes");
        let none = suggestions("?", &[], &[]);
        assert!(none.len() >= 2 && none.len() <= 3, "{none:?}");
        let mut d = none.clone();
        d.dedup();
        assert_eq!(d, none);
    }
}

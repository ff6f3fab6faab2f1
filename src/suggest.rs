//! Two or three follow-up questions offered under each answer, built from the sources (no LLM call).

use crate::source::Source;
use crate::text::content_words;

/// Headings that name a kind of section, not a topic: "What does the book say about Summary?" helps nobody.
const GENERIC_HEADINGS: &[&str] = &[
    "summary",
    "introduction",
    "overview",
    "conclusion",
    "conclusions",
    "exercises",
    "exercise",
    "next steps",
    "what's next",
    "further reading",
    "references",
    "prerequisites",
    "key takeaways",
    "recap",
    "review questions",
    "learning objectives",
    "resources",
    "see also",
    "faq",
    "troubleshooting",
];

/// A section heading usable as a topic: not empty and not a generic label; the chapter name is used instead otherwise.
fn topic_of(src: &Source) -> Option<String> {
    match src.section.as_deref().map(str::trim) {
        Some(sec)
            if !sec.is_empty() && !GENERIC_HEADINGS.contains(&sec.to_lowercase().as_str()) =>
        {
            Some(sec.to_string())
        }
        _ => Some(src.chapter.clone()).filter(|c| !c.trim().is_empty()),
    }
}

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
        if let Some(topic) = topic_of(src) {
            add(format!("What does the book say about {topic}?"), &mut out);
            break;
        }
    }
    let topic = sources.first().and_then(topic_of).unwrap_or_else(|| {
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

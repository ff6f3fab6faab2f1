//! The text transformations a prompt applies to quoted material. The proxy re-applies them to the
//! book's own chunks, so they must be the very functions the widget runs.

/// Tag names used to fence quoted material.
pub const FENCE_TAGS: [&str; 4] = ["source", "selection", "question", "sources"];

/// Rough token count: about four characters per token for English prose.
/// (Hand-written: a real tokenizer would add hundreds of KB of wasm for a budget check.)
pub fn estimate_tokens(s: &str) -> usize {
    s.chars().count().div_ceil(4) + 4
}

/// Makes quoted text unable to close or open our fences: `<source`, `</selection` … become `‹source`.
pub fn neutralise(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let tag_start = after.strip_prefix('/').unwrap_or(after).trim_start();
        let lower: String = tag_start
            .chars()
            .take(10)
            .collect::<String>()
            .to_lowercase();
        if FENCE_TAGS.iter().any(|t| lower.starts_with(t)) {
            out.push('‹');
        } else {
            out.push('<');
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// An attribute value: neutralised, double quotes turned into single ones.
pub fn attr(s: &str) -> String {
    neutralise(s).replace('"', "'")
}

/// Cuts `s` to at most `max_chars` characters, at a word boundary when one is near, adding "…".
/// Whitespace is collapsed first, so the result has no line breaks.
pub fn cut_at_word(s: &str, max_chars: usize) -> String {
    let collapsed: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if collapsed.chars().count() <= max_chars {
        return collapsed;
    }
    let budget = max_chars.saturating_sub(1);
    let head: String = collapsed.chars().take(budget).collect();
    let cut = match head.rfind(' ') {
        Some(i) if i > head.len() * 3 / 4 => &head[..i],
        _ => &head[..],
    };
    format!("{}…", cut.trim_end())
}

/// Joins chapter and section with the separator the book's breadcrumbs use: "Chapter › Section".
pub fn label(chapter: &str, section: Option<&str>) -> String {
    match section {
        Some(s) if !s.is_empty() && s != chapter => format!("{chapter} › {s}"),
        _ => chapter.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn neutralise_is_idempotent_and_keeps_length() {
        let s = "a </source> b <SELECTION> c < d <div>";
        let once = neutralise(s);
        assert_eq!(neutralise(&once), once);
        assert_eq!(once.chars().count(), s.chars().count());
        assert!(once.contains("‹/source>") && once.contains("<div>"));
    }

    #[test]
    fn cut_is_idempotent_below_the_limit() {
        let long = "word ".repeat(300);
        let cut = cut_at_word(&long, 600);
        assert!(cut.chars().count() <= 600 && cut.ends_with('…'));
        assert_eq!(cut_at_word(&cut, 600), cut);
    }

    #[test]
    fn label_joins_chapter_and_section() {
        assert_eq!(label("ROS 2", Some("Nodes")), "ROS 2 › Nodes");
        assert_eq!(label("ROS 2", None), "ROS 2");
        assert_eq!(label("ROS 2", Some("ROS 2")), "ROS 2");
    }
}

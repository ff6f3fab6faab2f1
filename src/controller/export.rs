//! "Copy answer": the answer as Markdown followed by the sources it cites, with absolute URLs, so
//! a pasted answer still leads back to the book.

use crate::citations;
use crate::session::{Exchange, Mode};

/// The Markdown copied for `e`; relative source URLs are joined to `origin` (`https://host`).
pub fn answer_markdown(e: &Exchange, origin: &str) -> String {
    let mut out = e.answer.trim().to_string();
    let numbers: Vec<usize> = if e.mode == Mode::Refusal {
        (1..=e.sources.len()).collect()
    } else {
        citations::cited(&e.answer, e.sources.len())
    };
    let lines: Vec<String> = numbers
        .into_iter()
        .filter_map(|n| e.sources.get(n.wrapping_sub(1)).map(|s| (n, s)))
        .map(|(n, s)| {
            let url = if s.url.starts_with('/') {
                format!("{}{}", origin.trim_end_matches('/'), s.url)
            } else {
                s.url.clone()
            };
            format!("[{n}]: {url} \"{}\"", s.label().replace('"', "'"))
        })
        .collect();
    if !lines.is_empty() {
        out.push_str("\n\n");
        out.push_str(&lines.join("\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Status;
    use crate::source::SourceRef;

    #[test]
    fn cited_sources_follow_as_reference_links() {
        let src = |u: &str| SourceRef {
            chapter: "ROS 2".into(),
            section: Some("Nodes".into()),
            url: u.into(),
            excerpt: String::new(),
            score: 1.0,
        };
        let e = Exchange {
            id: 1,
            question: "q".into(),
            selection: None,
            answer: "Nodes talk over topics [2].".into(),
            mode: Mode::Llm,
            status: Status::Complete,
            sources: vec![src("/docs/a#x"), src("/docs/b#y")],
            confidence: None,
            suggestions: vec![],
            offered_by: None,
            rating: None,
            asked_at: String::new(),
        };
        let md = answer_markdown(&e, "https://book.example/");
        assert_eq!(
            md,
            "Nodes talk over topics [2].\n\n[2]: https://book.example/docs/b#y \"ROS 2 › Nodes\""
        );
    }
}

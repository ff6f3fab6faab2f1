//! "Copy answer": the answer as Markdown followed by the sources it cites, with absolute URLs, so
//! a pasted answer still leads back to the book.

use crate::citations;
use crate::session::{Exchange, Mode};
use crate::source::distinct_labels;

/// The Markdown copied for `e`; relative source URLs are joined to `origin` (`https://host`).
pub fn answer_markdown(e: &Exchange, origin: &str) -> String {
    let mut out = e.answer.trim().to_string();
    let numbers: Vec<usize> = if e.mode == Mode::Refusal {
        (1..=e.sources.len()).collect()
    } else {
        citations::cited(&e.answer, e.sources.len())
    };
    let labels = distinct_labels(&e.sources);
    let lines: Vec<String> = numbers
        .into_iter()
        .filter_map(|n| {
            let i = n.wrapping_sub(1);
            e.sources.get(i).zip(labels.get(i)).map(|(s, l)| (n, s, l))
        })
        .map(|(n, s, label)| {
            let url = if s.url.starts_with('/') {
                format!("{}{}", origin.trim_end_matches('/'), s.url)
            } else {
                s.url.clone()
            };
            format!("[{n}]: {url} \"{}\"", label.replace('"', "'"))
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
    fn cited_sources_follow_as_reference_links_with_the_labels_the_list_shows() {
        let src = |u: &str, parent: &str| SourceRef {
            chapter: "ROS 2".into(),
            section: Some("Nodes".into()),
            parent: Some(parent.into()),
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
            sources: vec![src("/docs/a#x", "Intro"), src("/docs/b#y", "Graph")],
            confidence: None,
            suggestions: vec![],
            offered_by: None,
            rating: None,
            asked_at: String::new(),
        };
        let md = answer_markdown(&e, "https://book.example/");
        assert_eq!(
            md,
            "Nodes talk over topics [2].\n\n[2]: https://book.example/docs/b#y \"ROS 2 › Graph › Nodes\""
        );
        // Alone in the list, the source keeps its short label.
        let one = Exchange {
            sources: vec![src("/docs/b#y", "Graph")],
            answer: "Nodes talk over topics [1].".into(),
            ..e
        };
        assert!(answer_markdown(&one, "").ends_with("/docs/b#y \"ROS 2 › Nodes\""));
    }
}

//! A retrieved passage of the book, as the widget and the CLI use it for prompting, quoting, citing
//! and display.

use serde::{Deserialize, Serialize};

/// Longest excerpt kept for display and for localStorage (characters).
pub const EXCERPT_CHARS: usize = 200;

/// A ranked passage with its full text: what prompts and extractive answers are built from.
#[derive(Debug, Clone, PartialEq)]
pub struct Source {
    /// Chunk number in the index.
    pub chunk: u32,
    /// Chapter (doc title).
    pub chapter: String,
    /// Section heading; `None` for the page top.
    pub section: Option<String>,
    /// The heading right above the section on its page (`None` for a page top or a section
    /// directly under the title): what tells apart two "Starter Code" sections of one page of
    /// exercises in the labels readers see ([`distinct_labels`]).
    pub parent: Option<String>,
    /// Site URL with `#anchor`.
    pub url: String,
    /// Cleaned Markdown text of the chunk.
    pub text: String,
    /// Retrieval score (higher is better; same scale as the index threshold).
    pub score: f32,
    /// Headings of the sections right under this one on its page, in order (numbering kept as
    /// written): what a lead-in ending the section ("Five trends are converging:") announces.
    /// Filled by [`crate::found::collect`]; empty when it has none.
    pub subsections: Vec<String>,
}

impl Source {
    /// "Chapter › Section", the label readers see on citations.
    pub fn label(&self) -> String {
        label(&self.chapter, self.section.as_deref())
    }

    /// The lightweight, persistable reference shown in the Sources list.
    pub fn to_ref(&self) -> SourceRef {
        SourceRef {
            chapter: self.chapter.clone(),
            section: self.section.clone(),
            parent: self.parent.clone(),
            url: self.url.clone(),
            excerpt: excerpt(&self.text, EXCERPT_CHARS),
            score: self.score,
        }
    }
}

/// What an answer keeps of a source: enough to link and show a short excerpt, small enough to persist.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SourceRef {
    /// Chapter (doc title).
    pub chapter: String,
    /// Section heading; `None` for the page top.
    pub section: Option<String>,
    /// See [`Source::parent`]. Absent in answers stored by widgets before it existed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<String>,
    /// Site URL with `#anchor`.
    pub url: String,
    /// A short plain excerpt of the passage (at most [`EXCERPT_CHARS`]).
    pub excerpt: String,
    /// Retrieval score (same scale as the index threshold).
    pub score: f32,
}

impl SourceRef {
    /// "Chapter › Section".
    pub fn label(&self) -> String {
        label(&self.chapter, self.section.as_deref())
    }
}

/// What a label is made of: chapter, section, and the heading above the section.
pub trait Labelled {
    /// (chapter, section, parent heading)
    fn label_parts(&self) -> (&str, Option<&str>, Option<&str>);
}

impl Labelled for Source {
    fn label_parts(&self) -> (&str, Option<&str>, Option<&str>) {
        (
            &self.chapter,
            self.section.as_deref(),
            self.parent.as_deref(),
        )
    }
}

impl Labelled for SourceRef {
    fn label_parts(&self) -> (&str, Option<&str>, Option<&str>) {
        (
            &self.chapter,
            self.section.as_deref(),
            self.parent.as_deref(),
        )
    }
}

/// The labels readers see for one answer's sources, in order: "Chapter › Section", except that
/// sources whose label another source of the list shares also name the heading above their
/// section ("Exercises › Exercise 2: Safety Validation › Starter Code"), as an editor names the
/// folder of two open files called `mod.rs`. Prompts keep the plain [`label`] (the proxy checks
/// quotes against it); this is for display only.
pub fn distinct_labels<S: Labelled>(sources: &[S]) -> Vec<String> {
    let plain: Vec<String> = sources
        .iter()
        .map(|s| {
            let (chapter, section, _) = s.label_parts();
            label(chapter, section)
        })
        .collect();
    sources
        .iter()
        .zip(&plain)
        .map(|(s, l)| {
            let (chapter, section, parent) = s.label_parts();
            let shared = plain.iter().filter(|o| *o == l).count() > 1;
            match (parent, section) {
                (Some(p), Some(sec)) if shared && p != chapter && p != sec => {
                    format!("{chapter} › {p} › {sec}")
                }
                _ => l.clone(),
            }
        })
        .collect()
}

/// The heading right above a section, from its heading path (title first, the section last):
/// see [`Source::parent`].
pub fn parent_heading(headings: &[String], section: Option<&str>) -> Option<String> {
    match headings {
        [_, .., parent, last] if section == Some(last.as_str()) => Some(parent.clone()),
        _ => None,
    }
}

/// The label and the word cut are part of the prompt contract (the proxy re-applies them), so
/// they are defined once, in `book-prompt`.
pub use book_prompt::text::{cut_at_word, label};

/// A short plain excerpt: Markdown fences and markers dropped, whitespace collapsed, cut at a word.
pub fn excerpt(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    for line in crate::text::prose_lines(text) {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let t = t.trim_start_matches(['#', '>', '-', '*', ' ']);
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(t);
        if out.chars().count() > max_chars {
            break;
        }
    }
    cut_at_word(&out, max_chars)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_joins_chapter_and_section() {
        assert_eq!(label("ROS 2", Some("Nodes")), "ROS 2 › Nodes");
        assert_eq!(label("ROS 2", None), "ROS 2");
        assert_eq!(label("ROS 2", Some("ROS 2")), "ROS 2");
    }

    fn sref(chapter: &str, parent: Option<&str>, section: Option<&str>) -> SourceRef {
        SourceRef {
            chapter: chapter.into(),
            section: section.map(Into::into),
            parent: parent.map(Into::into),
            url: String::new(),
            excerpt: String::new(),
            score: 0.5,
        }
    }

    #[test]
    fn labels_two_sources_share_name_the_heading_above_them() {
        let list = [
            sref("Exercises", Some("Exercise 1: Voice"), Some("Starter Code")),
            sref("Exercises", Some("Exercise 2: Noise"), Some("Starter Code")),
            sref("Exercises", Some("Exercise 2: Noise"), Some("Task")),
            sref("Nodes", None, None),
        ];
        assert_eq!(
            distinct_labels(&list),
            [
                "Exercises › Exercise 1: Voice › Starter Code",
                "Exercises › Exercise 2: Noise › Starter Code",
                "Exercises › Task",
                "Nodes",
            ]
        );
        // Alone in its list, a source keeps the short label; without a parent, the plain one.
        assert_eq!(distinct_labels(&list[..1]), ["Exercises › Starter Code"]);
        let orphans = [
            sref("Exercises", None, Some("Starter Code")),
            sref("Exercises", None, Some("Starter Code")),
        ];
        assert_eq!(distinct_labels(&orphans), ["Exercises › Starter Code"; 2]);
    }

    #[test]
    fn the_parent_is_the_heading_above_the_section() {
        let path = |h: &[&str]| h.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let h = path(&["Exercises", "Exercise 1", "Starter Code"]);
        assert_eq!(
            parent_heading(&h, Some("Starter Code")).as_deref(),
            Some("Exercise 1")
        );
        assert_eq!(parent_heading(&h[..2], Some("Exercise 1")), None);
        assert_eq!(parent_heading(&h[..1], None), None);
        assert_eq!(parent_heading(&h, Some("Other")), None);
    }

    #[test]
    fn a_stored_source_without_a_parent_still_loads() {
        let old = r#"{"chapter":"A","section":"B","url":"/a#b","excerpt":"x","score":0.5}"#;
        let r: SourceRef = serde_json::from_str(old).expect("old source loads");
        assert_eq!(r.parent, None);
        assert!(!serde_json::to_string(&r)
            .unwrap_or_default()
            .contains("parent"));
    }

    #[test]
    fn excerpt_skips_code_and_cuts() {
        let text = "# Title\n\nFirst words here.\n```rust\nfn main() {}\n```\nMore text follows.";
        assert_eq!(
            excerpt(text, 200),
            "Title First words here. More text follows."
        );
        let long = "word ".repeat(100);
        let e = excerpt(&long, 50);
        assert!(e.chars().count() <= 50, "{e}");
        assert!(e.ends_with('…'));
    }

    #[test]
    fn cut_handles_multibyte() {
        let s = "é".repeat(30);
        let c = cut_at_word(&s, 10);
        assert_eq!(c.chars().count(), 10);
    }
}

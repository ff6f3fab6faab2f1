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

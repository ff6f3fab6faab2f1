//! The unit of retrieval: one piece of one section of one page of the book.

use serde::{Deserialize, Serialize};

/// Where a chunk comes from: everything a citation needs, without the text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChunkMeta {
    /// Stable id: hex of a hash of the chunk's content and location.
    pub id: String,
    /// Module label (the top-level category's `_category_` label).
    pub module: String,
    /// Chapter: the doc's title.
    pub chapter: String,
    /// Section heading text; `None` for the text before the first heading (page top).
    pub section: Option<String>,
    /// Headings from the doc title down to this section (title first).
    pub headings: Vec<String>,
    /// Site URL of the section, with `#anchor` unless it is the page top.
    pub url: String,
    /// Source path relative to the docs folder, with `/` separators.
    pub path: String,
    /// Whether the chunk contains a fenced code block.
    pub has_code: bool,
    /// Index of the page (doc) this chunk belongs to, in build order.
    pub page: u32,
}

/// A chunk with its text (cleaned Markdown: prose, lists, tables and fenced code kept).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Chunk {
    /// Where the chunk comes from.
    #[serde(flatten)]
    pub meta: ChunkMeta,
    /// The chunk's text.
    pub text: String,
}

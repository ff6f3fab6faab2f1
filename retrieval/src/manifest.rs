//! `manifest.json`: the one small file the widget fetches first; it names the content-hashed asset
//! files, so they can be cached forever and a rebuilt book is picked up at once.

use serde::{Deserialize, Serialize};

/// Version of the manifest layout.
pub const MANIFEST_VERSION: u32 = 1;

/// Names and sizes of the asset files of one build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format_version: u32,
    pub model_id: String,
    /// Content hash of the index body.
    pub content_hash: String,
    pub dim: usize,
    pub chunks: usize,
    pub files: ManifestFiles,
}

/// File names relative to the manifest, each carrying its content hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFiles {
    pub index: String,
    pub chunks: String,
    /// The question encoder; `None` for a BM25-only build.
    pub encoder: Option<String>,
}

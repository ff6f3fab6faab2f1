//! `manifest.json`: the one small file the widget fetches first; it names the content-hashed asset
//! files, so they can be cached forever and a rebuilt book is picked up at once.

use serde::{Deserialize, Serialize};

/// Version of the manifest layout.
pub const MANIFEST_VERSION: u32 = 1;

/// Names and sizes of the asset files of one build.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`MANIFEST_VERSION`] of the writer.
    pub format_version: u32,
    /// The model the index and encoder were made with.
    pub model_id: String,
    /// Content hash of the index body.
    pub content_hash: String,
    /// Vector dimension.
    pub dim: usize,
    /// Number of chunks.
    pub chunks: usize,
    /// The asset files.
    pub files: ManifestFiles,
    /// The book's language (BCP 47, e.g. `en`, `ur`); absent in older manifests (English).
    /// Books not in English ship no question encoder (the model is English): BM25 alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
}

/// File names relative to the manifest, each carrying its content hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ManifestFiles {
    /// The index file (`index.<hash>.bin`).
    pub index: String,
    /// The chunk-text file (`chunks.<hash>.bin`).
    pub chunks: String,
    /// The question encoder; `None` for a BM25-only build.
    pub encoder: Option<String>,
}

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

/// Why a downloaded `manifest.json` is unusable (the reader is told the index could not be loaded).
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// Not JSON, or a field is missing or of the wrong type.
    #[error("the index manifest is not valid: {0}")]
    Json(String),
    /// Written by an incompatible index builder.
    #[error(
        "the index manifest has format version {0}; this reader reads version {MANIFEST_VERSION}"
    )]
    Version(u32),
    /// A file name that would leave the asset folder (or is empty).
    #[error("the index manifest names an unsafe file: {0:?}")]
    BadName(String),
}

impl Manifest {
    /// Parses and checks a manifest: the version this crate writes, and every file name a plain
    /// name inside the asset folder (a manifest is fetched over the network, so it is not trusted
    /// to point elsewhere).
    pub fn parse(json: &[u8]) -> Result<Self, ManifestError> {
        let m: Manifest = crate::json::from_slice(json).map_err(ManifestError::Json)?;
        if m.format_version != MANIFEST_VERSION {
            return Err(ManifestError::Version(m.format_version));
        }
        let names = [
            Some(&m.files.index),
            Some(&m.files.chunks),
            m.files.encoder.as_ref(),
        ];
        if let Some(bad) = names.into_iter().flatten().find(|n| !is_plain_file_name(n)) {
            return Err(ManifestError::BadName(bad.clone()));
        }
        Ok(m)
    }
}

/// Whether `name` is a plain file name inside the asset folder: not empty, no path separator,
/// no `..`, no scheme or drive (`:`).
pub fn is_plain_file_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['/', '\\', ':']) && !name.contains("..")
}

/// The URL of asset file `file` in the asset folder at `index_url` (with or without a trailing
/// slash), e.g. `/book-index/` + `manifest.json`.
pub fn asset_url(index_url: &str, file: &str) -> String {
    format!("{}/{}", index_url.trim_end_matches('/'), file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = r#"{"format_version":1,"model_id":"m","content_hash":"ab","dim":8,"chunks":4,"files":{"index":"index.ab.bin","chunks":"chunks.ab.bin","encoder":"encoder.ab.bin"}}"#;

    #[test]
    fn parses_and_checks() {
        let m = match Manifest::parse(OK.as_bytes()) {
            Ok(m) => m,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(
            asset_url("/book-index/", &m.files.index),
            "/book-index/index.ab.bin"
        );
        assert_eq!(asset_url("/b", "manifest.json"), "/b/manifest.json");
        let v2 = OK.replace("\"format_version\":1", "\"format_version\":2");
        assert!(matches!(
            Manifest::parse(v2.as_bytes()),
            Err(ManifestError::Version(2))
        ));
        for bad in ["../x", "a/b", "", "https:x", "a\\\\b"] {
            let m = OK.replace("index.ab.bin", bad);
            assert!(
                matches!(
                    Manifest::parse(m.as_bytes()),
                    Err(ManifestError::BadName(_))
                ),
                "{bad}"
            );
        }
        assert!(matches!(Manifest::parse(b"{"), Err(ManifestError::Json(_))));
    }
}

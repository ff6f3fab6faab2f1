//! The chunk-text file (`chunks.<hash>.bin`): the text of every chunk, compressed, shipped beside
//! the index so the widget can fetch it after the index (for prompts, excerpts and extractive answers).

use crate::binio::{envelope, open_envelope};
use crate::error::AssetError;
use crate::hash::content_hash;

/// First bytes of a chunk-text file.
pub const TEXTS_MAGIC: &[u8; 8] = b"BKCHTXT\0";
/// The chunk-text format version this build reads and writes.
pub const TEXTS_VERSION: u32 = 1;
const WHAT: &str = "chunk text file";

/// The texts of all chunks, in chunk order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChunkTexts {
    /// Content hash of the index these texts belong to.
    pub index_hash: String,
    texts: Vec<String>,
}

impl ChunkTexts {
    /// Wraps the texts of the index with hash `index_hash`.
    pub fn new(index_hash: String, texts: Vec<String>) -> Self {
        Self { index_hash, texts }
    }

    /// Text of chunk `i`.
    pub fn get(&self, i: u32) -> Option<&str> {
        self.texts.get(i as usize).map(String::as_str)
    }

    /// Number of texts.
    pub fn len(&self) -> usize {
        self.texts.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.texts.is_empty()
    }

    /// Serializes (texts deflated as one JSON array).
    pub fn to_bytes(&self) -> Result<Vec<u8>, AssetError> {
        let json = serde_json::to_vec(&self.texts).map_err(|e| AssetError::Corrupt {
            what: WHAT,
            reason: e.to_string(),
        })?;
        let body = miniz_oxide::deflate::compress_to_vec(&json, 9);
        // Version 1 puts the count between the hash and the body.
        let mut w = envelope(TEXTS_MAGIC, TEXTS_VERSION);
        w.str(&self.index_hash);
        w.str(&content_hash(&body));
        w.u32(self.texts.len() as u32);
        w.bytes(&body);
        Ok(w.finish())
    }

    /// Loads a chunk-text file; `index_hash` and `count` must match the loaded index.
    pub fn from_bytes(data: &[u8], index_hash: &str, count: usize) -> Result<Self, AssetError> {
        let opened = Self::open(data, index_hash, count)?;
        let json = crate::index::inflate(opened.deflated())?;
        opened.finish(&json)
    }

    /// The first half of [`ChunkTexts::from_bytes`]: checks the envelope, the index it belongs to
    /// and the hash, for a caller that inflates the texts itself (the widget, with the browser's
    /// `DecompressionStream`) before [`OpenedTexts::finish`].
    pub fn open<'a>(
        data: &'a [u8],
        index_hash: &str,
        count: usize,
    ) -> Result<OpenedTexts<'a>, AssetError> {
        let (_, mut r) = open_envelope(data, TEXTS_MAGIC, &[TEXTS_VERSION], WHAT)?;
        let for_index = r.str()?.to_string();
        if for_index != index_hash {
            return Err(AssetError::Mismatch {
                what: WHAT,
                reason: format!("built for index {for_index}, loaded index is {index_hash}"),
            });
        }
        let hash = r.str()?;
        let n = r.u32()? as usize;
        let body = r.body_with_hash(hash)?;
        Ok(OpenedTexts {
            index_hash: for_index,
            n,
            count,
            body,
        })
    }
}

/// A chunk-text file opened by [`ChunkTexts::open`]: its texts still deflated.
pub struct OpenedTexts<'a> {
    index_hash: String,
    n: usize,
    count: usize,
    body: &'a [u8],
}

impl OpenedTexts<'_> {
    /// The deflated texts (raw deflate of a JSON array, as `ChunkTexts::to_bytes` writes it).
    pub fn deflated(&self) -> &[u8] {
        self.body
    }

    /// The texts from their inflated JSON, checked against the counts.
    pub fn finish(self, json: &[u8]) -> Result<ChunkTexts, AssetError> {
        let texts: Vec<String> = crate::json::from_slice(json)
            .map_err(|reason| AssetError::Corrupt { what: WHAT, reason })?;
        let (n, count) = (self.n, self.count);
        if texts.len() != n || n != count {
            return Err(AssetError::Mismatch {
                what: WHAT,
                reason: format!("{} texts for {count} chunks", texts.len()),
            });
        }
        Ok(ChunkTexts {
            index_hash: self.index_hash,
            texts,
        })
    }
}

//! The retrieval core shared by the index builder (native) and the chat widget (wasm32).
//!
//! The CLI's `query` and the browser run exactly this code: loading the asset, encoding the
//! question, searching, fusing and thresholding. The asset format is specified in `FORMAT.md`.

#![warn(missing_docs)]

pub mod analyzer;
#[cfg(feature = "ann")]
pub mod ann;
#[allow(dead_code)] // a few readers are used only by one of the asset files
mod binio;
pub mod bm25;
pub mod chunk;
pub mod common_words;
pub mod encoder;
pub mod error;
pub mod hash;
pub mod index;
pub mod json;
pub mod manifest;
mod marks;
pub mod sort;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod texts;
pub mod tokenizer;
pub mod vectors;

pub use chunk::{Chunk, ChunkMeta};
pub use encoder::Encoder;
pub use error::AssetError;
pub use index::{
    inflate, Hit, Index, IndexMeta, Mode, OpenedIndex, PageInfo, PassageVectors, SearchRequest,
    SearchResults, SearchSettings, MAX_SECTION_BYTES,
};
pub use manifest::Manifest;
pub use texts::{ChunkTexts, OpenedTexts};

pub use binio::Writer as BinWriter;

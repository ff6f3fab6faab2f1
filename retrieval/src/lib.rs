//! The retrieval core shared by the index builder (native) and the chat widget (wasm32).
//!
//! The CLI's `query` and the browser run exactly this code: loading the asset, encoding the
//! question, searching, fusing and thresholding. The asset format is specified in `FORMAT.md`.

#![warn(missing_docs)]

pub mod analyzer;
#[cfg(feature = "ann")]
pub mod ann;
// binio and encoder are being reworked (one envelope for every asset file); their items get their
// docs there, and these two `missing_docs` allows go with them.
#[allow(dead_code)] // a few readers are used only by one of the asset files
#[allow(missing_docs)]
mod binio;
pub mod bm25;
pub mod chunk;
#[allow(missing_docs)]
pub mod encoder;
pub mod error;
pub mod hash;
pub mod index;
pub mod manifest;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod texts;
pub mod tokenizer;
pub mod vectors;

pub use chunk::{Chunk, ChunkMeta};
pub use encoder::Encoder;
pub use error::AssetError;
pub use index::{
    Hit, Index, IndexMeta, Mode, PageInfo, SearchRequest, SearchResults, SearchSettings,
};
pub use manifest::Manifest;
pub use texts::ChunkTexts;

pub use binio::Writer as BinWriter;

//! The retrieval core shared by the index builder (native) and the chat widget (wasm32).
//!
//! The CLI's `query` and the browser run exactly this code: loading the asset, encoding the
//! question, searching, fusing and thresholding.

#[allow(dead_code)] // a few readers are used only by one of the two asset files
mod binio;
pub mod chunk;
pub mod encoder;
pub mod error;
pub mod hash;
pub mod tokenizer;

pub use chunk::{Chunk, ChunkMeta};
pub use encoder::Encoder;
pub use error::AssetError;

//! The retrieval core shared by the index builder (native) and the chat widget (wasm32).
//!
//! The CLI's `query` and the browser run exactly this code: loading the asset, encoding the
//! question, searching, fusing and thresholding.

pub mod chunk;

pub use chunk::{Chunk, ChunkMeta};

//! The question encoder (all-MiniLM-L6-v2, int8) exported to JavaScript.
//!
//! It is a separate wasm module from the widget: the widget answers with BM25 the moment the index
//! has arrived, and imports this module (code and weights, both cached) in the background after the
//! panel opens; from then on questions are embedded here and searches are hybrid. The encoding is
//! `book_retrieval::Encoder::encode`, the same code `index-builder query` runs natively.
#![warn(missing_docs)]

use wasm_bindgen::prelude::*;

/// A loaded encoder.
#[wasm_bindgen]
pub struct QuestionEncoder {
    inner: book_retrieval::Encoder,
}

#[wasm_bindgen]
impl QuestionEncoder {
    /// Loads `encoder.<hash>.bin`; throws an `Error` whose message says what is wrong with the file.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: &[u8]) -> Result<QuestionEncoder, JsError> {
        book_retrieval::Encoder::from_bytes(bytes)
            .map(|inner| QuestionEncoder { inner })
            .map_err(|e| JsError::new(&e.to_string()))
    }

    /// The unit-length embedding of `text` (a `Float32Array` of `dim` values). With `maxTokens`,
    /// only the text's first that many token ids are embedded (`Encoder::encode_opening`: the
    /// widget compares candidate quotes by their openings, and the time grows with the tokens).
    pub fn encode(&self, text: &str, max_tokens: Option<u32>) -> Vec<f32> {
        match max_tokens {
            Some(max) => self.inner.encode_opening(text, max as usize),
            None => self.inner.encode(text),
        }
    }

    /// Embedding dimension.
    pub fn dim(&self) -> usize {
        self.inner.dim()
    }

    /// The model the index must have been built with.
    #[wasm_bindgen(js_name = modelId)]
    pub fn model_id() -> String {
        book_retrieval::encoder::MODEL_ID.to_string()
    }
}

//! The Markdown parser as its own wasm module. The widget imports it when the chat panel opens and
//! calls [`parse`] for model answers, excerpt answers and source snippets; until it has loaded (or
//! if it fails to) the widget shows the same text unformatted. Keeping pulldown-cmark here keeps
//! the widget's own wasm, which every reader of the book downloads, small.
#![warn(missing_docs)]

use wasm_bindgen::prelude::*;

/// Parses `markdown` into the safe tree of [`book_markdown::Node`]s, as a JS value the widget reads
/// back with serde-wasm-bindgen.
#[wasm_bindgen]
pub fn parse(markdown: &str) -> Result<JsValue, JsError> {
    serde_wasm_bindgen::to_value(&book_markdown::parse(markdown))
        .map_err(|e| JsError::new(&e.to_string()))
}

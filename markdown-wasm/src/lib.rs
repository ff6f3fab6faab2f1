//! The Markdown parser as its own wasm module. The widget imports it when the chat panel opens and
//! calls [`parse`] for model answers, excerpt answers and source snippets; until it has loaded (or
//! if it fails to) the widget shows the same text unformatted. Keeping pulldown-cmark here keeps
//! the widget's own wasm, which every reader of the book downloads, small.
#![warn(missing_docs)]

use book_markdown::wire;
use wasm_bindgen::prelude::*;

/// Parses `markdown` into the safe tree of [`book_markdown::Node`]s, flattened by
/// [`wire::encode`]: `[ops: Uint32Array, texts: string[]]`, which the widget decodes with
/// [`wire::decode`].
#[wasm_bindgen]
pub fn parse(markdown: &str) -> js_sys::Array {
    let w = wire::encode(&book_markdown::parse(markdown));
    let texts: js_sys::Array = w.texts.iter().map(|s| JsValue::from_str(s)).collect();
    js_sys::Array::of2(&js_sys::Uint32Array::from(w.ops.as_slice()), &texts)
}

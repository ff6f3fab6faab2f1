//! Book chat: the chat widget that lives inside a Docusaurus book.
//!
//! The pure modules (validation, prompts, citations, SSE, Markdown, sessions…) compile and test natively;
//! the `ui` feature adds the Leptos component and the browser plumbing (wasm32).
#![warn(missing_docs)]

pub mod answer;
pub mod citations;
pub mod confidence;
pub mod controller;
pub mod errors;
pub mod extractive;
pub mod i18n;
/// JSON in and out of the widget's types: the browser's parser in the wasm build.
pub use book_retrieval::json;
pub mod markdown;
pub mod prefs;
pub mod prompt;
pub mod retrieval;
pub mod selection;
pub mod session;
pub mod source;
pub mod sse;
pub mod style;
pub mod suggest;
pub mod text;
pub mod transport;
pub mod validate;

#[cfg(feature = "ui")]
pub mod ui;

#[cfg(all(feature = "ui", target_arch = "wasm32"))]
pub mod panic_report;

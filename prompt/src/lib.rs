//! The prompt contract, defined once and compiled by both sides: the widget builds prompts with it
//! (to wasm32) and the proxy checks, with the same code, that a request is one the widget could have
//! built before it spends the operator's tokens.
//!
//! - [`prefs`]: reader preferences and every combination of them;
//! - [`text`]: the text transformations the prompt applies (fence neutralising, the word cut);
//! - [`prompt`]: the system texts, source blocks, selection, history and the token budget;
//! - [`limits`]: the seed limits (question and selection 1–1000 characters, history bounds);
//! - [`wire`]: the JSON bodies of `POST /api/chat` and `POST /api/feedback`.
#![warn(missing_docs)]

pub mod limits;
pub mod prefs;
pub mod prompt;
pub mod text;
pub mod wire;

pub use prefs::{Detail, Format, Preferences};
pub use prompt::{build_prompt, ChatMessage, Prompt, PromptInput, PromptSource, Turn};
pub use wire::{ChatRequestBody, FeedbackBody, Rating};

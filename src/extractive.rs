//! Excerpt answers (no LLM): the answer core's (`book_answer::extractive`), so the widget shows
//! exactly what `index-builder answer` prints.

pub use book_answer::extractive::*;

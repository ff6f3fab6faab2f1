//! Word-level helpers: the answer core's (`book_answer::text`), built on the retrieval analyzer.

pub use book_answer::text::*;

//! Follow-up questions under an answer: the answer core's (`book_answer::suggest`).

pub use book_answer::suggest::*;

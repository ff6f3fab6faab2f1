//! How sure an answer is: the answer core's (`book_answer::confidence`).

pub use book_answer::confidence::*;

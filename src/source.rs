//! A retrieved passage of the book: defined once in the answer core (`book_answer::source`).

pub use book_answer::source::*;

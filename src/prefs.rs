//! Reader preferences that shape the prompt: defined in the shared `book-prompt` crate (the proxy
//! checks the system text against every combination), re-exported here under their old path.

pub use book_prompt::prefs::{Detail, Format, Preferences};

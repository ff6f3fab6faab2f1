//! Question validation: 1–1000 characters, not whitespace only, with a counter and a clear message.

use thiserror::Error;

/// Longest question accepted, in characters (Unicode scalar values).
pub const MAX_QUESTION_CHARS: usize = 1000;

/// Why a question cannot be sent; the `Display` text is shown to the reader as is.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum QuestionError {
    /// Nothing was typed.
    #[error("Type a question first.")]
    Empty,
    /// Only whitespace was typed.
    #[error("Your question is only spaces; type a few words.")]
    WhitespaceOnly,
    /// Longer than [`MAX_QUESTION_CHARS`].
    #[error("Your question is {len} characters long; the limit is {max}. Please shorten it.")]
    TooLong {
        /// The question's length in characters.
        len: usize,
        /// The limit, [`MAX_QUESTION_CHARS`].
        max: usize,
    },
}

/// Checks a typed question and returns it trimmed, or the reason it cannot be sent.
pub fn validate_question(raw: &str) -> Result<&str, QuestionError> {
    let len = raw.chars().count();
    if len == 0 {
        return Err(QuestionError::Empty);
    }
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        return Err(QuestionError::WhitespaceOnly);
    }
    if len > MAX_QUESTION_CHARS {
        return Err(QuestionError::TooLong {
            len,
            max: MAX_QUESTION_CHARS,
        });
    }
    Ok(trimmed)
}

/// The counter under the input, e.g. "12 / 1000".
pub fn counter(raw: &str) -> String {
    format!("{} / {}", raw.chars().count(), MAX_QUESTION_CHARS)
}

/// Whether the counter should warn (over 90% of the limit).
pub fn counter_warns(raw: &str) -> bool {
    raw.chars().count() * 10 > MAX_QUESTION_CHARS * 9
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_normal_and_trims() {
        assert_eq!(validate_question("  What is ROS 2? "), Ok("What is ROS 2?"));
        assert_eq!(validate_question("a"), Ok("a"));
    }

    #[test]
    fn rejects_empty_and_whitespace() {
        assert_eq!(validate_question(""), Err(QuestionError::Empty));
        assert_eq!(
            validate_question(" \n\t "),
            Err(QuestionError::WhitespaceOnly)
        );
        assert_eq!(
            validate_question("\u{3000}"),
            Err(QuestionError::WhitespaceOnly)
        );
    }

    #[test]
    fn limit_counts_characters_not_bytes() {
        let ok = "é".repeat(1000);
        assert!(validate_question(&ok).is_ok());
        let long = "é".repeat(1001);
        let err = validate_question(&long).unwrap_err();
        assert_eq!(
            err,
            QuestionError::TooLong {
                len: 1001,
                max: 1000
            }
        );
        assert!(err.to_string().contains("1001"));
    }

    #[test]
    fn counter_text() {
        assert_eq!(counter("héllo"), "5 / 1000");
        assert!(!counter_warns(&"a".repeat(900)));
        assert!(counter_warns(&"a".repeat(901)));
    }
}

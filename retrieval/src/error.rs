//! The one error type of the asset loaders: every way a downloaded file can be unusable; and
//! [`error_line`], how the binaries (`index-builder`, the proxy) print any error for the person
//! running them.

/// Why an index, chunk-text or encoder file could not be loaded. Loaders return this; they never panic.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AssetError {
    /// The file does not start with the expected magic bytes: it is not this kind of file at all.
    #[error("{what}: not a book-chat asset (bad magic bytes)")]
    BadMagic {
        /// Which file.
        what: &'static str,
    },
    /// The file was written by an incompatible version of the format.
    #[error(
        "{what}: format version {found} is not supported (this build reads version {supported})"
    )]
    UnsupportedVersion {
        /// Which file.
        what: &'static str,
        /// The version in the file.
        found: u32,
        /// The version this build reads.
        supported: u32,
    },
    /// The file ends before a field it declares.
    #[error("{what}: file is truncated (needed more bytes at offset {offset})")]
    Truncated {
        /// Which file.
        what: &'static str,
        /// Where the missing bytes start.
        offset: usize,
    },
    /// The stored content hash does not match the bytes: corrupted in transit or on disk.
    #[error("{what}: content hash mismatch (file is corrupt)")]
    HashMismatch {
        /// Which file.
        what: &'static str,
    },
    /// A float field holds NaN or an infinity.
    #[error("{what}: holds a NaN or infinite number")]
    NotFinite {
        /// Which file.
        what: &'static str,
    },
    /// Vector dimensions disagree between files (e.g. index built for another model).
    #[error("{what}: dimension mismatch (expected {expected}, found {found})")]
    DimensionMismatch {
        /// Which file.
        what: &'static str,
        /// The dimension of the other file (the encoder's).
        expected: usize,
        /// The dimension of this file.
        found: usize,
    },
    /// Two files belong to different builds or models.
    #[error("{what}: does not belong to this index ({reason})")]
    Mismatch {
        /// Which file.
        what: &'static str,
        /// What differs.
        reason: String,
    },
    /// Any other inconsistency, with the reason.
    #[error("{what}: corrupt ({reason})")]
    Corrupt {
        /// Which file.
        what: &'static str,
        /// What is wrong.
        reason: String,
    },
}

/// `e`, then each cause in turn, joined by ": ", leaving out a cause the line so far already ends
/// with: the one line an operator or author reads when something fails.
///
/// The convention for our errors: each names its direct cause in its own message (so a plain `{}`
/// still says what failed) and returns it as `source()` too, so the causes below it are not lost.
/// Third-party errors differ: `tokio_postgres` and `reqwest` say only what kind of thing failed
/// ("error connecting to server", "error sending request") and keep the reason ("Connection
/// refused") in their `source()`, which a plain `{}` never shows; rusqlite repeats its message in
/// its source; anyhow's `{:#}` prints a cause our message already named twice ("…: No such file or
/// directory (os error 2): No such file or directory (os error 2)"). Written here, where both
/// binaries find it (an `anyhow::Error` is passed as `e.as_ref()`).
pub fn error_line(e: &(dyn std::error::Error + 'static)) -> String {
    let mut line = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !line.ends_with(&text) {
            line.push_str(": ");
            line.push_str(&text);
        }
        cause = c.source();
    }
    line
}

#[cfg(test)]
mod tests {
    use super::error_line;

    /// An error that says only what kind of thing failed, its reason in `source()` (as
    /// `tokio_postgres::Error` does).
    #[derive(Debug, thiserror::Error)]
    #[error("error connecting to server")]
    struct Connect(#[source] std::io::Error);

    /// One of ours: the cause named in the message and returned as the source.
    #[derive(Debug, thiserror::Error)]
    #[error("feedback database: {0}")]
    struct Store(#[source] Connect);

    fn refused() -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "Connection refused")
    }

    #[test]
    fn a_reason_kept_only_in_the_source_is_shown() {
        assert_eq!(
            error_line(&Connect(refused())),
            "error connecting to server: Connection refused"
        );
    }

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        assert_eq!(
            error_line(&Store(Connect(refused()))),
            "feedback database: error connecting to server: Connection refused"
        );
    }
}

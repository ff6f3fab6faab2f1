//! The one error type of the asset loaders: every way a downloaded file can be unusable.

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

//! Errors (the book cannot be read) and warnings (a page was read, but something in it
//! looked wrong and a default was used instead).

use std::fmt;
use std::path::PathBuf;

/// Why a docs folder or a page could not be read at all.
///
/// Only problems that Docusaurus itself treats as fatal, or that leave nothing to read,
/// are errors; everything else becomes a [`Warning`] so one odd page does not stop a build.
#[derive(Debug, thiserror::Error)]
pub enum DocsError {
    /// The docs folder (or a file in it) could not be read from disk.
    #[error("{}: {source}", path.display())]
    Io {
        /// File or folder that failed.
        path: PathBuf,
        /// The underlying I/O error.
        source: std::io::Error,
    },
    /// The path given as the docs folder is not a folder.
    #[error("{}: not a directory", path.display())]
    NotADirectory {
        /// The path that was given.
        path: PathBuf,
    },
    /// Front matter `id` contains a slash; Docusaurus refuses such docs
    /// ("Document id cannot include slash").
    #[error("{path}:{line}: document id {id:?} cannot include a slash")]
    InvalidId {
        /// Page path relative to the docs folder.
        path: String,
        /// 1-based line of the `id:` key in the file.
        line: usize,
        /// The offending id.
        id: String,
    },
    /// The computed slug is not a valid URL path; Docusaurus refuses such docs
    /// ("We couldn't compute a valid slug for document").
    #[error("{path}:{line}: invalid slug {slug:?} (it must be a clean absolute URL path)")]
    InvalidSlug {
        /// Page path relative to the docs folder.
        path: String,
        /// 1-based line of the `slug:` key in the file, or 1 when the slug came from the path.
        line: usize,
        /// The computed slug.
        slug: String,
    },
}

/// Something odd in a page that did not stop it from being read.
///
/// Warnings are collected (never printed by this module) so the caller decides how loud to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Warning {
    /// Path relative to the docs folder, `/`-separated.
    pub path: String,
    /// 1-based line in the file, where known.
    pub line: Option<usize>,
    /// What was wrong and what was done about it.
    pub message: String,
}

impl Warning {
    pub(crate) fn new(path: &str, line: Option<usize>, message: impl Into<String>) -> Self {
        Self {
            path: path.to_string(),
            line,
            message: message.into(),
        }
    }
}

impl fmt::Display for Warning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{}: {}", self.path, line, self.message),
            None => write!(f, "{}: {}", self.path, self.message),
        }
    }
}

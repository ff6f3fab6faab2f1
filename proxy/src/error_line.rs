//! One line for an error and its causes, for the operator: what the proxy prints when it stops and
//! what it logs when a request fails.
//!
//! The convention for the proxy's errors: each names its direct cause in its own message (so a
//! plain `{}` still says what failed) and returns it as `source()` too, so the causes below it are
//! not lost. Third-party errors differ: `tokio_postgres` and `reqwest` say only what kind of thing
//! failed ("error connecting to server", "error sending request") and keep the reason ("Connection
//! refused") in their `source()`, which a plain `{}` never shows; rusqlite repeats its message in
//! its source. So every place that prints an error for the operator prints [`error_line`], which
//! walks the whole chain and skips a cause the line already ends with.

use std::error::Error;

/// `e`, then each cause in turn, joined by ": ", leaving out a cause the line so far already ends
/// with (the message named it).
pub fn error_line(e: &(dyn Error + 'static)) -> String {
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
        let io = std::io::Error::other("unable to open database file: x.db");
        let e = anyhow::Error::new(io).context("cannot listen");
        assert_eq!(
            error_line(e.as_ref()),
            "cannot listen: unable to open database file: x.db"
        );
    }
}

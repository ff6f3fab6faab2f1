//! What the reader sees when the proxy or the network fails, and what the widget does next.

use crate::sse::parse_error_body;

/// A failure of a request; `Display` is plain words for the reader (never the Debug form).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    /// No response at all (proxy down, offline, CORS).
    #[error("the server could not be reached")]
    Network(String),
    /// A non-2xx response.
    #[error("the server answered with error {status}")]
    Http {
        /// The HTTP status code.
        status: u16,
        /// The `Retry-After` header in seconds, when the response had a parseable one.
        retry_after: Option<u64>,
        /// The response body as text (the proxy's JSON error, read for its `code`); may be empty.
        body: String,
    },
    /// The body stopped before `[DONE]` (connection lost).
    #[error("the connection was lost")]
    StreamCut,
    /// The proxy sent `event: error` mid-stream.
    #[error("the assistant stopped with an error")]
    StreamError {
        /// The proxy's machine-readable error code, if it sent one.
        code: Option<String>,
        /// The proxy's message for the reader; may be empty.
        message: String,
    },
    /// The reader pressed Stop.
    #[error("stopped")]
    Aborted,
}

/// The widget's reaction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recovery {
    /// Show `message`; offer Retry when `retry` (the typed question is kept).
    Fail {
        /// What went wrong, in words for the reader.
        message: String,
        /// Whether the Retry button is offered.
        retry: bool,
    },
    /// Keep the partial answer, marked incomplete with `message`.
    KeepPartial {
        /// Why the answer is incomplete, shown under it.
        message: String,
    },
    /// Answer with book excerpts instead (no LLM upstream).
    Extractive,
}

/// Seconds to wait after a 429 when the proxy gave no `Retry-After`.
const DEFAULT_RETRY_SECS: u64 = 10;

/// Maps a failure to a reaction; `has_partial` tells whether some answer text already arrived.
pub fn recover(failure: &Failure, has_partial: bool) -> Recovery {
    let fail = |message: String, retry: bool| {
        if has_partial {
            Recovery::KeepPartial {
                message: format!("Incomplete answer: {message}"),
            }
        } else {
            Recovery::Fail { message, retry }
        }
    };
    match failure {
        Failure::Network(_) => fail(
            "Can't reach the assistant. Check your connection, then retry.".into(),
            true,
        ),
        Failure::Aborted => {
            if has_partial {
                Recovery::KeepPartial {
                    message: "Stopped.".into(),
                }
            } else {
                Recovery::Fail {
                    message: "Stopped.".into(),
                    retry: true,
                }
            }
        }
        Failure::StreamCut => fail(
            "the connection was lost before the answer finished.".into(),
            true,
        ),
        Failure::StreamError { message, .. } => {
            let m = if message.trim().is_empty() {
                "the assistant stopped with an error."
            } else {
                message.as_str()
            };
            fail(m.to_string(), true)
        }
        Failure::Http {
            status: 429,
            retry_after,
            body,
        } => {
            let secs = wait_secs(*retry_after, body);
            Recovery::Fail {
                message: format!(
                    "Too many questions right now: wait {secs} s, then press Retry."
                ),
                retry: true,
            }
        }
        Failure::Http {
            status: 409, body, ..
        } if error_code(body).as_deref() == Some("book_updated") => Recovery::Fail {
            message: "This book was updated since the page loaded; reload the page.".into(),
            retry: false,
        },
        Failure::Http {
            status: 400, body, ..
        } if error_code(body).as_deref() == Some("not_book_grounded") => Recovery::Fail {
            message: "The assistant only answers from this book's sections, and this request \
                      had none. Rephrase the question with words the book uses, or open the sources."
                .into(),
            retry: false,
        },
        Failure::Http {
            status: 503,
            retry_after,
            body,
        } if error_code(body).as_deref() == Some("budget_exhausted") => {
            let secs = wait_secs(*retry_after, body);
            fail(
                format!(
                    "The assistant has used its budget for now: wait {secs} s, then press Retry \
                     (the book's sections stay open to you meanwhile)."
                ),
                true,
            )
        }
        Failure::Http { status: 503, .. } if !has_partial => Recovery::Extractive,
        Failure::Http { status, body, .. } => {
            let detail = parse_error_body(body)
                .map(|(_, m)| m)
                .filter(|m| !m.trim().is_empty());
            let message = match (status, detail) {
                (400 | 413, Some(d)) => format!("The question could not be sent: {d}"),
                (400 | 413, None) => "The question could not be sent (too long?).".into(),
                (504, _) => "The assistant took too long to answer. Please retry.".into(),
                (_, Some(d)) => format!("The assistant failed: {d}"),
                (s, None) => format!("The assistant failed (error {s}). Please retry."),
            };
            fail(message, !matches!(status, 400 | 413))
        }
    }
}

/// The proxy's error code (`{"error":{"code":…}}`), if the body has one.
fn error_code(body: &str) -> Option<String> {
    parse_error_body(body).and_then(|(code, _)| code)
}

/// Seconds to wait: the `Retry-After` header, else the body's `error.retry_after`, else a default.
fn wait_secs(header: Option<u64>, body: &str) -> u64 {
    header
        .or_else(|| {
            #[derive(serde::Deserialize)]
            struct Envelope {
                error: Retry,
            }
            #[derive(serde::Deserialize)]
            struct Retry {
                retry_after: Option<u64>,
            }
            crate::json::from_str::<Envelope>(body)
                .ok()?
                .error
                .retry_after
        })
        .unwrap_or(DEFAULT_RETRY_SECS)
}

/// Parses a `Retry-After` header given in seconds (HTTP dates are rare from our proxy and ignored).
pub fn parse_retry_after(v: &str) -> Option<u64> {
    v.trim().parse::<u64>().ok().map(|s| s.min(3600))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_error_offers_retry() {
        let r = recover(&Failure::Network("TypeError".into()), false);
        assert!(
            matches!(r, Recovery::Fail { retry: true, ref message } if message.contains("connection"))
        );
    }

    #[test]
    fn cut_stream_keeps_partial() {
        assert!(matches!(
            recover(&Failure::StreamCut, true),
            Recovery::KeepPartial { .. }
        ));
        assert!(matches!(
            recover(&Failure::StreamCut, false),
            Recovery::Fail { retry: true, .. }
        ));
        let r = recover(
            &Failure::StreamError {
                code: None,
                message: "upstream dropped".into(),
            },
            true,
        );
        assert_eq!(
            r,
            Recovery::KeepPartial {
                message: "Incomplete answer: upstream dropped".into()
            }
        );
    }

    #[test]
    fn rate_limit_says_when() {
        let r = recover(
            &Failure::Http {
                status: 429,
                retry_after: Some(7),
                body: String::new(),
            },
            false,
        );
        assert_eq!(
            r,
            Recovery::Fail {
                message: "Too many questions right now: wait 7 s, then press Retry.".into(),
                retry: true
            }
        );
        let r = recover(
            &Failure::Http {
                status: 429,
                retry_after: None,
                body: String::new(),
            },
            false,
        );
        assert!(matches!(r, Recovery::Fail { ref message, .. } if message.contains("10 s")));
        assert_eq!(parse_retry_after(" 12 "), Some(12));
        assert_eq!(parse_retry_after("Wed, 21 Oct 2015"), None);
    }

    #[test]
    fn no_upstream_switches_to_extractive() {
        let body = "{\"error\":{\"code\":\"no_upstream\",\"message\":\"No LLM configured\"}}";
        let r = recover(
            &Failure::Http {
                status: 503,
                retry_after: None,
                body: body.into(),
            },
            false,
        );
        assert_eq!(r, Recovery::Extractive);
    }

    #[test]
    fn other_statuses_pass_message() {
        let body = "{\"error\":{\"code\":\"upstream\",\"message\":\"model overloaded\"}}";
        let r = recover(
            &Failure::Http {
                status: 502,
                retry_after: None,
                body: body.into(),
            },
            false,
        );
        assert_eq!(
            r,
            Recovery::Fail {
                message: "The assistant failed: model overloaded".into(),
                retry: true
            }
        );
        let r = recover(
            &Failure::Http {
                status: 413,
                retry_after: None,
                body: String::new(),
            },
            false,
        );
        assert!(matches!(r, Recovery::Fail { retry: false, .. }));
    }

    #[test]
    fn proxy_codes_in_plain_words() {
        let http = |status, retry_after, body: &str| Failure::Http {
            status,
            retry_after,
            body: body.into(),
        };
        let r = recover(
            &http(
                409,
                None,
                r#"{"error":{"code":"book_updated","message":"x"}}"#,
            ),
            false,
        );
        assert_eq!(
            r,
            Recovery::Fail {
                message: "This book was updated since the page loaded; reload the page.".into(),
                retry: false
            }
        );
        let r = recover(
            &http(
                400,
                None,
                r#"{"error":{"code":"not_book_grounded","message":"x"}}"#,
            ),
            false,
        );
        assert!(
            matches!(r, Recovery::Fail { retry: false, ref message } if message.contains("sources"))
        );
        let r = recover(
            &http(
                503,
                Some(42),
                r#"{"error":{"code":"budget_exhausted","message":"x"}}"#,
            ),
            false,
        );
        assert!(
            matches!(r, Recovery::Fail { retry: true, ref message } if message.contains("42 s"))
        );
        let r = recover(
            &http(
                429,
                None,
                r#"{"error":{"code":"rate_limited","retry_after":9}}"#,
            ),
            false,
        );
        assert!(matches!(r, Recovery::Fail { ref message, .. } if message.contains("9 s")));
        // Display never shows the Debug form.
        let shown = http(404, None, "").to_string();
        assert!(!shown.contains('{') && shown.contains("404"), "{shown}");
    }

    #[test]
    fn stop_keeps_what_arrived() {
        assert_eq!(
            recover(&Failure::Aborted, true),
            Recovery::KeepPartial {
                message: "Stopped.".into()
            }
        );
    }
}

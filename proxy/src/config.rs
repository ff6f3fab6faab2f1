//! The proxy's validated run-time configuration.
//!
//! `cli.rs` turns flags and environment variables into a [`Config`]; tests build one directly.
//! Every field here has already been checked, so the server never has to re-validate it.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use url::Url;

/// The upstream's API key. It exists as its own type so that it can never be printed by
/// accident: `Debug` is redacted and there is deliberately no `Display`.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; an empty string is not a key.
    pub fn new(key: impl Into<String>) -> Option<Self> {
        let key = key.into();
        if key.trim().is_empty() {
            None
        } else {
            Some(Self(key))
        }
    }

    /// The secret itself, for the one place that needs it: the `Authorization` header.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// Where chat requests go and as which model.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// `{LLM_BASE_URL}/chat/completions`; never contains credentials (rejected at start-up).
    pub chat_url: Url,
    /// Sent as `Authorization: Bearer …` when present (Ollama and llama.cpp need none).
    pub api_key: Option<ApiKey>,
    /// The model name the proxy always sends; clients cannot choose it.
    pub model: String,
}

/// Generation settings the proxy imposes on every request.
#[derive(Debug, Clone, Copy)]
pub struct Generation {
    /// Cap on `max_tokens` sent upstream.
    pub max_tokens: u32,
    /// Sampling temperature sent upstream.
    pub temperature: f32,
}

/// Per-client token bucket: `capacity` requests at once, refilled at `per_minute`.
#[derive(Debug, Clone, Copy)]
pub struct RateLimit {
    /// Bucket size (the burst a client may send at once).
    pub capacity: u32,
    /// Tokens added back per minute.
    pub per_minute: u32,
}

/// The three upstream timeouts.
#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// TCP/TLS connect to the upstream.
    pub connect: Duration,
    /// Streaming: until the upstream's first body chunk, and the longest silence between chunks.
    pub first_byte: Duration,
    /// Whole request, from the proxy sending it to the last byte of the answer.
    pub total: Duration,
}

/// Size limits on what a client may send.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest accepted request body, in bytes.
    pub max_body_bytes: usize,
    /// Most messages in one chat request.
    pub max_messages: usize,
    /// Longest message content, in characters.
    pub max_message_chars: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 64 * 1024,
            max_messages: 40,
            max_message_chars: 16_000,
        }
    }
}

/// Everything `serve` needs to know, already validated.
#[derive(Debug, Clone)]
pub struct Config {
    /// `None` means "no model": `/api/chat` answers 503 and the widget falls back to extracts.
    pub upstream: Option<UpstreamConfig>,
    /// Model settings imposed on every request.
    pub generation: Generation,
    /// Origins (`scheme://host[:port]`) allowed to call the API cross-origin.
    pub allowed_origins: Vec<String>,
    /// Per-client-IP token bucket.
    pub rate_limit: RateLimit,
    /// Most chat requests handled at once, across all clients.
    pub max_concurrent: usize,
    /// Upstream timeouts.
    pub timeouts: Timeouts,
    /// Request size limits.
    pub limits: Limits,
    /// SQLite file for feedback; `None` turns `/api/feedback` off.
    pub db: Option<PathBuf>,
    /// Store the text of questions sent with feedback (off by default, for privacy).
    pub store_questions: bool,
    /// A static folder (the built book) served at `/`.
    pub site: Option<PathBuf>,
    /// How long in-flight streams may run on after a shutdown signal.
    pub shutdown_grace: Duration,
    /// Where the book's index is read from (required when a model is configured).
    pub index: Vec<crate::book::IndexLocation>,
    /// How often the index manifests' modification times are checked for a rebuilt book.
    pub book_reload_interval: Duration,
    /// Global request and token budgets.
    pub budget: crate::budget::BudgetConfig,
    /// Reverse proxies trusted to name the client in `Forwarded` / `X-Forwarded-For`.
    pub trusted_proxies: crate::client_ip::TrustedProxies,
    /// Bearer token for `GET /api/report` (redacted in `Debug`); unset: no report endpoint.
    pub report_token: Option<ApiKey>,
}

impl Default for Config {
    fn default() -> Self {
        Self {
            upstream: None,
            generation: Generation {
                max_tokens: 1024,
                temperature: 0.2,
            },
            allowed_origins: Vec::new(),
            rate_limit: RateLimit {
                capacity: 20,
                per_minute: 10,
            },
            max_concurrent: 64,
            timeouts: Timeouts {
                connect: Duration::from_secs(5),
                first_byte: Duration::from_secs(60),
                total: Duration::from_secs(300),
            },
            limits: Limits::default(),
            db: None,
            store_questions: false,
            site: None,
            shutdown_grace: Duration::from_secs(10),
            index: Vec::new(),
            book_reload_interval: Duration::from_secs(10),
            budget: crate::budget::BudgetConfig::default(),
            trusted_proxies: crate::client_ip::TrustedProxies::default(),
            report_token: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn api_key_debug_is_redacted_everywhere() {
        let key = ApiKey::new("sk-very-secret-123456").unwrap();
        let cfg = Config {
            upstream: Some(UpstreamConfig {
                chat_url: Url::parse("http://127.0.0.1:1/v1/chat/completions").unwrap(),
                api_key: Some(key.clone()),
                model: "m".into(),
            }),
            ..Config::default()
        };
        let dbg = format!("{key:?} {cfg:?} {cfg:#?}");
        assert!(!dbg.contains("very-secret"), "{dbg}");
        assert!(dbg.contains("<redacted>"));
        assert_eq!(key.expose(), "sk-very-secret-123456");
    }

    #[test]
    fn blank_key_is_no_key() {
        assert!(ApiKey::new("  ").is_none());
        assert!(ApiKey::new("").is_none());
    }
}

//! Command-line flags and environment variables, and their checking into a [`Config`].
//!
//! Lives in the library (not `main.rs`) so that tests can check parsing and redaction.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::{Args, Parser, Subcommand};
use url::Url;

use crate::book::IndexLocation;
use crate::budget::BudgetConfig;
use crate::client_ip::TrustedProxies;
use crate::config::{ApiKey, Config, Generation, Limits, RateLimit, Timeouts, UpstreamConfig};

/// The proxy's command line. With no subcommand it serves.
#[derive(Debug, Parser)]
#[command(
    name = "proxy",
    version,
    about = "Thin proxy between the book's chat widget and one OpenAI-compatible LLM.",
    long_about = "Thin proxy between the book's chat widget and one OpenAI-compatible LLM \
(OpenAI, Ollama, llama.cpp server, vLLM, ...). It holds the API key, imposes the model, \
max_tokens and temperature, streams answers back, stores feedback, and can serve the built book.\n\n\
Every flag can also be given by the environment variable shown.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    /// What to do; serving is the default.
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Flags for serving.
    #[command(flatten)]
    pub serve: ServeArgs,
}

/// Subcommands other than serving.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Print the questions most often refused or rated down (what the book should cover next).
    Report(ReportArgs),
}

/// Flags of `proxy report`.
#[derive(Debug, Args)]
pub struct ReportArgs {
    /// The feedback store the proxy's --db names: a SQLite file or a postgres:// URL.
    #[arg(long, env = "PROXY_DB", value_name = "PATH")]
    pub db: PathBuf,
    /// How many questions to list.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub limit: u32,
}

/// Flags for serving.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on (use 0.0.0.0 only behind a firewall or TLS terminator).
    #[arg(
        long,
        env = "PROXY_LISTEN",
        default_value = "127.0.0.1:8080",
        value_name = "ADDR:PORT"
    )]
    pub listen: SocketAddr,

    /// OpenAI-compatible base URL, e.g. http://127.0.0.1:11434/v1 (Ollama) or https://api.openai.com/v1.
    /// The proxy POSTs to {base}/chat/completions. Unset: no model; /api/chat answers 503.
    #[arg(long, env = "LLM_BASE_URL", value_name = "URL")]
    pub llm_base_url: Option<String>,

    /// API key sent upstream as "Authorization: Bearer KEY". Prefer the environment variable
    /// (flags show in `ps`). Never logged or echoed.
    #[arg(long, env = "LLM_API_KEY", hide_env_values = true, value_name = "KEY", value_parser = parse_key)]
    pub llm_api_key: Option<SecretArg>,

    /// Model name sent upstream (required with --llm-base-url); clients cannot override it.
    #[arg(long, env = "LLM_MODEL", value_name = "NAME")]
    pub llm_model: Option<String>,

    /// Cap on max_tokens sent upstream.
    #[arg(long, env = "PROXY_MAX_TOKENS", default_value_t = 1024, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_tokens: u32,

    /// Sampling temperature sent upstream (0 to 2).
    #[arg(long, env = "PROXY_TEMPERATURE", default_value_t = 0.2, value_name = "T", value_parser = parse_temperature)]
    pub temperature: f32,

    /// Comma-separated origins allowed to call the API from a browser, e.g.
    /// https://book.example.org,http://localhost:3000. The proxy's own origin is always allowed.
    #[arg(
        long,
        env = "PROXY_ALLOWED_ORIGINS",
        value_delimiter = ',',
        value_name = "ORIGINS"
    )]
    pub allowed_origins: Vec<String>,

    /// Per-client (IP) token bucket: requests a client may send in a burst.
    #[arg(long, env = "PROXY_RATE_CAPACITY", default_value_t = 20, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_capacity: u32,

    /// Per-client token bucket: tokens added back per minute.
    #[arg(long, env = "PROXY_RATE_PER_MINUTE", default_value_t = 10, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..))]
    pub rate_per_minute: u32,

    /// Most chat requests in flight at once across all clients; beyond it: 503 "overloaded"
    /// with Retry-After.
    #[arg(long, env = "PROXY_MAX_CONCURRENT", default_value_t = 64, value_name = "N",
          value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_concurrent: u32,

    /// Upstream connect timeout (e.g. 5s, 500ms).
    #[arg(long, env = "PROXY_CONNECT_TIMEOUT", default_value = "5s", value_name = "DURATION", value_parser = parse_duration)]
    pub connect_timeout: Duration,

    /// Streaming: longest wait for the upstream's first byte, and longest silence between chunks.
    /// Before the first byte it gives 504; after, an error event ends the stream.
    #[arg(long, env = "PROXY_FIRST_BYTE_TIMEOUT", default_value = "60s", value_name = "DURATION", value_parser = parse_duration)]
    pub first_byte_timeout: Duration,

    /// Longest a whole answer may take.
    #[arg(long, env = "PROXY_TOTAL_TIMEOUT", default_value = "300s", value_name = "DURATION", value_parser = parse_duration)]
    pub total_timeout: Duration,

    /// On SIGINT/SIGTERM, how long in-flight answers may go on before they are ended.
    #[arg(long, env = "PROXY_SHUTDOWN_GRACE", default_value = "10s", value_name = "DURATION", value_parser = parse_duration)]
    pub shutdown_grace: Duration,

    /// Feedback store: a SQLite file (created on start, WAL mode) or a PostgreSQL URL
    /// (postgres://user:pass@host/db, table created on start; for several instances).
    /// Unset: /api/feedback answers 503.
    #[arg(long, env = "PROXY_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,

    /// Store the text of questions sent with feedback (needed by `proxy report`). Off by
    /// default: without it no question text or hash is stored.
    #[arg(long, env = "PROXY_STORE_QUESTIONS")]
    pub store_questions: bool,

    /// Serve this folder (the built book) at / on the same port. Its book indexes (every folder
    /// with a valid index manifest.json) are also what chat requests are checked against.
    #[arg(long, env = "PROXY_SITE", value_name = "DIR")]
    pub site: Option<PathBuf>,

    /// A book index folder (holding manifest.json) to check chat requests against; repeatable.
    /// Needed with --llm-base-url unless --site holds the index.
    #[arg(long, env = "PROXY_INDEX", value_delimiter = ',', value_name = "DIR")]
    pub index: Vec<PathBuf>,

    /// URL of a book index folder (holding manifest.json), e.g. https://book.example.org/book-chat/;
    /// downloaded at start and on SIGHUP. Repeatable.
    #[arg(
        long,
        env = "PROXY_INDEX_URL",
        value_delimiter = ',',
        value_name = "URL"
    )]
    pub index_url: Vec<String>,

    /// Reverse proxies (CIDR or address, comma-separated) whose Forwarded / X-Forwarded-For
    /// headers name the client; the headers are read from the right and ignored from anyone else.
    /// Unset: the TCP peer is the client.
    #[arg(
        long,
        env = "PROXY_TRUSTED_PROXIES",
        value_delimiter = ',',
        value_name = "CIDR,..."
    )]
    pub trusted_proxies: Vec<String>,

    /// Global budget: chat requests per minute over all clients (429 beyond it). Unset: unlimited.
    #[arg(long, env = "PROXY_BUDGET_REQUESTS_PER_MINUTE", value_name = "N")]
    pub budget_requests_per_minute: Option<u64>,

    /// Global budget: chat requests per UTC day (503 beyond it). Unset: unlimited.
    #[arg(long, env = "PROXY_BUDGET_REQUESTS_PER_DAY", value_name = "N")]
    pub budget_requests_per_day: Option<u64>,

    /// Global budget: upstream tokens per minute (from the streamed usage, else estimated; 429 beyond it).
    #[arg(long, env = "PROXY_BUDGET_TOKENS_PER_MINUTE", value_name = "N")]
    pub budget_tokens_per_minute: Option<u64>,

    /// Global budget: upstream tokens per UTC day (503 beyond it).
    #[arg(long, env = "PROXY_BUDGET_TOKENS_PER_DAY", value_name = "N")]
    pub budget_tokens_per_day: Option<u64>,

    /// Bearer token that opens GET /api/report (HTML, or ?format=json). Unset: the endpoint does
    /// not exist. Use the environment variable; never logged.
    #[arg(long, env = "PROXY_REPORT_TOKEN", hide_env_values = true, value_name = "TOKEN", value_parser = parse_key)]
    pub report_token: Option<SecretArg>,

    /// How often index manifests on disk are checked for a rebuilt book (modification time).
    #[arg(long, env = "PROXY_BOOK_RELOAD_INTERVAL", default_value = "10s", value_name = "DURATION", value_parser = parse_duration)]
    pub book_reload_interval: Duration,
}

/// A clap-parsed secret; wraps [`ApiKey`] so clap's own `Debug` of the arguments stays redacted.
#[derive(Debug, Clone)]
pub struct SecretArg(pub Option<ApiKey>);

/// Never fails, so clap never echoes the value in an error.
fn parse_key(s: &str) -> Result<SecretArg, String> {
    Ok(SecretArg(ApiKey::new(s)))
}

fn parse_temperature(s: &str) -> Result<f32, String> {
    let t: f32 = s.trim().parse().map_err(|_| "not a number".to_string())?;
    if (0.0..=2.0).contains(&t) {
        Ok(t)
    } else {
        Err("must be between 0 and 2".into())
    }
}

fn parse_duration(s: &str) -> Result<Duration, String> {
    let d = humantime::parse_duration(s.trim())
        .map_err(|e| format!("{e} (write e.g. 5s, 500ms, 2m)"))?;
    if d.is_zero() {
        Err("must be more than zero".into())
    } else {
        Ok(d)
    }
}

/// A start-up problem, shown to the operator as one line.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ConfigError(String);

impl ServeArgs {
    /// Checks what clap could not (URLs, origins, folders, the key's characters) and builds
    /// the [`Config`].
    pub fn into_config(self) -> Result<Config, ConfigError> {
        let upstream = match self.llm_base_url.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(base) => {
                let chat_url = chat_url(base)?;
                let model = self
                    .llm_model
                    .as_deref()
                    .map(str::trim)
                    .filter(|m| !m.is_empty())
                    .ok_or_else(|| {
                        ConfigError(
                            "LLM_MODEL (--llm-model) is required when LLM_BASE_URL is set".into(),
                        )
                    })?
                    .to_string();
                let api_key = self.llm_api_key.and_then(|k| k.0);
                if let Some(key) = &api_key {
                    let header = format!("Bearer {}", key.expose());
                    if reqwest::header::HeaderValue::from_str(&header).is_err() {
                        return Err(ConfigError(
                            "LLM_API_KEY contains characters not allowed in an HTTP header".into(),
                        ));
                    }
                }
                Some(UpstreamConfig {
                    chat_url,
                    api_key,
                    model,
                })
            }
        };
        let allowed_origins = self
            .allowed_origins
            .iter()
            .map(|o| o.trim())
            .filter(|o| !o.is_empty())
            .map(normalize_origin)
            .collect::<Result<Vec<_>, _>>()?;
        if let Some(site) = &self.site {
            if !site.is_dir() {
                return Err(ConfigError(format!(
                    "--site {}: not a directory",
                    site.display()
                )));
            }
        }
        let mut index = Vec::new();
        for dir in &self.index {
            if !dir.join("manifest.json").is_file() {
                return Err(ConfigError(format!(
                    "--index {}: no manifest.json there",
                    dir.display()
                )));
            }
            index.push(IndexLocation::Dir(dir.clone()));
        }
        for u in &self.index_url {
            let url =
                Url::parse(u.trim()).map_err(|e| ConfigError(format!("--index-url {u}: {e}")))?;
            if !matches!(url.scheme(), "http" | "https") {
                return Err(ConfigError(format!(
                    "--index-url {u}: must be http or https"
                )));
            }
            index.push(IndexLocation::Url(url));
        }
        if let Some(site) = &self.site {
            if index.is_empty() {
                index.push(IndexLocation::Site(site.clone()));
            }
        }
        if upstream.is_some() && index.is_empty() {
            return Err(ConfigError(
                "a model is configured but no book index to check requests against: \
                 pass --site (with the built book), --index DIR or --index-url URL"
                    .into(),
            ));
        }
        if self.first_byte_timeout > self.total_timeout {
            return Err(ConfigError(
                "--first-byte-timeout must not be longer than --total-timeout".into(),
            ));
        }
        Ok(Config {
            upstream,
            generation: Generation {
                max_tokens: self.max_tokens,
                temperature: self.temperature,
            },
            allowed_origins,
            rate_limit: RateLimit {
                capacity: self.rate_capacity,
                per_minute: self.rate_per_minute,
            },
            max_concurrent: self.max_concurrent as usize,
            timeouts: Timeouts {
                connect: self.connect_timeout,
                first_byte: self.first_byte_timeout,
                total: self.total_timeout,
            },
            limits: Limits::default(),
            db: self.db,
            store_questions: self.store_questions,
            site: self.site,
            shutdown_grace: self.shutdown_grace,
            index,
            book_reload_interval: self.book_reload_interval,
            budget: BudgetConfig {
                requests_per_minute: self.budget_requests_per_minute,
                requests_per_day: self.budget_requests_per_day,
                tokens_per_minute: self.budget_tokens_per_minute,
                tokens_per_day: self.budget_tokens_per_day,
            },
            trusted_proxies: TrustedProxies::parse(&self.trusted_proxies).map_err(ConfigError)?,
            report_token: self.report_token.and_then(|k| k.0),
        })
    }
}

/// `{base}/chat/completions`, refusing URLs that would put secrets or surprises in logs.
fn chat_url(base: &str) -> Result<Url, ConfigError> {
    let url = Url::parse(base)
        .map_err(|e| ConfigError(format!("LLM_BASE_URL is not a valid URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(ConfigError(
            "LLM_BASE_URL must start with http:// or https://".into(),
        ));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(ConfigError(
            "LLM_BASE_URL must not contain credentials; put the key in LLM_API_KEY".into(),
        ));
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err(ConfigError(
            "LLM_BASE_URL must not have a query or fragment".into(),
        ));
    }
    let joined = format!("{}/chat/completions", url.as_str().trim_end_matches('/'));
    Url::parse(&joined).map_err(|e| ConfigError(format!("LLM_BASE_URL: {e}")))
}

/// `https://Book.example.org/` → `https://book.example.org`: the form browsers send in `Origin`.
pub fn normalize_origin(origin: &str) -> Result<String, ConfigError> {
    let bad = || {
        ConfigError(format!(
            "--allowed-origins: {origin:?} is not an origin like https://book.example.org"
        ))
    };
    let url = Url::parse(origin).map_err(|_| bad())?;
    if !matches!(url.scheme(), "http" | "https")
        || url.host_str().is_none()
        || url.path() != "/"
        || url.query().is_some()
        || !url.username().is_empty()
    {
        return Err(bad());
    }
    Ok(url.origin().ascii_serialization())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let mut v = vec!["proxy"];
        v.extend_from_slice(args);
        Cli::try_parse_from(v)
    }

    #[test]
    fn defaults_give_no_upstream() {
        let cli = parse(&[]).unwrap();
        assert!(cli.command.is_none());
        let cfg = cli.serve.into_config().unwrap();
        assert!(cfg.upstream.is_none());
        assert_eq!(cfg.generation.max_tokens, 1024);
    }

    #[test]
    fn full_upstream_config() {
        let book = crate::book::written::tiny_dir();
        let cli = parse(&[
            "--index",
            book.path().to_str().unwrap(),
            "--trusted-proxies",
            "10.0.0.0/8,::1",
            "--budget-tokens-per-day",
            "100000",
            "--llm-base-url",
            "http://127.0.0.1:11434/v1/",
            "--llm-model",
            "llama3",
            "--llm-api-key",
            "sk-secret-abcdef",
            "--allowed-origins",
            "https://Book.Example.org/,http://localhost:3000",
            "--first-byte-timeout",
            "500ms",
        ])
        .unwrap();
        let dbg = format!("{cli:?}");
        assert!(!dbg.contains("sk-secret"), "{dbg}");
        let cfg = cli.serve.into_config().unwrap();
        let up = cfg.upstream.as_ref().unwrap();
        assert_eq!(cfg.index.len(), 1);
        assert_eq!(cfg.budget.tokens_per_day, Some(100_000));
        assert!(!cfg.trusted_proxies.is_empty());
        assert_eq!(
            up.chat_url.as_str(),
            "http://127.0.0.1:11434/v1/chat/completions"
        );
        assert_eq!(up.api_key.as_ref().unwrap().expose(), "sk-secret-abcdef");
        assert_eq!(
            cfg.allowed_origins,
            vec!["https://book.example.org", "http://localhost:3000"]
        );
        assert_eq!(cfg.timeouts.first_byte, Duration::from_millis(500));
        assert!(!format!("{cfg:?}").contains("sk-secret"));
    }

    #[test]
    fn bad_values_are_rejected() {
        assert!(parse(&["--max-tokens", "0"]).is_err());
        assert!(parse(&["--max-tokens", "abc"]).is_err());
        assert!(parse(&["--temperature", "3"]).is_err());
        assert!(parse(&["--listen", "nowhere"]).is_err());
        assert!(parse(&["--total-timeout", "0s"]).is_err());
        assert!(parse(&["--rate-capacity", "0"]).is_err());
        let no_model = parse(&["--llm-base-url", "http://x/v1"])
            .unwrap()
            .serve
            .into_config();
        assert!(no_model.unwrap_err().to_string().contains("LLM_MODEL"));
        for url in [
            "ftp://x/v1",
            "http://u:p@x/v1",
            "not a url",
            "http://x/v1?a=b",
        ] {
            let r = parse(&["--llm-base-url", url, "--llm-model", "m"])
                .unwrap()
                .serve
                .into_config();
            assert!(r.is_err(), "{url} accepted");
        }
        for origin in ["*", "book.example.org", "https://x.org/path", "null"] {
            let r = parse(&["--allowed-origins", origin])
                .unwrap()
                .serve
                .into_config();
            assert!(r.is_err(), "{origin} accepted");
        }
        let r = parse(&["--site", "/definitely/not/here"])
            .unwrap()
            .serve
            .into_config();
        assert!(r.is_err());
    }

    #[test]
    fn key_with_newline_is_rejected_without_echo() {
        let err = parse(&[
            "--llm-base-url",
            "http://x/v1",
            "--llm-model",
            "m",
            "--llm-api-key",
            "ab\ncd-secret",
        ])
        .unwrap()
        .serve
        .into_config()
        .unwrap_err()
        .to_string();
        assert!(!err.contains("secret"), "{err}");
    }

    #[test]
    fn report_subcommand() {
        let cli = parse(&["report", "--db", "/tmp/x.db"]).unwrap();
        match cli.command {
            Some(Command::Report(r)) => {
                assert_eq!(r.db, PathBuf::from("/tmp/x.db"));
                assert_eq!(r.limit, 20);
            }
            None => panic!("no subcommand"),
        }
    }

    #[test]
    fn model_without_book_index_is_refused() {
        let cli = parse(&[
            "--llm-base-url",
            "http://127.0.0.1:1/v1",
            "--llm-model",
            "m",
        ])
        .unwrap();
        let err = cli.serve.into_config().unwrap_err().to_string();
        assert!(err.contains("--index"), "{err}");
        let cli = parse(&["--trusted-proxies", "10.0.0.0/99"]).unwrap();
        assert!(cli.serve.into_config().is_err());
    }
}

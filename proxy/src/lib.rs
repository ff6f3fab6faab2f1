//! The thin LLM proxy between the book's chat widget and one OpenAI-compatible upstream.
//!
//! The widget builds the grounded prompt in the browser with the shared `book_prompt` crate; this
//! server holds the key, relays only prompts the widget could have built for this book
//! ([`guard`]), imposes the model settings, enforces limits, streams answers back, stores
//! feedback and can serve the built book. [`serve`] runs it on a listener until a shutdown future fires,
//! so tests can start it on `127.0.0.1:0`.
#![warn(missing_docs)]

pub mod book;
pub mod budget;
pub mod chat;
pub mod cli;
pub mod client_ip;
pub mod config;
pub mod error;
pub mod feedback;
pub mod guard;
pub mod origin;
pub mod pgstore;
pub mod ratelimit;
pub mod report;
pub mod scrub;
pub mod site;
pub mod sse;
pub mod stub;
pub mod tls;
pub mod upstream;

use std::future::{Future, IntoFuture};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::{Json, Router};
use serde_json::json;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;
use tower_http::trace::{DefaultMakeSpan, DefaultOnResponse, TraceLayer};
use tracing::Level;

use book_retrieval::error::error_line;
pub use config::Config;
use error::ApiError;
use feedback::FeedbackStore;
use ratelimit::ClientLimiter;
use upstream::Upstream;

/// How long after the grace period the server waits for streams to write their last event.
const FINAL_DRAIN: Duration = Duration::from_secs(2);

/// State shared by the handlers.
#[derive(Debug)]
pub struct AppState {
    /// The upstream client, if configured.
    pub upstream: Option<Upstream>,
    /// Model settings imposed on every request.
    pub generation: config::Generation,
    /// Request limits.
    pub limits: config::Limits,
    /// Per-client rate limiter.
    pub limiter: ClientLimiter,
    /// Global concurrency cap on chat requests.
    pub concurrency: Arc<Semaphore>,
    /// Fired when the shutdown grace period is over: streams end with an error event.
    pub hard_stop: CancellationToken,
    /// Feedback store, if `--db` is set.
    pub feedback: Option<FeedbackStore>,
    /// The book-grounding check every chat request passes before the upstream.
    pub guard: guard::Guard,
    /// The global request and token budget.
    pub budget: Arc<budget::Budget>,
    /// Reverse proxies whose forwarding headers name the client.
    pub trusted_proxies: client_ip::TrustedProxies,
    /// The bearer token of `GET /api/report`; `None`: the endpoint does not exist.
    pub report_token: Option<String>,
}

/// Why the server could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The feedback database could not be opened or created.
    #[error(transparent)]
    Store(#[from] feedback::StoreError),
    /// The HTTP client could not be built.
    #[error("building the upstream client: {0}")]
    Client(#[from] reqwest::Error),
    /// Accepting or serving failed.
    #[error("serving: {0}")]
    Io(#[from] std::io::Error),
    /// The book index could not be loaded.
    #[error(transparent)]
    Book(#[from] book::BookError),
    /// A model is configured but no book index to check requests against.
    #[error(
        "a language model is configured but no book index: pass --site, --index or --index-url"
    )]
    NoBook,
}

/// Builds the shared state (loads the book index, opens the feedback database, builds the HTTP client).
pub async fn build_state(
    config: &Config,
    hard_stop: CancellationToken,
) -> Result<AppState, ServeError> {
    if config.upstream.is_some() && config.index.is_empty() {
        return Err(ServeError::NoBook);
    }
    let books = book::load_all(&index_client()?, &config.index).await?;
    for b in &books {
        tracing::info!(content_id = %b.content_id, chunks = b.chunks.len(), "book index loaded");
    }
    let upstream = match &config.upstream {
        Some(u) => Some(Upstream::new(u.clone(), config.timeouts)?),
        None => None,
    };
    let feedback = match &config.db {
        Some(path) => Some(FeedbackStore::open_any(path, config.store_questions).await?),
        None => None,
    };
    Ok(AppState {
        upstream,
        generation: config.generation,
        limits: config.limits,
        limiter: ClientLimiter::new(config.rate_limit),
        concurrency: Arc::new(Semaphore::new(config.max_concurrent.max(1))),
        hard_stop,
        feedback,
        guard: guard::Guard::new(books),
        budget: Arc::new(budget::Budget::new(config.budget)),
        trusted_proxies: config.trusted_proxies.clone(),
        report_token: config.report_token.as_ref().map(|t| t.expose().to_string()),
    })
}

/// The client that downloads `--index-url` indexes.
fn index_client() -> Result<reqwest::Client, reqwest::Error> {
    tls::install_crypto_provider();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
}

/// Re-reads the book indexes; on failure the loaded ones stay in use.
pub async fn reload_books(config: &Config, state: &AppState) {
    let client = match index_client() {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %error_line(&e), "book reload: no HTTP client");
            return;
        }
    };
    match book::load_all(&client, &config.index).await {
        Ok(books) => {
            let ids: Vec<String> = books.iter().map(|b| b.content_id.clone()).collect();
            state.guard.replace(books);
            tracing::info!(content_ids = ?ids, "book index reloaded");
        }
        Err(e) => tracing::warn!(
            error = %error_line(&e),
            "book reload failed; keeping the loaded index"
        ),
    }
}

/// The whole application: `/api/*` plus, with `--site`, the book at `/`.
pub fn router(config: &Config, state: Arc<AppState>) -> Router {
    let origins = Arc::new(config.allowed_origins.clone());
    let api = Router::new()
        .route("/chat", post(chat::chat))
        .route("/feedback", post(feedback::feedback))
        .route("/health", get(health))
        .route("/report", get(report::http::report))
        .fallback(|| async { ApiError::not_found() })
        .method_not_allowed_fallback(|| async { ApiError::method_not_allowed() })
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(
            origins,
            origin::check_origin,
        ))
        .layer(origin::cors_layer(&config.allowed_origins));
    let app = Router::new().nest("/api", api);
    let app = match &config.site {
        Some(dir) => app.merge(site::router(dir)),
        None => app.fallback(|| async { ApiError::not_found() }),
    };
    app.layer(
        TraceLayer::new_for_http()
            .make_span_with(DefaultMakeSpan::new().level(Level::INFO))
            .on_response(DefaultOnResponse::new().level(Level::INFO)),
    )
}

async fn health(State(state): State<Arc<AppState>>) -> Json<serde_json::Value> {
    Json(json!({
        "upstream": if state.upstream.is_some() { "configured" } else { "none" },
        "model": state.upstream.as_ref().map(|u| u.model()),
        "feedback": state.feedback.is_some(),
        "budget": state.budget.status(),
        "book": {
            "content_ids": state.guard.library().content_ids(),
            "chunks": state.guard.library().chunk_count(),
        },
    }))
}

/// Serves on `listener` until `shutdown` resolves, then shuts down gracefully: stops
/// accepting, lets in-flight answers finish for `config.shutdown_grace`, then ends the
/// remaining streams with a `shutting_down` error event.
pub async fn serve(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServeError> {
    Server::prepare(config).await?.run(listener, shutdown).await
}

/// A server whose state is built (database open, client ready) but not yet listening, so
/// `main` can report start-up failures before printing its start line.
#[derive(Debug)]
pub struct Server {
    config: Config,
    state: Arc<AppState>,
    hard_stop: CancellationToken,
}

impl Server {
    /// Loads the book index, opens the feedback database and builds the upstream client.
    pub async fn prepare(config: Config) -> Result<Self, ServeError> {
        let hard_stop = CancellationToken::new();
        let state = Arc::new(build_state(&config, hard_stop.clone()).await?);
        Ok(Self {
            config,
            state,
            hard_stop,
        })
    }

    /// Serves until `shutdown` resolves (see [`serve`]).
    pub async fn run(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let Self {
            config,
            state,
            hard_stop,
        } = self;
        let app = router(&config, state.clone());

        let graceful = CancellationToken::new();
        let pruner = {
            let state = state.clone();
            let graceful = graceful.clone();
            tokio::spawn(async move {
                let mut tick = tokio::time::interval(Duration::from_secs(60));
                loop {
                    tokio::select! {
                        _ = graceful.cancelled() => break,
                        _ = tick.tick() => state.limiter.prune(),
                    }
                }
            })
        };
        let reloader = tokio::spawn(watch_books(config.clone(), state.clone(), graceful.clone()));

        // SSE writes are small: without TCP_NODELAY, Nagle's algorithm can hold them back.
        let listener = listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "could not set TCP_NODELAY");
            }
        });
        let server = axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .with_graceful_shutdown(graceful.clone().cancelled_owned());
        let mut server = Box::pin(server.into_future());

        let result = tokio::select! {
            r = &mut server => r,
            _ = shutdown => {
                tracing::info!("shutting down: no new connections; letting answers finish");
                graceful.cancel();
                tokio::select! {
                    r = &mut server => r,
                    _ = tokio::time::sleep(config.shutdown_grace) => {
                        tracing::warn!("grace period over: ending the remaining streams");
                        hard_stop.cancel();
                        match tokio::time::timeout(FINAL_DRAIN, &mut server).await {
                            Ok(r) => r,
                            Err(_) => {
                                tracing::warn!("connections still open after the drain; closing them");
                                Ok(())
                            }
                        }
                    }
                }
            }
        };
        graceful.cancel();
        pruner.abort();
        reloader.abort();
        result.map_err(ServeError::Io)
    }
}

/// Reloads the book indexes when a `manifest.json` under `--index`/`--site` changes (its
/// modification time, checked every `config.book_reload_interval`) and on SIGHUP (which also
/// re-downloads `--index-url`).
async fn watch_books(config: Config, state: Arc<AppState>, stop: CancellationToken) {
    let mut stamps = book::manifest_stamps(&config.index);
    let mut tick = tokio::time::interval(config.book_reload_interval);
    tick.tick().await;
    #[cfg(unix)]
    let mut hup = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup()).ok();
    loop {
        #[cfg(unix)]
        let hangup = async {
            match hup.as_mut() {
                Some(h) => {
                    h.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        #[cfg(not(unix))]
        let hangup = std::future::pending::<()>();
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = hangup => {
                tracing::info!("SIGHUP: reloading the book index");
                reload_books(&config, &state).await;
                stamps = book::manifest_stamps(&config.index);
            }
            _ = tick.tick() => {
                let now = book::manifest_stamps(&config.index);
                if now != stamps {
                    reload_books(&config, &state).await;
                    stamps = now;
                }
            }
        }
    }
}

/// A future that resolves on SIGINT or SIGTERM (Ctrl-C only on non-Unix).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! { _ = ctrl_c => {}, _ = term => {} }
    }
    #[cfg(not(unix))]
    ctrl_c.await;
}

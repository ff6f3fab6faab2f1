//! A stub OpenAI-compatible upstream for tests, the browser end-to-end tests and the load
//! benchmark (`stub-upstream` binary). It speaks `POST /v1/chat/completions` (streaming and
//! not) and misbehaves on purpose according to a [`Scenario`]. The scenario can also be picked
//! per request by path: `POST /{scenario}/v1/chat/completions`.
//!
//! Every request is recorded (path, `Authorization` header, JSON body) in memory and, with a
//! record file, appended to it as one JSON line.

use std::fs::OpenOptions;
use std::io::Write as _;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::str::FromStr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use axum::{Json, Router};
use futures_util::stream::{self, StreamExt};
use serde::Serialize;
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// How the stub answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scenario {
    /// A normal streamed answer ("Hello, world!") ending in `[DONE]`.
    Ok,
    /// Like `Ok`, with `delay` before every chunk after the first.
    Slow,
    /// 500 with an OpenAI-style error whose message echoes the received Authorization header
    /// (so tests can check the proxy scrubs it).
    Error500,
    /// 429 with `Retry-After: 7`.
    RateLimited,
    /// Accepts the request and never answers.
    Hang,
    /// Sends the first chunk, then nothing, forever.
    Stall,
    /// Sends two chunks, then breaks the connection.
    Drop,
    /// Sends one chunk, then a `data:` line that is not JSON, then more.
    Malformed,
    /// A normal answer that ends without `[DONE]`.
    NoDone,
    /// One chunk, then an in-band `data: {"error": ...}`.
    ErrorEvent,
    /// A normal answer made of [`CITE_ANSWER`], which cites sources [1] and [2] (the browser
    /// tests need an answer with citations: the widget lists only the sources an answer cites).
    Cite,
}

/// The chunks of the `cite` scenario's answer (the browser tests read them with
/// `stub-upstream --print-cite-answer`, so this is their only definition).
pub const CITE_ANSWER: [&str; 5] = [
    "According to the book, ",
    "this is explained in the ",
    "section cited here [1]. ",
    "It describes the idea ",
    "step by step, with an example [2].",
];

impl Scenario {
    /// All names accepted by `--scenario` and in paths.
    pub const NAMES: &'static str =
        "ok, slow, error500, ratelimit429, hang, stall, drop, malformed, no-done, error-event, cite";
}

impl FromStr for Scenario {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "ok" => Self::Ok,
            "slow" => Self::Slow,
            "error500" | "500" => Self::Error500,
            "ratelimit429" | "429" => Self::RateLimited,
            "hang" => Self::Hang,
            "stall" => Self::Stall,
            "drop" => Self::Drop,
            "malformed" => Self::Malformed,
            "no-done" => Self::NoDone,
            "error-event" => Self::ErrorEvent,
            "cite" => Self::Cite,
            other => {
                return Err(format!(
                    "unknown scenario {other:?}; one of: {}",
                    Self::NAMES
                ))
            }
        })
    }
}

/// The stub's settings.
#[derive(Debug, Clone)]
pub struct StubConfig {
    /// Default scenario (for `/v1/chat/completions`).
    pub scenario: Scenario,
    /// Pause before each chunk after the first (slow scenario; 0 elsewhere unless set).
    pub delay: Duration,
    /// Number of content chunks; 0 gives the four of "Hello, world!".
    pub tokens: usize,
    /// Append every request to this JSONL file.
    pub record: Option<PathBuf>,
}

impl Default for StubConfig {
    fn default() -> Self {
        Self {
            scenario: Scenario::Ok,
            delay: Duration::ZERO,
            tokens: 0,
            record: None,
        }
    }
}

/// One request as the stub received it.
#[derive(Debug, Clone, Serialize)]
pub struct Recorded {
    /// Request path.
    pub path: String,
    /// The `Authorization` header, verbatim.
    pub authorization: Option<String>,
    /// The JSON body (`null` if it was not JSON).
    pub body: Value,
}

/// Requests received so far.
pub type Records = Arc<Mutex<Vec<Recorded>>>;

struct StubState {
    cfg: StubConfig,
    records: Records,
}

/// A running stub.
#[derive(Debug)]
pub struct StubHandle {
    /// Where it listens.
    pub addr: SocketAddr,
    /// What it received.
    pub records: Records,
    task: tokio::task::JoinHandle<()>,
}

impl StubHandle {
    /// The base URL to give the proxy as `LLM_BASE_URL`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// A copy of the requests received so far.
    pub fn recorded(&self) -> Vec<Recorded> {
        self.records.lock().map(|r| r.clone()).unwrap_or_default()
    }
}

impl Drop for StubHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts a stub on `127.0.0.1:0` in the current runtime.
pub async fn spawn(cfg: StubConfig) -> std::io::Result<StubHandle> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let records: Records = Arc::default();
    let app = router(cfg, records.clone());
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(StubHandle {
        addr,
        records,
        task,
    })
}

/// The stub's routes.
pub fn router(cfg: StubConfig, records: Records) -> Router {
    let state = Arc::new(StubState { cfg, records });
    Router::new()
        .route("/v1/chat/completions", post(default_scenario))
        .route("/{scenario}/v1/chat/completions", post(named_scenario))
        .route(
            "/v1/models",
            get(|| async {
                Json(json!({"object":"list","data":[{"id":"stub","object":"model"}]}))
            }),
        )
        .with_state(state)
}

async fn default_scenario(
    State(st): State<Arc<StubState>>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let scenario = st.cfg.scenario;
    answer(&st, scenario, "/v1/chat/completions".into(), headers, body).await
}

async fn named_scenario(
    State(st): State<Arc<StubState>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match name.parse::<Scenario>() {
        Ok(s) => {
            answer(
                &st,
                s,
                format!("/{name}/v1/chat/completions"),
                headers,
                body,
            )
            .await
        }
        Err(e) => (StatusCode::NOT_FOUND, Json(json!({"error":{"message": e}}))).into_response(),
    }
}

fn record(
    st: &StubState,
    path: String,
    headers: &HeaderMap,
    body: &[u8],
) -> (Value, Option<String>) {
    let auth = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let json: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let rec = Recorded {
        path,
        authorization: auth.clone(),
        body: json.clone(),
    };
    if let Some(file) = &st.cfg.record {
        if let Ok(line) = serde_json::to_string(&rec) {
            if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(file) {
                let _ = writeln!(f, "{line}");
            }
        }
    }
    if let Ok(mut r) = st.records.lock() {
        r.push(rec);
    }
    (json, auth)
}

fn chunk(model: &str, delta: Value, finish: Option<&str>) -> Bytes {
    let v = json!({
        "id": "chatcmpl-stub",
        "object": "chat.completion.chunk",
        "created": 0,
        "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    });
    Bytes::from(format!("data: {v}\n\n"))
}

fn words(tokens: usize) -> Vec<String> {
    if tokens == 0 {
        ["Hello", ",", " world", "!"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    } else {
        (0..tokens).map(|i| format!("w{i} ")).collect()
    }
}

/// The content words of `scenario`.
fn scenario_words(scenario: Scenario, tokens: usize) -> Vec<String> {
    if scenario == Scenario::Cite {
        CITE_ANSWER.iter().map(|s| s.to_string()).collect()
    } else {
        words(tokens)
    }
}

/// The usual chunks: role, content words, finish, `[DONE]`.
fn normal_chunks(model: &str, words: Vec<String>, done: bool) -> Vec<Bytes> {
    let mut v = vec![chunk(
        model,
        json!({"role": "assistant", "content": ""}),
        None,
    )];
    v.extend(
        words
            .into_iter()
            .map(|w| chunk(model, json!({"content": w}), None)),
    );
    v.push(chunk(model, json!({}), Some("stop")));
    if done {
        v.push(Bytes::from_static(b"data: [DONE]\n\n"));
    }
    v
}

type Item = Result<Bytes, std::io::Error>;

/// A body yielding `items` with `delay` before each one after the first; `then_hang` keeps
/// the connection open afterwards without sending anything.
fn paced(items: Vec<Item>, delay: Duration, then_hang: bool) -> Body {
    let s = stream::iter(items.into_iter().enumerate()).then(move |(i, item)| async move {
        if i > 0 && !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        item
    });
    if then_hang {
        Body::from_stream(s.chain(stream::pending()))
    } else {
        Body::from_stream(s)
    }
}

fn sse(body: Body) -> Response {
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(body)
        .unwrap_or_default()
}

async fn answer(
    st: &StubState,
    scenario: Scenario,
    path: String,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (json, auth) = record(st, path, &headers, &body);
    let model = json
        .get("model")
        .and_then(Value::as_str)
        .unwrap_or("stub")
        .to_string();
    let streaming = json.get("stream").and_then(Value::as_bool).unwrap_or(false);
    let delay = st.cfg.delay;
    let tokens = st.cfg.tokens;
    let words = scenario_words(scenario, tokens);
    match scenario {
        Scenario::Error500 => (
            StatusCode::INTERNAL_SERVER_ERROR,
            Json(json!({"error": {
                "message": format!("internal failure while using {}", auth.unwrap_or_default()),
                "type": "server_error"}})),
        )
            .into_response(),
        Scenario::RateLimited => (
            StatusCode::TOO_MANY_REQUESTS,
            [(header::RETRY_AFTER, "7")],
            Json(json!({"error": {"message": "Rate limit reached for requests", "type": "rate_limit"}})),
        )
            .into_response(),
        Scenario::Hang => {
            std::future::pending::<()>().await;
            StatusCode::OK.into_response()
        }
        _ if !streaming => {
            let content: String = words.concat();
            Json(json!({
                "id": "chatcmpl-stub",
                "object": "chat.completion",
                "created": 0,
                "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
            }))
            .into_response()
        }
        Scenario::Ok | Scenario::Slow | Scenario::Cite => {
            let items = normal_chunks(&model, words, true).into_iter().map(Ok).collect();
            sse(paced(items, delay, false))
        }
        Scenario::NoDone => {
            let items = normal_chunks(&model, words, false).into_iter().map(Ok).collect();
            sse(paced(items, delay, false))
        }
        Scenario::Stall => {
            let first = normal_chunks(&model, words, true).into_iter().take(1).map(Ok).collect();
            sse(paced(first, delay, true))
        }
        Scenario::Drop => {
            let mut items: Vec<Item> = normal_chunks(&model, words, true).into_iter().take(2).map(Ok).collect();
            items.push(Err(std::io::Error::other("stub drops the connection")));
            // A short pause so the good chunks reach the proxy before the break.
            sse(paced(items, delay.max(Duration::from_millis(20)), false))
        }
        Scenario::Malformed => {
            let good = normal_chunks(&model, words, true);
            let items = vec![
                Ok(good[0].clone()),
                Ok(good[1].clone()),
                Ok(Bytes::from_static(b"data: {\"choices\": [oops\n\n")),
                Ok(good[2].clone()),
                Ok(Bytes::from_static(b"data: [DONE]\n\n")),
            ];
            sse(paced(items, delay, false))
        }
        Scenario::ErrorEvent => {
            let good = normal_chunks(&model, words, true);
            let items = vec![
                Ok(good[0].clone()),
                Ok(Bytes::from_static(b"data: {\"error\":{\"message\":\"model overloaded\",\"type\":\"server_error\"}}\n\n")),
            ];
            sse(paced(items, delay, false))
        }
    }
}

/// Serves the stub on `listener` until `shutdown` resolves (for the binary).
pub async fn run(
    cfg: StubConfig,
    listener: TcpListener,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let app = router(cfg, Arc::default());
    let listener = listener.tap_io(|tcp| {
        let _ = tcp.set_nodelay(true);
    });
    axum::serve(listener, app)
        .with_graceful_shutdown(shutdown)
        .await
}

//! Shared helpers: start the proxy and a stub upstream on 127.0.0.1:0, talk to them, and
//! bound every wait in time.

use std::future::Future;
use std::net::SocketAddr;
use std::time::Duration;

use book_retrieval::testing;
use proxy::config::{ApiKey, Config, Timeouts, UpstreamConfig};
use proxy::stub::{Scenario, StubConfig, StubHandle};
use serde_json::{json, Value};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The key the proxy is configured with in tests; must never reach a client.
pub const KEY: &str = "sk-test-SECRET-0123456789abcdefXYZ";
/// The model the proxy imposes in tests.
pub const MODEL: &str = "book-model";
/// Longest any single test step may take.
pub const LIMIT: Duration = Duration::from_secs(15);

/// Awaits `f`, failing the test if it takes longer than [`LIMIT`].
pub async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("test step timed out")
}

/// A proxy running in this test's runtime.
pub struct Proxy {
    pub addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<Result<(), proxy::ServeError>>,
}

impl Proxy {
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Sends the shutdown signal (as SIGTERM would) without waiting.
    pub fn signal_shutdown(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }

    /// Signals shutdown and waits for `serve` to return.
    pub async fn stop(mut self) {
        self.signal_shutdown();
        within(&mut self.task)
            .await
            .expect("serve task panicked")
            .expect("serve returned an error");
    }
}

/// Starts the proxy with `config` on 127.0.0.1:0.
pub async fn start(config: Config) -> Proxy {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(proxy::serve(config, listener, async move {
        let _ = rx.await;
    }));
    Proxy {
        addr,
        shutdown: Some(tx),
        task,
    }
}

/// A stub upstream with `scenario` (and `delay` between chunks).
pub async fn stub(scenario: Scenario, delay: Duration) -> StubHandle {
    proxy::stub::spawn(StubConfig {
        scenario,
        delay,
        ..StubConfig::default()
    })
    .await
    .unwrap()
}

/// A stub upstream with `scenario` (and `delay` between chunks) and a proxy configured for it.
pub async fn stubbed(scenario: Scenario, delay: Duration) -> (StubHandle, Proxy) {
    let stub = stub(scenario, delay).await;
    let proxy = start(config_for(&stub.base_url())).await;
    (stub, proxy)
}

/// The content id of the tiny test book (`book_retrieval::testing`): its index's content hash.
pub fn book_id() -> String {
    testing::asset().manifest.content_hash
}

/// A folder holding the tiny test book's asset files: in cargo's temporary folder for tests (not
/// the system's, which each run would litter), named by the book's content hash and each file
/// written by rename, so runs side by side share it and never read a half-written file.
pub fn tiny_book_dir() -> std::path::PathBuf {
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let a = testing::asset();
        let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("proxy-tiny-book-{}", a.manifest.content_hash));
        std::fs::create_dir_all(&dir).unwrap();
        let files = [&a.manifest.files.index, &a.manifest.files.chunks];
        for name in files
            .into_iter()
            .map(String::as_str)
            .chain(["manifest.json"])
        {
            let part = dir.join(format!("{name}.{}.part", std::process::id()));
            std::fs::write(&part, a.file(name).unwrap()).unwrap();
            std::fs::rename(&part, dir.join(name)).unwrap();
        }
        dir
    })
    .clone()
}

/// A test configuration pointing at `base_url`, with short timeouts, a roomy rate limit and the
/// tiny test book as the index requests are checked against.
pub fn config_for(base_url: &str) -> Config {
    let mut cfg = Config {
        index: vec![proxy::book::IndexLocation::Dir(tiny_book_dir())],
        upstream: Some(UpstreamConfig {
            chat_url: url::Url::parse(&format!("{base_url}/chat/completions")).unwrap(),
            api_key: ApiKey::new(KEY),
            model: MODEL.into(),
        }),
        timeouts: Timeouts {
            connect: Duration::from_secs(2),
            first_byte: Duration::from_millis(600),
            total: Duration::from_secs(5),
        },
        shutdown_grace: Duration::from_secs(2),
        ..Config::default()
    };
    cfg.generation.max_tokens = 77;
    cfg.generation.temperature = 0.3;
    cfg.rate_limit.capacity = 1000;
    cfg.rate_limit.per_minute = 1000;
    cfg
}

/// An HTTP client for tests.
pub fn client() -> reqwest::Client {
    proxy::tls::install_crypto_provider();
    reqwest::Client::builder().no_proxy().build().unwrap()
}

/// A prompt the widget would build for the tiny book: `question`, the first `sources` chunks.
pub fn widget_prompt(question: &str, sources: usize, history: &[book_prompt::Turn]) -> Value {
    let urls: Vec<String> = testing::CHUNKS.iter().map(|c| c.url()).collect();
    let srcs: Vec<book_prompt::PromptSource<'_>> = testing::CHUNKS
        .iter()
        .zip(&urls)
        .take(sources)
        .map(|(c, url)| book_prompt::PromptSource {
            label: book_prompt::text::label(testing::PAGES[c.page].title, c.section),
            url,
            text: c.text,
        })
        .collect();
    let p = book_prompt::build_prompt(&book_prompt::PromptInput {
        question,
        sources: &srcs,
        selection: None,
        history,
        prefs: book_prompt::Preferences::default(),
        page_title: None,
    });
    serde_json::to_value(&p.messages).unwrap()
}

/// A valid chat body: what the widget sends for a question about the tiny book.
pub fn chat_body(stream: bool) -> Value {
    json!({
        "messages": widget_prompt("What is a node?", 1, &[]),
        "stream": stream,
        "session_id": "s-1",
        "content_id": book_id()
    })
}

/// POSTs a JSON body to `/api/chat`.
pub async fn post_chat(proxy: &Proxy, body: &Value) -> reqwest::Response {
    post_json(proxy, "/api/chat", body).await
}

/// POSTs the streaming [`chat_body`], expects 200 and returns the whole SSE body.
pub async fn chat_stream(proxy: &Proxy) -> String {
    let resp = post_chat(proxy, &chat_body(true)).await;
    assert_eq!(resp.status(), 200);
    text(resp).await
}

/// POSTs a JSON body to `path`.
pub async fn post_json(proxy: &Proxy, path: &str, body: &Value) -> reqwest::Response {
    within(
        client()
            .post(proxy.url(path))
            .header("content-type", "application/json")
            .body(body.to_string())
            .send(),
    )
    .await
    .unwrap()
}

/// GETs `path` (bounded in time).
pub async fn get(proxy: &Proxy, path: &str) -> reqwest::Response {
    within(client().get(proxy.url(path)).send()).await.unwrap()
}

/// GETs `path` and parses the body as JSON.
pub async fn get_json(proxy: &Proxy, path: &str) -> Value {
    let body = text(get(proxy, path).await).await;
    serde_json::from_str(&body).unwrap_or_else(|_| panic!("not JSON: {body}"))
}

/// Reads a whole body as text (bounded in time).
pub async fn text(resp: reqwest::Response) -> String {
    within(resp.text()).await.unwrap()
}

/// One SSE event as the widget would see it.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub event: Option<String>,
    pub data: String,
}

/// Splits an SSE body into events (ignoring comments).
pub fn events(body: &str) -> Vec<Event> {
    body.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let mut ev = Event {
                event: None,
                data: String::new(),
            };
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    ev.event = Some(v.trim().to_string());
                } else if let Some(v) = line.strip_prefix("data:") {
                    ev.data.push_str(v.strip_prefix(' ').unwrap_or(v));
                }
            }
            ev
        })
        .collect()
}

/// The assistant text carried by the content deltas.
pub fn content(evs: &[Event]) -> String {
    evs.iter()
        .filter(|e| e.event.is_none() && e.data != "[DONE]")
        .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
        .filter_map(|v| {
            v["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_string)
        })
        .collect()
}

/// The error event at the end of a stream, as (code, message).
pub fn error_event(evs: &[Event]) -> Option<(String, String)> {
    let last = evs.last()?;
    if last.event.as_deref() != Some("error") {
        return None;
    }
    let v: Value = serde_json::from_str(&last.data).ok()?;
    Some((
        v["error"]["code"].as_str()?.to_string(),
        v["error"]["message"].as_str()?.to_string(),
    ))
}

/// Asserts a JSON error response with `status` and `code`; returns the whole body.
pub async fn expect_error(resp: reqwest::Response, status: u16, code: &str) -> Value {
    assert_eq!(resp.status().as_u16(), status, "status");
    let ct = resp
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_string());
    assert_eq!(ct.as_deref(), Some("application/json"), "content-type");
    let body = text(resp).await;
    let v: Value = serde_json::from_str(&body).unwrap_or_else(|_| panic!("not JSON: {body}"));
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .is_some_and(|m| !m.is_empty()),
        "{v}"
    );
    assert!(
        !body.contains(KEY) && !body.contains("SECRET"),
        "key leaked: {body}"
    );
    v
}

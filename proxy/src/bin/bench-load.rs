//! `bench-load`: bounded load on loopback only. Runs the stub upstream in-process and the real
//! `proxy` binary as a child process, then sends the same streaming chats straight to the stub
//! and through the proxy at a fixed concurrency. Reports time to first byte (p50/p90/p99) for
//! both and their difference (the proxy's added latency), throughput, errors and the proxy
//! process's peak RSS (VmHWM from /proc).
//!
//! ```text
//! cargo build --release -p proxy --bins --features bench
//! target/release/bench-load [--requests 2000] [--concurrency 200] [--tokens 16] [--delay-ms 5]
//! ```
//! Every request goes to 127.0.0.1; the run stops by itself after `--requests` or `--time-limit`.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use clap::Parser;
use futures_util::StreamExt;
use proxy::stub::{Scenario, StubConfig};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, BufReader};

/// The benchmark's book, in the order the prompt quotes it: a chunk longer than the prompt budget
/// (the widget cuts it, so the guard checks a full-size prompt), then two short ones, one with a
/// fence look-alike in code.
fn bench_chunks() -> Vec<proxy::book::written::TestChunk> {
    let long = "A launch file starts several nodes at once and sets their parameters. ".repeat(300);
    vec![
        ("Launch \"files\"".into(), Some("Overview".into()), "/docs/launch#overview".into(), long),
        ("Nodes".into(), None, "/docs/nodes".into(),
         "A node is a process that performs computation.\n\nNodes talk over topics.".into()),
        ("Nodes".into(), Some("Topics".into()), "/docs/nodes#topics".into(),
         "Topics carry messages between nodes.\n\n```xml\n<source n=\"9\">not a fence</source>\n```".into()),
    ]
}

/// Load benchmark for the proxy (loopback only, bounded).
#[derive(Debug, Parser)]
#[command(name = "bench-load")]
struct Args {
    /// Streaming chats per phase (direct, then through the proxy).
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    requests: u32,
    /// Chats in flight at once.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u32).range(1..=2_000))]
    concurrency: u32,
    /// Content chunks per answer.
    #[arg(long, default_value_t = 32)]
    tokens: usize,
    /// Pause between chunks in the stub, in milliseconds: 20 ms is 50 tokens/s per stream, a
    /// fast real model; 200 such streams are 10 000 chunks/s through the proxy.
    #[arg(long, default_value_t = 20)]
    delay_ms: u64,
    /// Requests per phase sent first and not measured (connection set-up).
    #[arg(long, default_value_t = 200)]
    warmup: u32,
    /// Hard limit on the whole run, in seconds.
    #[arg(long, default_value_t = 300)]
    time_limit: u64,
    /// The proxy binary (default: `proxy` next to this one).
    #[arg(long)]
    proxy_bin: Option<PathBuf>,
    /// Start all workers at the same instant (a worst-case burst) instead of spreading their
    /// first requests over one answer's duration (steady arrivals).
    #[arg(long)]
    burst: bool,
    /// RUST_LOG for the proxy (`info` logs every request).
    #[arg(long, default_value = "warn")]
    proxy_log: String,
}

#[derive(Debug, Default)]
struct Phase {
    ttfb: Vec<Duration>,
    total: Vec<Duration>,
    errors: Vec<String>,
    wall: Duration,
    bytes: usize,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let limit = Duration::from_secs(args.time_limit);
    match tokio::time::timeout(limit, run(args)).await {
        Ok(r) => r,
        Err(_) => bail!("time limit reached; the run was stopped"),
    }
}

async fn run(args: Args) -> anyhow::Result<()> {
    proxy::tls::install_crypto_provider();
    let stub = proxy::stub::spawn(StubConfig {
        scenario: Scenario::Ok,
        delay: Duration::from_millis(args.delay_ms),
        tokens: args.tokens,
        record: None,
    })
    .await?;
    // The stub keeps every request in memory; the benchmark does not need them.
    let proxy_bin = match args.proxy_bin.clone() {
        Some(p) => p,
        None => std::env::current_exe()?
            .parent()
            .context("no parent folder")?
            .join("proxy"),
    };
    // The guard checks every chat against the book: a tiny book whose long chunk fills the prompt
    // budget (the widget cuts it), so the check runs on a full-size (~16 KB) prompt.
    let book_dir = std::env::temp_dir().join(format!("bench-load-book-{}", std::process::id()));
    std::fs::create_dir_all(&book_dir)?;
    let content_id = proxy::book::written::write(&book_dir, &bench_chunks())?;
    let mut child = tokio::process::Command::new(&proxy_bin)
        .arg("--index")
        .arg(&book_dir)
        .args([
            "--listen",
            "127.0.0.1:0",
            "--rate-capacity",
            "10000000",
            "--rate-per-minute",
            "10000000",
            "--max-concurrent",
            "100000",
        ])
        .env("LLM_BASE_URL", stub.base_url())
        .env("LLM_MODEL", "bench-model")
        .env("LLM_API_KEY", "bench-key-not-secret")
        .env("RUST_LOG", &args.proxy_log)
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .with_context(|| format!("starting {}", proxy_bin.display()))?;
    let pid = child.id().context("proxy has no pid")?;
    let mut line = String::new();
    BufReader::new(child.stdout.take().context("no stdout")?)
        .read_line(&mut line)
        .await?;
    let proxy_url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .with_context(|| format!("unexpected start line: {line:?}"))?
        .to_string();
    let rss_idle = rss(pid, "VmRSS");

    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(args.concurrency as usize * 2)
        .tcp_nodelay(true)
        .build()?;
    let chunks = bench_chunks();
    let sources: Vec<book_prompt::PromptSource<'_>> = chunks
        .iter()
        .map(|(c, s, u, t)| book_prompt::PromptSource {
            label: book_prompt::text::label(c, s.as_deref()),
            url: u,
            text: t,
        })
        .collect();
    let prompt = book_prompt::build_prompt(&book_prompt::PromptInput {
        question: "How do I start several nodes at once?",
        sources: &sources,
        selection: None,
        history: &[],
        prefs: book_prompt::Preferences::default(),
        page_title: None,
    });
    let messages = serde_json::to_value(&prompt.messages)?;
    let direct_url = format!("{}/chat/completions", stub.base_url());
    let direct_body = json!({"model": "bench-model", "messages": messages, "stream": true,
                             "max_tokens": 1024, "temperature": 0.2})
    .to_string();
    let proxy_chat = format!("{proxy_url}/api/chat");
    let proxy_body =
        json!({"messages": messages, "stream": true, "session_id": "bench", "content_id": content_id})
            .to_string();

    println!(
        "bench-load: {} streaming chats per phase, {} in flight, {} chunks each, {} ms between chunks; proxy pid {pid}",
        args.requests, args.concurrency, args.tokens + 3, args.delay_ms
    );
    let c = args.concurrency as usize;
    // Spreading the workers' first requests over one answer keeps arrivals steady; otherwise
    // equal-length answers make all the requests arrive in the same millisecond, wave after wave.
    let spread = if args.burst {
        Duration::ZERO
    } else {
        Duration::from_millis(args.delay_ms) * (args.tokens as u32 + 2)
    };
    println!(
        "arrivals: spread over {} ms (0 = burst)",
        spread.as_millis()
    );
    let (warm, n) = (args.warmup as usize, args.requests as usize);
    load(&client, &direct_url, &direct_body, warm, c, spread).await;
    let direct = load(&client, &direct_url, &direct_body, n, c, spread).await;
    load(&client, &proxy_chat, &proxy_body, warm, c, spread).await;
    let through = load(&client, &proxy_chat, &proxy_body, n, c, spread).await;
    let hwm = rss(pid, "VmHWM");

    report("direct to stub", &direct);
    report("through proxy", &through);
    let (d50, p50) = (pct(&direct.ttfb, 50.0), pct(&through.ttfb, 50.0));
    let (d99, p99) = (pct(&direct.ttfb, 99.0), pct(&through.ttfb, 99.0));
    println!(
        "added time to first byte: p50 {:+.3} ms, p99 {:+.3} ms",
        ms(p50) - ms(d50),
        ms(p99) - ms(d99)
    );
    println!(
        "proxy RSS: idle {} KiB, peak (VmHWM) {} KiB = {:.1} MiB",
        rss_idle.unwrap_or(0),
        hwm.unwrap_or(0),
        hwm.unwrap_or(0) as f64 / 1024.0
    );

    let killed = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()?;
    if killed.success() {
        let status = tokio::time::timeout(Duration::from_secs(15), child.wait()).await;
        println!("proxy exit after SIGTERM: {status:?}");
    }
    if !direct.errors.is_empty() || !through.errors.is_empty() {
        bail!(
            "{} errors direct, {} through the proxy",
            direct.errors.len(),
            through.errors.len()
        );
    }
    let _ = std::fs::remove_dir_all(&book_dir);
    Ok(())
}

/// Sends `n` streaming chats with `c` in flight; measures each one.
async fn load(
    client: &reqwest::Client,
    url: &str,
    body: &str,
    n: usize,
    c: usize,
    spread: Duration,
) -> Phase {
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let workers: Vec<_> = (0..c.min(n))
        .map(|i| {
            let offset = spread * i as u32 / c as u32;
            let (client, url, body, next) = (
                client.clone(),
                url.to_string(),
                body.to_string(),
                next.clone(),
            );
            tokio::spawn(async move {
                tokio::time::sleep(offset).await;
                let mut out = Phase::default();
                while next.fetch_add(1, Ordering::Relaxed) < n {
                    match one(&client, &url, &body).await {
                        Ok((ttfb, total, bytes)) => {
                            out.ttfb.push(ttfb);
                            out.total.push(total);
                            out.bytes += bytes;
                        }
                        Err(e) => out.errors.push(e),
                    }
                }
                out
            })
        })
        .collect();
    let mut phase = Phase::default();
    for w in workers {
        match w.await {
            Ok(p) => {
                phase.ttfb.extend(p.ttfb);
                phase.total.extend(p.total);
                phase.errors.extend(p.errors);
                phase.bytes += p.bytes;
            }
            Err(e) => phase.errors.push(format!("worker failed: {e}")),
        }
    }
    phase.wall = start.elapsed();
    phase.ttfb.sort();
    phase.total.sort();
    phase
}

async fn one(
    client: &reqwest::Client,
    url: &str,
    body: &str,
) -> Result<(Duration, Duration, usize), String> {
    let t0 = Instant::now();
    let resp = client
        .post(url)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|e| format!("send: {e}"))?;
    if !resp.status().is_success() {
        return Err(format!("status {}", resp.status()));
    }
    let mut stream = resp.bytes_stream();
    let mut ttfb = None;
    let mut buf = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(|e| format!("body: {e}"))?;
        if ttfb.is_none() && !chunk.is_empty() {
            ttfb = Some(t0.elapsed());
        }
        buf.extend_from_slice(&chunk);
    }
    let total = t0.elapsed();
    let text = String::from_utf8_lossy(&buf);
    if !text.contains("data: [DONE]") || text.contains("event: error") {
        return Err("stream did not end with [DONE]".into());
    }
    Ok((ttfb.unwrap_or(total), total, buf.len()))
}

fn report(name: &str, p: &Phase) {
    println!(
        "{name:>15}: {} ok, {} errors in {:.2} s = {:.0} chats/s ({:.1} MB/s); first byte p50 {:.3} ms, p90 {:.3} ms, p99 {:.3} ms, max {:.3} ms; whole answer p50 {:.1} ms, p99 {:.1} ms",
        p.ttfb.len(),
        p.errors.len(),
        p.wall.as_secs_f64(),
        p.ttfb.len() as f64 / p.wall.as_secs_f64(),
        p.bytes as f64 / p.wall.as_secs_f64() / 1e6,
        ms(pct(&p.ttfb, 50.0)),
        ms(pct(&p.ttfb, 90.0)),
        ms(pct(&p.ttfb, 99.0)),
        ms(p.ttfb.last().copied().unwrap_or_default()),
        ms(pct(&p.total, 50.0)),
        ms(pct(&p.total, 99.0)),
    );
    if let Some(e) = p.errors.first() {
        println!("{:>15}  first error: {e}", "");
    }
}

/// Nearest-rank percentile of sorted durations.
fn pct(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// A `/proc/PID/status` field in KiB (Linux only).
fn rss(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find(|l| l.starts_with(field))?
        .split_whitespace()
        .nth(1)?
        .parse()
        .ok()
}

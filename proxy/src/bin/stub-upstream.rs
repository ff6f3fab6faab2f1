//! `stub-upstream`: a fake OpenAI-compatible server for end-to-end tests and the benchmark.
//!
//! ```text
//! stub-upstream --listen 127.0.0.1:PORT --scenario ok|slow|error500|ratelimit429|hang|stall|drop|malformed|no-done|error-event|cite
//!               [--delay-ms N] [--tokens N] [--record FILE.jsonl]
//! ```
//! Point the proxy at `LLM_BASE_URL=http://127.0.0.1:PORT/v1`, or pick a scenario per base URL:
//! `http://127.0.0.1:PORT/drop/v1`. Prints `stub-upstream listening on http://ADDR` once ready.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use clap::Parser;
use proxy::stub::{Scenario, StubConfig};

/// Fake OpenAI-compatible chat-completions server that misbehaves on request.
#[derive(Debug, Parser)]
#[command(name = "stub-upstream", version)]
struct Args {
    /// Address to listen on (loopback only is sensible; port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Default scenario: ok, slow, error500, ratelimit429, hang, stall, drop, malformed,
    /// no-done, error-event, cite. `POST /{scenario}/v1/chat/completions` overrides it per request.
    #[arg(long, default_value = "ok", value_parser = |s: &str| s.parse::<Scenario>())]
    scenario: Scenario,
    /// Pause before each chunk after the first, in milliseconds (slow defaults to 200).
    #[arg(long)]
    delay_ms: Option<u64>,
    /// Number of content chunks per answer (0: "Hello, world!" in four).
    #[arg(long, default_value_t = 0)]
    tokens: usize,
    /// Append each request received (path, Authorization, JSON body) to this JSONL file.
    #[arg(long)]
    record: Option<PathBuf>,
    /// Print the `cite` scenario's answer chunks as a JSON array and exit (for the browser tests).
    #[arg(long)]
    print_cite_answer: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    if args.print_cite_answer {
        println!("{}", serde_json::to_string(&proxy::stub::CITE_ANSWER)?);
        return Ok(());
    }
    let delay = match (args.delay_ms, args.scenario) {
        (Some(ms), _) => Duration::from_millis(ms),
        (None, Scenario::Slow) => Duration::from_millis(200),
        (None, _) => Duration::ZERO,
    };
    let cfg = StubConfig {
        scenario: args.scenario,
        delay,
        tokens: args.tokens,
        record: args.record,
    };
    let listener = tokio::net::TcpListener::bind(args.listen).await?;
    println!(
        "stub-upstream listening on http://{}",
        listener.local_addr()?
    );
    proxy::stub::run(cfg, listener, proxy::shutdown_signal()).await?;
    Ok(())
}

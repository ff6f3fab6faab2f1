//! `proxy`: serve (default) or `proxy report`. All logic lives in the library; this file only
//! parses the command line, prints the start line and maps failures to one-line errors.

use std::process::ExitCode;

use book_retrieval::error::error_line;
use clap::Parser;
use proxy::cli::{Cli, Command};

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => e.exit(), // --help, --version
        Err(e) => {
            // clap's first line names the flag and the reason; the rest is usage boilerplate.
            let rendered = e.render().to_string();
            let line = rendered.lines().next().unwrap_or("error: bad arguments");
            eprintln!("proxy: {}", line.trim_start_matches("error: "));
            return ExitCode::from(2);
        }
    };
    match cli.command {
        Some(Command::Report(args)) => match proxy::report::report(&args.db, args.limit) {
            Ok(text) => {
                print!("{text}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("proxy: {}", error_line(&e));
                ExitCode::FAILURE
            }
        },
        None => {
            let listen = cli.serve.listen;
            let config = match cli.serve.into_config() {
                Ok(c) => c,
                Err(e) => {
                    eprintln!("proxy: {e}");
                    return ExitCode::from(2);
                }
            };
            match serve(listen, config) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    eprintln!("proxy: {}", error_line(e.as_ref()));
                    ExitCode::FAILURE
                }
            }
        }
    }
}

fn serve(listen: std::net::SocketAddr, config: proxy::Config) -> anyhow::Result<()> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env()
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info")),
        )
        .with_writer(std::io::stderr)
        .init();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let server = rt.block_on(async { proxy::Server::prepare(config.clone()).await })?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(listen)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {listen}: {e}"))?;
        let addr = listener.local_addr()?;
        println!("{}", start_line(addr, &config));
        server.run(listener, proxy::shutdown_signal()).await?;
        Ok(())
    })
}

/// The one start-up line: where it listens and what it talks to (never the key).
fn start_line(addr: std::net::SocketAddr, config: &proxy::Config) -> String {
    let upstream = match &config.upstream {
        Some(u) => format!(
            "upstream configured ({} at {}, key {})",
            u.model,
            u.chat_url,
            if u.api_key.is_some() {
                "set"
            } else {
                "not set"
            }
        ),
        None => "upstream none (chat answers 503; widget falls back to extracts)".to_string(),
    };
    let site = config
        .site
        .as_ref()
        .map(|s| format!("; site {}", s.display()))
        .unwrap_or_default();
    let db = config
        .db
        .as_ref()
        .map(|d| format!("; feedback db {}", proxy::feedback::display_db(d)))
        .unwrap_or_default();
    format!("proxy listening on http://{addr} — {upstream}{site}{db}")
}

//! Graceful shutdown, the binary's start line, start-up errors and the key staying out of logs.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::support::*;
use futures_util::StreamExt;
use proxy::stub::Scenario;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};

#[tokio::test]
async fn in_flight_stream_finishes_after_shutdown_signal() {
    let stub = stub(Scenario::Slow, Duration::from_millis(100)).await;
    let mut proxy = start(config_for(&stub.base_url())).await;
    let resp = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!(resp.status(), 200);
    let mut stream = resp.bytes_stream();
    let mut body = within(stream.next()).await.unwrap().unwrap().to_vec();
    proxy.signal_shutdown();
    // New connections are refused once the server stops accepting.
    tokio::time::sleep(Duration::from_millis(50)).await;
    let refused = client().get(proxy.url("/api/health")).send().await;
    assert!(refused.is_err(), "still accepting after shutdown signal");
    while let Some(chunk) = within(stream.next()).await {
        body.extend_from_slice(&chunk.unwrap());
    }
    let evs = events(&String::from_utf8(body).unwrap());
    assert_eq!(content(&evs), "Hello, world!");
    assert_eq!(evs.last().unwrap().data, "[DONE]");
    within(&mut proxy.task).await.unwrap().unwrap();
}

#[tokio::test]
async fn streams_past_the_grace_period_end_with_event() {
    let stub = stub(Scenario::Slow, Duration::from_millis(400)).await;
    let mut cfg = config_for(&stub.base_url());
    cfg.shutdown_grace = Duration::from_millis(300);
    let mut proxy = start(cfg).await;
    let resp = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!(resp.status(), 200);
    let t0 = Instant::now();
    proxy.signal_shutdown();
    let evs = events(&text(resp).await);
    let (code, _) = error_event(&evs).expect("error event");
    assert_eq!(code, "shutting_down");
    assert!(t0.elapsed() < Duration::from_secs(2), "{:?}", t0.elapsed());
    within(&mut proxy.task).await.unwrap().unwrap();
}

#[tokio::test]
async fn binary_prints_start_line_and_never_logs_the_key() {
    let stub = stub(Scenario::Ok, Duration::ZERO).await;
    let err_stub = proxy::stub::spawn(proxy::stub::StubConfig {
        scenario: Scenario::Error500,
        ..Default::default()
    })
    .await
    .unwrap();
    for base in [stub.base_url(), err_stub.base_url()] {
        let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_proxy"))
            .args(["--listen", "127.0.0.1:0"])
            .env("LLM_BASE_URL", &base)
            .env("LLM_MODEL", MODEL)
            .env("LLM_API_KEY", KEY)
            .env("PROXY_INDEX", tiny_book_dir())
            .env("RUST_LOG", "debug")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        within(stdout.read_line(&mut line)).await.unwrap();
        assert!(
            line.starts_with("proxy listening on http://127.0.0.1:"),
            "{line}"
        );
        assert!(
            line.contains("upstream configured") && line.contains(MODEL),
            "{line}"
        );
        assert!(!line.contains(KEY), "{line}");
        let url = line
            .split_whitespace()
            .find(|w| w.starts_with("http://127.0.0.1:"))
            .unwrap()
            .to_string();

        let resp = within(
            client()
                .post(format!("{url}/api/chat"))
                .header("content-type", "application/json")
                .body(chat_body(true).to_string())
                .send(),
        )
        .await
        .unwrap();
        let body = text(resp).await;
        assert!(!body.contains(KEY) && !body.contains("SECRET"), "{body}");

        // SIGTERM: a clean, quick exit.
        let pid = child.id().unwrap().to_string();
        let killed = std::process::Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap();
        assert!(killed.success());
        let status = within(child.wait()).await.unwrap();
        assert!(status.success(), "{status:?}");
        let mut logs = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut logs)
            .await
            .unwrap();
        assert!(logs.contains("/api/chat"), "debug logs expected: {logs}");
        assert!(
            !logs.contains(KEY) && !logs.contains("SECRET"),
            "key in logs:\n{logs}"
        );
    }
}

/// Flags, environment, and a word the one error line must contain.
type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

#[test]
fn bad_values_stop_startup_with_one_line() {
    let cases: &[Case] = &[
        (&["--max-tokens", "lots"], &[], "--max-tokens"),
        (&["--temperature", "9"], &[], "temperature"),
        (&["--listen", "127.0.0.1"], &[], "--listen"),
        (
            &[],
            &[("LLM_BASE_URL", "http://127.0.0.1:1/v1")],
            "LLM_MODEL",
        ),
        (
            &[],
            &[("LLM_BASE_URL", "ftp://x"), ("LLM_MODEL", "m")],
            "LLM_BASE_URL",
        ),
        (&["--allowed-origins", "*"], &[], "allowed-origins"),
        (
            &[],
            &[
                ("LLM_BASE_URL", "http://127.0.0.1:1/v1"),
                ("LLM_MODEL", "m"),
            ],
            "--index",
        ),
        (
            &["--trusted-proxies", "10.0.0.0/40"],
            &[],
            "trusted-proxies",
        ),
        (&["--index", "/nonexistent-book"], &[], "--index"),
        (&["--first-byte-timeout", "soon"], &[], "first-byte-timeout"),
        (
            &[
                "--db",
                "/nonexistent-dir/x/feedback.db",
                "--listen",
                "127.0.0.1:0",
            ],
            &[],
            "feedback database",
        ),
        // The reason a connection failed, which tokio_postgres and reqwest keep in their source
        // error and print only there, is on the line.
        (
            &[
                "--db",
                "postgres://nobody@127.0.0.1:1/feedback",
                "--listen",
                "127.0.0.1:0",
            ],
            &[],
            "error connecting to server: Connection refused",
        ),
        (
            &[
                "--index-url",
                "http://127.0.0.1:1/book/",
                "--listen",
                "127.0.0.1:0",
            ],
            &[],
            "Connection refused",
        ),
    ];
    for (args, envs, needle) in cases {
        let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_proxy"));
        cmd.args(*args)
            .env_remove("LLM_BASE_URL")
            .env_remove("LLM_MODEL")
            .env("LLM_API_KEY", KEY);
        for (k, v) in *envs {
            cmd.env(k, v);
        }
        let out = cmd.output().unwrap();
        assert!(!out.status.success(), "{args:?} started");
        let err = String::from_utf8_lossy(&out.stderr);
        let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines.len(), 1, "{args:?}: {err}");
        assert!(lines[0].contains(needle), "{args:?}: {err}");
        assert!(!err.contains(KEY));
        assert!(out.stdout.is_empty(), "no start line on failure");
    }
}

#[test]
fn help_explains_every_flag() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_proxy"))
        .arg("--help")
        .env("LLM_API_KEY", KEY)
        .output()
        .unwrap();
    assert!(out.status.success());
    let help = String::from_utf8(out.stdout).unwrap();
    for flag in [
        "--listen",
        "--llm-base-url",
        "--llm-api-key",
        "--llm-model",
        "--max-tokens",
        "--temperature",
        "--allowed-origins",
        "--rate-capacity",
        "--rate-per-minute",
        "--max-concurrent",
        "--connect-timeout",
        "--first-byte-timeout",
        "--total-timeout",
        "--shutdown-grace",
        "--db",
        "--store-questions",
        "--site",
        "PROXY_LISTEN",
        "LLM_BASE_URL",
        "LLM_API_KEY",
        "LLM_MODEL",
    ] {
        assert!(help.contains(flag), "--help lacks {flag}");
    }
    assert!(
        !help.contains(KEY),
        "--help shows the key from the environment"
    );
}

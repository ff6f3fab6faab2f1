//! `/api/chat` against every stub scenario: what the widget receives.

use std::time::{Duration, Instant};

use crate::support::*;
use futures_util::StreamExt;
use proxy::stub::Scenario;

#[tokio::test]
async fn ok_stream_is_relayed_with_done_and_settings_imposed() {
    let (stub, proxy) = stubbed(Scenario::Ok, Duration::ZERO).await;
    let resp = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "text/event-stream");
    let body = text(resp).await;
    let evs = events(&body);
    assert_eq!(content(&evs), "Hello, world!");
    assert_eq!(evs.last().unwrap().data, "[DONE]");
    assert!(error_event(&evs).is_none());
    assert!(!body.contains(KEY));

    // The stub saw the proxy's model settings and the key, not the client's choices.
    let rec = stub.recorded();
    assert_eq!(rec.len(), 1);
    let sent = &rec[0].body;
    assert_eq!(sent["model"], MODEL);
    assert_eq!(sent["max_tokens"], 77);
    assert!((sent["temperature"].as_f64().unwrap() - 0.3).abs() < 1e-6);
    assert_eq!(sent["stream"], true);
    assert_eq!(sent["messages"].as_array().unwrap().len(), 2);
    assert!(
        sent.get("session_id").is_none(),
        "session id is not forwarded"
    );
    assert_eq!(
        rec[0].authorization.as_deref(),
        Some(&*format!("Bearer {KEY}"))
    );
    proxy.stop().await;
}

#[tokio::test]
async fn non_stream_is_json_passthrough() {
    let (stub, proxy) = stubbed(Scenario::Ok, Duration::ZERO).await;
    let resp = post_chat(&proxy, &chat_body(false)).await;
    assert_eq!(resp.status(), 200);
    assert_eq!(resp.headers()["content-type"], "application/json");
    let v: serde_json::Value = serde_json::from_str(&text(resp).await).unwrap();
    assert_eq!(v["choices"][0]["message"]["content"], "Hello, world!");
    assert_eq!(v["model"], MODEL);
    assert_eq!(stub.recorded()[0].body["stream"], false);
    proxy.stop().await;
}

#[tokio::test]
async fn slow_stream_arrives_incrementally() {
    let delay = Duration::from_millis(150);
    let (_stub, proxy) = stubbed(Scenario::Slow, delay).await;
    let t0 = Instant::now();
    let resp = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!(resp.status(), 200);
    let mut stream = resp.bytes_stream();
    let first = within(stream.next()).await.unwrap().unwrap();
    let first_at = t0.elapsed();
    assert!(first.starts_with(b"data: {"), "{first:?}");
    let mut rest = Vec::new();
    while let Some(chunk) = within(stream.next()).await {
        rest.extend_from_slice(&chunk.unwrap());
    }
    let total = t0.elapsed();
    // 6 more chunks follow at 150 ms each: the first must not have waited for them.
    assert!(total >= delay * 5, "total {total:?}");
    assert!(
        first_at + delay * 3 < total,
        "first at {first_at:?}, total {total:?}: buffered?"
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&first),
        String::from_utf8_lossy(&rest)
    );
    let evs = events(&all);
    assert_eq!(content(&evs), "Hello, world!");
    assert_eq!(evs.last().unwrap().data, "[DONE]");
    proxy.stop().await;
}

#[tokio::test]
async fn upstream_500_is_502_with_scrubbed_message() {
    let (_stub, proxy) = stubbed(Scenario::Error500, Duration::ZERO).await;
    let v = expect_error(
        post_chat(&proxy, &chat_body(true)).await,
        502,
        "upstream_error",
    )
    .await;
    let msg = v["error"]["message"].as_str().unwrap();
    assert!(
        msg.contains("500") && msg.contains("internal failure"),
        "{msg}"
    );
    assert!(
        msg.contains("[redacted]"),
        "the stub echoed the key; it must be redacted: {msg}"
    );
    proxy.stop().await;
}

#[tokio::test]
async fn upstream_429_is_429_with_retry_after() {
    let (_stub, proxy) = stubbed(Scenario::RateLimited, Duration::ZERO).await;
    let resp = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!(resp.headers()["retry-after"], "7");
    expect_error(resp, 429, "upstream_rate_limited").await;
    proxy.stop().await;
}

#[tokio::test]
async fn hanging_upstream_is_504_after_first_byte_timeout() {
    let (_stub, proxy) = stubbed(Scenario::Hang, Duration::ZERO).await;
    let t0 = Instant::now();
    let resp = post_chat(&proxy, &chat_body(true)).await;
    let took = t0.elapsed();
    expect_error(resp, 504, "upstream_timeout").await;
    assert!(
        took >= Duration::from_millis(550) && took < Duration::from_secs(3),
        "{took:?}"
    );
    proxy.stop().await;
}

#[tokio::test]
async fn stall_after_first_chunk_ends_with_timeout_event() {
    let (_stub, proxy) = stubbed(Scenario::Stall, Duration::ZERO).await;
    let evs = events(&chat_stream(&proxy).await);
    assert!(evs.len() >= 2);
    let (code, _) = error_event(&evs).expect("error event");
    assert_eq!(code, "upstream_timeout");
    proxy.stop().await;
}

#[tokio::test]
async fn total_timeout_ends_slow_stream_with_event() {
    let stub = stub(Scenario::Slow, Duration::from_millis(300)).await;
    let mut cfg = config_for(&stub.base_url());
    cfg.timeouts.total = Duration::from_millis(700);
    let proxy = start(cfg).await;
    let evs = events(&chat_stream(&proxy).await);
    let (code, msg) = error_event(&evs).expect("error event");
    assert_eq!(code, "upstream_timeout");
    assert!(msg.contains("longer than"), "{msg}");
    proxy.stop().await;
}

#[tokio::test]
async fn drop_mid_stream_ends_with_error_event() {
    let (_stub, proxy) = stubbed(Scenario::Drop, Duration::ZERO).await;
    // The proxy ends its own stream cleanly: the client reads a complete body.
    let body = chat_stream(&proxy).await;
    let evs = events(&body);
    assert_eq!(content(&evs), "Hello");
    let (code, msg) = error_event(&evs).expect("error event");
    assert_eq!(code, "upstream_stream");
    assert!(
        !msg.contains("127.0.0.1"),
        "no internals in the message: {msg}"
    );
    assert!(body.ends_with("\n\n"));
    proxy.stop().await;
}

#[tokio::test]
async fn malformed_chunk_is_flagged_and_ends_stream() {
    let (_stub, proxy) = stubbed(Scenario::Malformed, Duration::ZERO).await;
    let body = chat_stream(&proxy).await;
    let evs = events(&body);
    // The good chunks before it arrive; the bad one and everything after do not.
    assert_eq!(content(&evs), "Hello");
    assert!(!body.contains("oops"));
    assert!(!body.contains("[DONE]"));
    assert_eq!(error_event(&evs).unwrap().0, "upstream_malformed");
    proxy.stop().await;
}

#[tokio::test]
async fn stream_without_done_gets_error_event() {
    let (_stub, proxy) = stubbed(Scenario::NoDone, Duration::ZERO).await;
    let evs = events(&chat_stream(&proxy).await);
    assert_eq!(content(&evs), "Hello, world!");
    assert_eq!(error_event(&evs).unwrap().0, "upstream_stream");
    proxy.stop().await;
}

#[tokio::test]
async fn in_band_error_becomes_error_event() {
    let (_stub, proxy) = stubbed(Scenario::ErrorEvent, Duration::ZERO).await;
    let evs = events(&chat_stream(&proxy).await);
    let (code, msg) = error_event(&evs).unwrap();
    assert_eq!(code, "upstream_error");
    assert_eq!(msg, "model overloaded");
    proxy.stop().await;
}

#[tokio::test]
async fn scenario_chosen_by_base_url_path() {
    let stub = stub(Scenario::Ok, Duration::ZERO).await;
    let base = format!("http://{}/error500/v1", stub.addr);
    let proxy = start(config_for(&base)).await;
    expect_error(
        post_chat(&proxy, &chat_body(true)).await,
        502,
        "upstream_error",
    )
    .await;
    assert_eq!(stub.recorded()[0].path, "/error500/v1/chat/completions");
    proxy.stop().await;
}

#[tokio::test]
async fn unreachable_upstream_is_502() {
    // Bind then drop a listener: nothing listens on that port any more.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let proxy = start(config_for(&format!("http://127.0.0.1:{port}/v1"))).await;
    expect_error(
        post_chat(&proxy, &chat_body(true)).await,
        502,
        "upstream_unreachable",
    )
    .await;
    proxy.stop().await;
}

#[tokio::test]
async fn no_key_configured_sends_no_authorization() {
    let stub = stub(Scenario::Ok, Duration::ZERO).await;
    let mut cfg = config_for(&stub.base_url());
    if let Some(u) = cfg.upstream.as_mut() {
        u.api_key = None;
    }
    let proxy = start(cfg).await;
    assert_eq!(post_chat(&proxy, &chat_body(true)).await.status(), 200);
    assert_eq!(stub.recorded()[0].authorization, None);
    proxy.stop().await;
}

#[tokio::test]
async fn cite_scenario_streams_the_browser_tests_answer() {
    let (_stub, proxy) = stubbed(Scenario::Cite, Duration::ZERO).await;
    let evs = events(&chat_stream(&proxy).await);
    assert_eq!(content(&evs), proxy::stub::CITE_ANSWER.concat());
    assert!(content(&evs).contains("[1]") && content(&evs).contains("[2]"));
    proxy.stop().await;
}

//! Limits, CORS, rate limiting, the concurrency cap, health and the no-upstream mode.

use std::time::Duration;

use crate::support::*;
use futures_util::StreamExt;
use proxy::stub::Scenario;
use serde_json::{json, Value};

#[tokio::test]
async fn body_over_64k_is_413() {
    let (stub, proxy) = stubbed(Scenario::Ok, Duration::ZERO).await;
    let big =
        json!({"messages": [{"role": "user", "content": "x".repeat(70_000)}], "stream": true});
    expect_error(post_chat(&proxy, &big).await, 413, "too_large").await;
    // Without Content-Length (chunked), the limit still holds while reading.
    let chunks: Vec<Result<Vec<u8>, std::io::Error>> =
        vec![Ok(vec![b' '; 40_000]), Ok(vec![b' '; 40_000])];
    let resp = within(
        client()
            .post(proxy.url("/api/chat"))
            .header("content-type", "application/json")
            .body(reqwest::Body::wrap_stream(futures_util::stream::iter(
                chunks,
            )))
            .send(),
    )
    .await
    .unwrap();
    expect_error(resp, 413, "too_large").await;
    assert!(stub.recorded().is_empty());
    proxy.stop().await;
}

#[tokio::test]
async fn requests_not_from_the_widget_are_400() {
    let (stub, proxy) = stubbed(Scenario::Ok, Duration::ZERO).await;
    let many: Vec<Value> = (0..40)
        .map(|_| json!({"role": "user", "content": "hi"}))
        .collect();
    let v = expect_error(
        post_chat(
            &proxy,
            &json!({"messages": many, "stream": true, "content_id": book_id()}),
        )
        .await,
        400,
        "not_book_grounded",
    )
    .await;
    assert_eq!(v["error"]["part"], "messages");

    let bad_role = json!({"messages": [{"role": "tool", "content": "x"}], "stream": true});
    let v = expect_error(post_chat(&proxy, &bad_role).await, 400, "not_book_grounded").await;
    assert_eq!(v["error"]["part"], "body");

    let not_json = within(
        client()
            .post(proxy.url("/api/chat"))
            .header("content-type", "application/json")
            .body("{not json")
            .send(),
    )
    .await
    .unwrap();
    expect_error(not_json, 400, "bad_request").await;
    expect_error(
        post_chat(&proxy, &json!({"messages": [], "content_id": book_id()})).await,
        400,
        "not_book_grounded",
    )
    .await;
    assert_eq!(post_chat(&proxy, &chat_body(true)).await.status(), 200);
    assert_eq!(
        stub.recorded().len(),
        1,
        "only the valid request went upstream"
    );
    proxy.stop().await;
}

#[tokio::test]
async fn health_and_no_upstream_503() {
    let proxy = start(proxy::Config::default()).await;
    let h: Value = get_json(&proxy, "/api/health").await;
    assert_eq!(h["upstream"], "none");
    assert_eq!(h["model"], Value::Null);
    expect_error(
        post_chat(&proxy, &chat_body(true)).await,
        503,
        "no_upstream",
    )
    .await;
    proxy.stop().await;

    let (_stub, proxy) = stubbed(Scenario::Ok, Duration::ZERO).await;
    let body = text(get(&proxy, "/api/health").await).await;
    let h: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(h["upstream"], "configured");
    assert_eq!(h["model"], MODEL);
    assert!(!body.contains(KEY));
    proxy.stop().await;
}

#[tokio::test]
async fn unknown_api_path_and_method_are_json() {
    let proxy = start(proxy::Config::default()).await;
    let resp = get(&proxy, "/api/nope").await;
    expect_error(resp, 404, "not_found").await;
    let resp = get(&proxy, "/api/chat").await;
    expect_error(resp, 405, "method_not_allowed").await;
    proxy.stop().await;
}

#[tokio::test]
async fn rate_limit_gives_429_with_retry_after() {
    let stub = stub(Scenario::Ok, Duration::ZERO).await;
    let mut cfg = config_for(&stub.base_url());
    cfg.rate_limit.capacity = 3;
    cfg.rate_limit.per_minute = 2;
    let proxy = start(cfg).await;
    for _ in 0..3 {
        let resp = post_chat(&proxy, &chat_body(true)).await;
        assert_eq!(resp.status(), 200);
        text(resp).await;
    }
    let resp = post_chat(&proxy, &chat_body(true)).await;
    let retry: u64 = resp.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=30).contains(&retry), "retry-after {retry}");
    expect_error(resp, 429, "rate_limited").await;
    assert_eq!(stub.recorded().len(), 3);
    // Health is not rate limited.
    let h = get(&proxy, "/api/health").await;
    assert_eq!(h.status(), 200);
    proxy.stop().await;
}

#[tokio::test]
async fn concurrency_cap_gives_503_and_frees_slots() {
    let stub = stub(Scenario::Slow, Duration::from_millis(200)).await;
    let mut cfg = config_for(&stub.base_url());
    cfg.max_concurrent = 2;
    let proxy = start(cfg).await;
    // Two streams in flight hold both slots.
    let a = post_chat(&proxy, &chat_body(true)).await;
    let b = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!((a.status().as_u16(), b.status().as_u16()), (200, 200));
    let resp = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!(resp.headers()["retry-after"], "2");
    expect_error(resp, 503, "overloaded").await;
    // Finishing them frees the slots.
    text(a).await;
    text(b).await;
    let c = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!(c.status(), 200);
    // A client that leaves mid-stream frees its slot too.
    let mut s = c.bytes_stream();
    within(s.next()).await.unwrap().unwrap();
    drop(s);
    let d = post_chat(&proxy, &chat_body(true)).await;
    assert_eq!(d.status(), 200);
    // The server notices the departure at its next write (one chunk delay later).
    let freed = within(async {
        loop {
            let e = post_chat(&proxy, &chat_body(true)).await;
            if e.status() == 200 {
                return e;
            }
            assert_eq!(e.status(), 503);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
    drop(freed);
    drop(d);
    proxy.stop().await;
}

#[tokio::test]
async fn cors_only_for_configured_origins() {
    let stub = stub(Scenario::Ok, Duration::ZERO).await;
    let mut cfg = config_for(&stub.base_url());
    cfg.allowed_origins = vec!["https://book.example.org".into()];
    let proxy = start(cfg).await;
    let c = client();

    let preflight = |origin: &'static str| {
        c.request(reqwest::Method::OPTIONS, proxy.url("/api/chat"))
            .header("origin", origin)
            .header("access-control-request-method", "POST")
            .header("access-control-request-headers", "content-type")
            .send()
    };
    let ok = within(preflight("https://book.example.org")).await.unwrap();
    assert_eq!(
        ok.headers()["access-control-allow-origin"],
        "https://book.example.org"
    );
    let denied = within(preflight("https://evil.example")).await.unwrap();
    assert!(denied
        .headers()
        .get("access-control-allow-origin")
        .is_none());

    let post = |origin: &'static str| {
        c.post(proxy.url("/api/chat"))
            .header("origin", origin)
            .header("content-type", "text/plain")
            .body(chat_body(true).to_string())
            .send()
    };
    let ok = within(post("https://book.example.org")).await.unwrap();
    assert_eq!(ok.status(), 200);
    assert_eq!(
        ok.headers()["access-control-allow-origin"],
        "https://book.example.org"
    );
    text(ok).await;
    // A "simple" request from another origin is refused outright, not just hidden by CORS.
    let denied = within(post("https://evil.example")).await.unwrap();
    expect_error(denied, 403, "origin_not_allowed").await;
    // Same origin (the book served by the proxy itself) is always fine.
    let same = format!("http://{}", proxy.addr);
    let resp = within(
        c.post(proxy.url("/api/chat"))
            .header("origin", same)
            .header("content-type", "application/json")
            .body(chat_body(true).to_string())
            .send(),
    )
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    text(resp).await;
    assert_eq!(stub.recorded().len(), 2);
    proxy.stop().await;
}

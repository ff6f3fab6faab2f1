//! `POST /api/chat`: check the widget's request, impose the proxy's model settings, forward.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use serde::Serialize;

use crate::config::Generation;
use crate::error::ApiError;
use crate::guard::{Part, Refusal};
use crate::upstream::Meter;
use crate::AppState;

/// One chat message (the shared contract's type).
pub use book_prompt::ChatMessage as Message;
/// What the widget sends (the shared contract's type; unknown fields are refused).
pub use book_prompt::ChatRequestBody as ChatRequest;

/// The body sent upstream: the checked messages with the proxy's own settings.
#[derive(Debug, Serialize)]
pub struct UpstreamRequest<'a> {
    /// Always the configured model.
    pub model: &'a str,
    /// The checked messages.
    pub messages: &'a [Message],
    /// As the client asked.
    pub stream: bool,
    /// The configured cap.
    pub max_tokens: u32,
    /// The configured temperature.
    pub temperature: f32,
    /// Asks OpenAI-compatible servers for a final `usage` chunk (token budgets).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_options: Option<StreamOptions>,
}

/// `stream_options` of the chat-completions API.
#[derive(Debug, Serialize)]
pub struct StreamOptions {
    /// Send a last chunk with token usage.
    pub include_usage: bool,
}

/// Parses a body: malformed JSON is `bad_request`; JSON of another shape (unknown fields such as
/// `model`, unknown roles, non-text content) is `not_book_grounded` with part `body`.
pub fn parse_request(bytes: &[u8]) -> Result<ChatRequest, ApiError> {
    serde_json::from_slice(bytes).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => ApiError::not_book_grounded(
            Part::Body.as_str(),
            format!("not the widget's request shape: {e}"),
        ),
        _ => ApiError::bad_request(format!("invalid request body: {e}")),
    })
}

/// The JSON body for the upstream.
pub fn upstream_body(req: &ChatRequest, model: &str, generation: Generation) -> Vec<u8> {
    let body = UpstreamRequest {
        model,
        messages: &req.messages,
        stream: req.stream,
        max_tokens: generation.max_tokens,
        temperature: generation.temperature,
        stream_options: req.stream.then_some(StreamOptions {
            include_usage: true,
        }),
    };
    // Serialising plain strings and numbers cannot fail.
    serde_json::to_vec(&body).unwrap_or_default()
}

/// Maps a guard refusal to its HTTP error.
pub fn refusal_error(r: Refusal) -> ApiError {
    match r {
        Refusal::BookUpdated => ApiError::book_updated(),
        Refusal::NotGrounded { part, reason } => ApiError::not_book_grounded(part.as_str(), reason),
    }
}

/// Reads a body of at most `limit` bytes; 413 beyond it.
pub async fn read_body(body: Body, headers: &HeaderMap, limit: usize) -> Result<Bytes, ApiError> {
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::too_large(limit));
    }
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(&e);
        while let Some(s) = source {
            if s.is::<http_body_util::LengthLimitError>() {
                return ApiError::too_large(limit);
            }
            source = s.source();
        }
        ApiError::bad_request("could not read the request body")
    })
}

/// Rate-limits the client (its address per `--trusted-proxies`; 429), then reads its body of at
/// most `limit` bytes (413/400): the first steps of every POST handler.
pub async fn client_body(
    state: &AppState,
    peer: SocketAddr,
    headers: &HeaderMap,
    body: Body,
    limit: usize,
) -> Result<Bytes, ApiError> {
    let client = state.trusted_proxies.client_ip(peer.ip(), headers);
    state
        .limiter
        .check(client)
        .map_err(ApiError::rate_limited)?;
    read_body(body, headers, limit).await
}

/// The handler. Order: no model → 503; per-client rate limit (client address per
/// `--trusted-proxies`) → 429; body → 413/400; book guard → 400/409; global budget → 429/503;
/// concurrency cap → 503; then the upstream. Nothing refused reaches the upstream.
pub async fn chat(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let Some(upstream) = &state.upstream else {
        return Err(ApiError::no_upstream());
    };
    let bytes = client_body(&state, peer, &headers, body, state.limits.max_body_bytes).await?;
    let req = parse_request(&bytes)?;
    state.guard.check(&req).map_err(refusal_error)?;
    state.budget.admit().map_err(|e| {
        let status = if e.daily {
            StatusCode::SERVICE_UNAVAILABLE
        } else {
            StatusCode::TOO_MANY_REQUESTS
        };
        ApiError::budget_exhausted(status, e.retry_after, e.what)
    })?;
    let permit = state
        .concurrency
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::overloaded(2))?;
    let upstream_body = upstream_body(&req, upstream.model(), state.generation);
    let meter = Meter {
        budget: state.budget.clone(),
        prompt_tokens: req
            .messages
            .iter()
            .map(|m| book_prompt::text::estimate_tokens(&m.content) as u64)
            .sum(),
        max_answer_tokens: u64::from(state.generation.max_tokens),
    };
    upstream
        .forward(
            upstream_body,
            req.stream,
            permit,
            state.hard_stop.clone(),
            meter,
        )
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_cannot_choose_model_or_cap() {
        let with_model =
            br#"{"messages":[{"role":"user","content":"hi"}],"stream":true,"model":"gpt-evil"}"#;
        let e = parse_request(with_model).unwrap_err();
        assert_eq!((e.code, e.part), ("not_book_grounded", Some("body")));
        let req = parse_request(br#"{"messages":[{"role":"user","content":"hi"}],"stream":true}"#)
            .unwrap();
        let out: serde_json::Value = serde_json::from_slice(&upstream_body(
            &req,
            "mine",
            Generation {
                max_tokens: 50,
                temperature: 0.5,
            },
        ))
        .unwrap();
        assert_eq!(out["model"], "mine");
        assert_eq!(out["max_tokens"], 50);
        assert_eq!(out["stream"], true);
        assert_eq!(out["stream_options"]["include_usage"], true);
        assert_eq!(out["messages"][0]["content"], "hi");
    }

    #[test]
    fn malformed_json_is_bad_request() {
        assert_eq!(parse_request(b"not json").unwrap_err().code, "bad_request");
        let parts = br#"{"messages":[{"role":"user","content":["parts"]}]}"#;
        assert_eq!(parse_request(parts).unwrap_err().code, "not_book_grounded");
        let tool = br#"{"messages":[{"role":"tool","content":"x"}]}"#;
        assert_eq!(parse_request(tool).unwrap_err().code, "not_book_grounded");
    }
}

//! `POST /api/chat`: check the widget's request, impose the proxy's model settings, forward.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{header, HeaderMap};
use axum::response::Response;
use bytes::Bytes;
use serde::{Deserialize, Serialize};

use crate::config::{Generation, Limits};
use crate::error::ApiError;
use crate::AppState;

/// Longest accepted `session_id`.
const MAX_SESSION_ID: usize = 128;

/// What the widget sends. Unknown fields (say, a `model`) are ignored, never forwarded.
#[derive(Debug, Deserialize)]
pub struct ChatRequest {
    /// The conversation, already grounded by the widget.
    pub messages: Vec<Message>,
    /// Stream the answer as SSE (the widget's normal mode).
    #[serde(default)]
    pub stream: bool,
    /// The widget's session, checked for size only; not forwarded upstream.
    #[serde(default)]
    pub session_id: Option<String>,
}

/// One chat message.
#[derive(Debug, Deserialize, Serialize)]
pub struct Message {
    /// `user`, `assistant` or `system`.
    pub role: String,
    /// Plain text.
    pub content: String,
}

/// The body sent upstream: the client's messages with the proxy's own settings.
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
}

impl ChatRequest {
    /// Parses and checks a body against the limits; every failure is a 400 saying what is wrong.
    pub fn parse(bytes: &[u8], limits: &Limits) -> Result<Self, ApiError> {
        let req: ChatRequest = serde_json::from_slice(bytes)
            .map_err(|e| ApiError::bad_request(format!("invalid request body: {e}")))?;
        if req.messages.is_empty() {
            return Err(ApiError::bad_request("messages must not be empty"));
        }
        if req.messages.len() > limits.max_messages {
            return Err(ApiError::bad_request(format!(
                "too many messages: {} (at most {})",
                req.messages.len(),
                limits.max_messages
            )));
        }
        for (i, m) in req.messages.iter().enumerate() {
            if !matches!(m.role.as_str(), "user" | "assistant" | "system") {
                return Err(ApiError::bad_request(format!(
                    "messages[{i}].role must be user, assistant or system"
                )));
            }
            if m.content.chars().count() > limits.max_message_chars {
                return Err(ApiError::bad_request(format!(
                    "messages[{i}].content is longer than {} characters",
                    limits.max_message_chars
                )));
            }
        }
        if req
            .session_id
            .as_ref()
            .is_some_and(|s| s.chars().count() > MAX_SESSION_ID)
        {
            return Err(ApiError::bad_request(format!(
                "session_id is longer than {MAX_SESSION_ID} characters"
            )));
        }
        Ok(req)
    }

    /// The JSON body for the upstream.
    pub fn upstream_body(&self, model: &str, generation: Generation) -> Vec<u8> {
        let body = UpstreamRequest {
            model,
            messages: &self.messages,
            stream: self.stream,
            max_tokens: generation.max_tokens,
            temperature: generation.temperature,
        };
        // Serialising plain strings and numbers cannot fail.
        serde_json::to_vec(&body).unwrap_or_default()
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

/// The handler. Order: no model → 503; rate limit → 429; body and limits → 413/400;
/// concurrency cap → 503; then the upstream.
pub async fn chat(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let Some(upstream) = &state.upstream else {
        return Err(ApiError::no_upstream());
    };
    state
        .limiter
        .check(peer.ip())
        .map_err(ApiError::rate_limited)?;
    let bytes = read_body(body, &headers, state.limits.max_body_bytes).await?;
    let req = ChatRequest::parse(&bytes, &state.limits)?;
    let permit = state
        .concurrency
        .clone()
        .try_acquire_owned()
        .map_err(|_| ApiError::overloaded(2))?;
    let upstream_body = req.upstream_body(upstream.model(), state.generation);
    upstream
        .forward(upstream_body, req.stream, permit, state.hard_stop.clone())
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(messages: &str) -> Vec<u8> {
        format!(r#"{{"messages":{messages},"stream":true,"model":"gpt-evil","max_tokens":99999}}"#)
            .into_bytes()
    }

    #[test]
    fn client_cannot_choose_model_or_cap() {
        let req = ChatRequest::parse(
            &body(r#"[{"role":"user","content":"hi"}]"#),
            &Limits::default(),
        )
        .unwrap();
        let out: serde_json::Value = serde_json::from_slice(&req.upstream_body(
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
        assert_eq!(out["messages"][0]["content"], "hi");
        assert_eq!(out.as_object().unwrap().len(), 5);
    }

    #[test]
    fn limits() {
        let l = Limits::default();
        let bad = |m: &str| ChatRequest::parse(&body(m), &l).unwrap_err().message;
        assert!(bad("[]").contains("empty"));
        assert!(bad(r#"[{"role":"tool","content":"x"}]"#).contains("role"));
        let long = format!(r#"[{{"role":"user","content":"{}"}}]"#, "é".repeat(16_001));
        assert!(bad(&long).contains("longer"));
        let many = format!(
            "[{}]",
            vec![r#"{"role":"user","content":"x"}"#; 41].join(",")
        );
        assert!(bad(&many).contains("too many"));
        let ok = format!(
            "[{}]",
            vec![r#"{"role":"user","content":"x"}"#; 40].join(",")
        );
        assert!(ChatRequest::parse(&body(&ok), &l).is_ok());
        assert!(ChatRequest::parse(b"not json", &l).is_err());
        assert!(
            ChatRequest::parse(br#"{"messages":[{"role":"user","content":["parts"]}]}"#, &l)
                .is_err()
        );
    }
}

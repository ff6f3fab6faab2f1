//! Talking to the one configured OpenAI-compatible upstream: sending, mapping its failures to
//! [`ApiError`]s, and relaying its SSE stream chunk by chunk.

use std::pin::Pin;
use std::time::Duration;

use axum::body::Body;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::Response;
use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use tokio::sync::OwnedSemaphorePermit;
use tokio::time::{timeout_at, Instant};
use tokio_util::sync::CancellationToken;

use crate::config::{Timeouts, UpstreamConfig};
use crate::error::{sse_error_event, ApiError};
use crate::scrub::scrub;
use crate::sse::{Problem, SseFramer};
use book_retrieval::error::error_line;

/// Largest non-streamed upstream body (or error body) read into memory.
const MAX_UPSTREAM_BODY: usize = 4 << 20;
/// Largest error body read for its message.
const MAX_ERROR_BODY: usize = 64 << 10;
/// `Retry-After` passed on when the upstream's 429 gives none.
const DEFAULT_UPSTREAM_RETRY: u64 = 10;

/// A client for the upstream, shared by all requests (it pools connections).
#[derive(Debug, Clone)]
pub struct Upstream {
    client: reqwest::Client,
    cfg: UpstreamConfig,
    timeouts: Timeouts,
}

type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, reqwest::Error>> + Send>>;

impl Upstream {
    /// Builds the HTTP client (rustls, connect timeout, no overall timeout: the proxy keeps
    /// its own first-byte and total deadlines so it can answer 504 or an error event).
    pub fn new(cfg: UpstreamConfig, timeouts: Timeouts) -> Result<Self, reqwest::Error> {
        crate::tls::install_crypto_provider();
        let client = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .tcp_nodelay(true)
            .pool_idle_timeout(Duration::from_secs(60))
            .user_agent(concat!("book-chat-proxy/", env!("CARGO_PKG_VERSION")))
            .build()?;
        Ok(Self {
            client,
            cfg,
            timeouts,
        })
    }

    /// The model every request is sent with.
    pub fn model(&self) -> &str {
        &self.cfg.model
    }

    /// Sends `body` (already JSON) and turns the answer into the client's response.
    ///
    /// Streaming: waits for the first body chunk (first-byte timeout → 504) before answering,
    /// so every failure before the first byte gets a proper status; after it, failures become
    /// an SSE error event. `permit` is held until the stream ends.
    pub async fn forward(
        &self,
        body: Vec<u8>,
        stream: bool,
        permit: OwnedSemaphorePermit,
        hard_stop: CancellationToken,
        meter: Meter,
    ) -> Result<Response, ApiError> {
        let start = Instant::now();
        let total_deadline = start + self.timeouts.total;
        // Without streaming most servers send headers only once the answer is complete.
        let header_deadline = if stream {
            (start + self.timeouts.first_byte).min(total_deadline)
        } else {
            total_deadline
        };

        let mut req = self
            .client
            .post(self.cfg.chat_url.clone())
            .header(header::CONTENT_TYPE, "application/json")
            .header(
                header::ACCEPT,
                if stream {
                    "text/event-stream"
                } else {
                    "application/json"
                },
            )
            .body(body);
        if let Some(key) = &self.cfg.api_key {
            let mut value = HeaderValue::from_str(&format!("Bearer {}", key.expose()))
                .map_err(|_| ApiError::internal("the configured API key is not a valid header"))?;
            value.set_sensitive(true);
            req = req.header(header::AUTHORIZATION, value);
        }

        let resp = match timeout_at(header_deadline, req.send()).await {
            Err(_) => return Err(self.timeout_error(stream)),
            Ok(Err(e)) => return Err(self.send_error(e)),
            Ok(Ok(r)) => r,
        };
        let status = resp.status();
        if !status.is_success() {
            return Err(self.status_error(resp, total_deadline).await);
        }
        let is_sse = resp
            .headers()
            .get(header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if !(stream && is_sse) {
            // No stream to count: charge the prompt and the full answer cap.
            meter
                .budget
                .add_tokens(meter.prompt_tokens + meter.max_answer_tokens);
            return self.whole_body(resp, total_deadline).await;
        }

        let mut upstream: ByteStream = Box::pin(resp.bytes_stream());
        let first_deadline = (start + self.timeouts.first_byte).min(total_deadline);
        let mut framer = SseFramer::new();
        let mut first = Vec::new();
        // Skip empty chunks and wait until the first whole event: that is the first byte
        // the client can use.
        loop {
            let chunk = match timeout_at(first_deadline, upstream.next()).await {
                Err(_) => return Err(self.timeout_error(true)),
                Ok(None) => {
                    let p = framer.finish();
                    if p.forward.is_empty() {
                        return Err(ApiError::upstream(
                            "upstream_stream",
                            "the model closed the stream before sending anything",
                        ));
                    }
                    first.extend(p.forward);
                    break;
                }
                Ok(Some(Err(e))) => {
                    tracing::warn!(error = %error_line(&e.without_url()), "upstream stream failed before first event");
                    return Err(ApiError::upstream(
                        "upstream_stream",
                        "the connection to the model broke before it answered",
                    ));
                }
                Ok(Some(Ok(b))) => b,
            };
            let p = framer.push(&chunk);
            if let Some(problem) = p.problem {
                if p.forward.is_empty() {
                    return Err(self.problem_error(problem));
                }
                // Send what was good, then the error event.
                let mut bytes = p.forward;
                bytes.extend_from_slice(&self.problem_event(&problem));
                return Ok(sse_response(Body::from(bytes)));
            }
            first.extend(p.forward);
            if !first.is_empty() {
                break;
            }
        }

        let relay = Relay {
            upstream,
            framer,
            first: Some(Bytes::from(first)),
            finished: false,
            total_deadline,
            idle: self.timeouts.first_byte,
            hard_stop,
            this: self.clone(),
            _permit: permit,
            meter: Some(meter),
        };
        let stream = futures_util::stream::unfold(relay, |mut r| async move {
            r.next_frame()
                .await
                .map(|b| (Ok::<_, std::convert::Infallible>(b), r))
        });
        Ok(sse_response(Body::from_stream(stream)))
    }

    fn timeout_error(&self, stream: bool) -> ApiError {
        if stream {
            ApiError::upstream_timeout(format!(
                "the model did not start answering within {} s",
                self.timeouts.first_byte.as_secs_f32()
            ))
        } else {
            ApiError::upstream_timeout(format!(
                "the model did not answer within {} s",
                self.timeouts.total.as_secs_f32()
            ))
        }
    }

    fn send_error(&self, e: reqwest::Error) -> ApiError {
        // `without_url`: the URL is not secret, but logs stay free of anything request-shaped.
        let e = e.without_url();
        tracing::warn!(error = %error_line(&e), "upstream request failed");
        if e.is_timeout() {
            ApiError::upstream_timeout("connecting to the model timed out")
        } else if e.is_connect() {
            ApiError::upstream(
                "upstream_unreachable",
                "could not connect to the model server",
            )
        } else {
            ApiError::upstream("upstream_error", "the request to the model server failed")
        }
    }

    async fn status_error(&self, resp: reqwest::Response, deadline: Instant) -> ApiError {
        let status = resp.status();
        let retry_after = resp
            .headers()
            .get(header::RETRY_AFTER)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        let read_deadline = deadline.min(Instant::now() + Duration::from_secs(5));
        let text = match timeout_at(read_deadline, read_limited(resp, MAX_ERROR_BODY)).await {
            Ok(Ok(bytes)) => upstream_message(&bytes),
            _ => String::new(),
        };
        let text = scrub(&text, self.cfg.api_key.as_ref());
        tracing::warn!(%status, message = %text, "upstream answered with an error");
        let detail = if text.is_empty() {
            format!("the model server answered {}", status.as_u16())
        } else {
            format!("the model server answered {}: {text}", status.as_u16())
        };
        match status {
            StatusCode::TOO_MANY_REQUESTS => ApiError::upstream_rate_limited(
                retry_after.unwrap_or(DEFAULT_UPSTREAM_RETRY).max(1),
                detail,
            ),
            StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN => {
                ApiError::upstream("upstream_auth", detail)
            }
            StatusCode::GATEWAY_TIMEOUT | StatusCode::REQUEST_TIMEOUT => {
                ApiError::upstream_timeout(detail)
            }
            _ => ApiError::upstream("upstream_error", detail),
        }
    }

    /// Non-streamed answers (or an upstream that ignored `stream: true`): checked JSON, passed on.
    async fn whole_body(
        &self,
        resp: reqwest::Response,
        deadline: Instant,
    ) -> Result<Response, ApiError> {
        let bytes = match timeout_at(deadline, read_limited(resp, MAX_UPSTREAM_BODY)).await {
            Err(_) => return Err(self.timeout_error(false)),
            Ok(Err(ReadError::TooLarge)) => {
                return Err(ApiError::upstream(
                    "upstream_error",
                    "the model's answer was too large",
                ))
            }
            Ok(Err(ReadError::Http(e))) => {
                tracing::warn!(error = %error_line(&e.without_url()), "reading upstream body failed");
                return Err(ApiError::upstream(
                    "upstream_stream",
                    "the connection to the model broke mid-answer",
                ));
            }
            Ok(Ok(b)) => b,
        };
        match serde_json::from_slice::<serde_json::Value>(&bytes) {
            Ok(v) if v.get("error").is_some_and(|e| !e.is_null()) => {
                let msg = scrub(
                    &crate::sse::error_message(&v["error"]),
                    self.cfg.api_key.as_ref(),
                );
                Err(ApiError::upstream("upstream_error", msg))
            }
            Ok(_) => Ok(Response::builder()
                .header(header::CONTENT_TYPE, "application/json")
                .header(header::CACHE_CONTROL, "no-store")
                .body(Body::from(bytes))
                .unwrap_or_default()),
            Err(_) => Err(ApiError::upstream(
                "upstream_malformed",
                "the model server's answer is not valid JSON",
            )),
        }
    }

    fn problem_error(&self, problem: Problem) -> ApiError {
        match problem {
            Problem::Malformed(m) => ApiError::upstream("upstream_malformed", m),
            Problem::InBandError(m) => {
                ApiError::upstream("upstream_error", scrub(&m, self.cfg.api_key.as_ref()))
            }
        }
    }

    fn problem_event(&self, problem: &Problem) -> Bytes {
        match problem {
            Problem::Malformed(m) => sse_error_event("upstream_malformed", m),
            Problem::InBandError(m) => {
                sse_error_event("upstream_error", &scrub(m, self.cfg.api_key.as_ref()))
            }
        }
    }
}

fn sse_response(body: Body) -> Response {
    Response::builder()
        .status(StatusCode::OK)
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        // Tells nginx-style front ends not to buffer the stream.
        .header("x-accel-buffering", "no")
        .body(body)
        .unwrap_or_default()
}

/// The state of one relayed stream; yields frames until the upstream ends or fails.
struct Relay {
    upstream: ByteStream,
    framer: SseFramer,
    first: Option<Bytes>,
    finished: bool,
    total_deadline: Instant,
    idle: Duration,
    hard_stop: CancellationToken,
    this: Upstream,
    /// Held so the concurrency slot is freed exactly when the stream ends or the client leaves.
    _permit: OwnedSemaphorePermit,
    /// Charged when the relay ends (normally or because the client left).
    meter: Option<Meter>,
}

/// Where an answer's tokens are charged, and the estimate of its prompt.
#[derive(Debug, Clone)]
pub struct Meter {
    /// The global budget.
    pub budget: std::sync::Arc<crate::budget::Budget>,
    /// Estimated tokens of the prompt (used when the upstream sends no `usage`).
    pub prompt_tokens: u64,
    /// The `max_tokens` cap (charged for non-streamed answers).
    pub max_answer_tokens: u64,
}

impl Drop for Relay {
    fn drop(&mut self) {
        if let Some(m) = self.meter.take() {
            let tokens = self.framer.usage().unwrap_or_else(|| {
                m.prompt_tokens + (self.framer.content_chars() as u64).div_ceil(4)
            });
            m.budget.add_tokens(tokens);
        }
    }
}

impl Relay {
    async fn next_frame(&mut self) -> Option<Bytes> {
        if let Some(first) = self.first.take() {
            if self.framer.saw_done() {
                self.finished = true;
            }
            return Some(first);
        }
        loop {
            if self.finished {
                return None;
            }
            let deadline = (Instant::now() + self.idle).min(self.total_deadline);
            let next = tokio::select! {
                biased;
                _ = self.hard_stop.cancelled() => {
                    self.finished = true;
                    return Some(sse_error_event(
                        "shutting_down",
                        "the server is restarting; please ask again in a moment",
                    ));
                }
                n = timeout_at(deadline, self.upstream.next()) => n,
            };
            match next {
                Err(_) => {
                    self.finished = true;
                    let msg = if Instant::now() >= self.total_deadline {
                        "the answer took longer than the server allows".to_string()
                    } else {
                        format!(
                            "the model stopped sending for {} s",
                            self.idle.as_secs_f32()
                        )
                    };
                    return Some(sse_error_event("upstream_timeout", &msg));
                }
                Ok(Some(Ok(chunk))) => {
                    let p = self.framer.push(&chunk);
                    if let Some(problem) = p.problem {
                        self.finished = true;
                        let mut out = p.forward;
                        out.extend_from_slice(&self.this.problem_event(&problem));
                        return Some(Bytes::from(out));
                    }
                    if self.framer.saw_done() {
                        self.finished = true;
                    }
                    if !p.forward.is_empty() {
                        return Some(Bytes::from(p.forward));
                    }
                }
                Ok(Some(Err(e))) => {
                    self.finished = true;
                    tracing::warn!(error = %error_line(&e.without_url()), "upstream stream broke");
                    return Some(sse_error_event(
                        "upstream_stream",
                        "the connection to the model broke mid-answer",
                    ));
                }
                Ok(None) => {
                    self.finished = true;
                    let p = self.framer.finish();
                    let mut out = p.forward;
                    if let Some(problem) = p.problem {
                        out.extend_from_slice(&self.this.problem_event(&problem));
                    } else if !self.framer.saw_done() {
                        out.extend_from_slice(&sse_error_event(
                            "upstream_stream",
                            "the model's stream ended before [DONE]",
                        ));
                    }
                    return if out.is_empty() {
                        None
                    } else {
                        Some(Bytes::from(out))
                    };
                }
            }
        }
    }
}

enum ReadError {
    TooLarge,
    Http(reqwest::Error),
}

async fn read_limited(resp: reqwest::Response, limit: usize) -> Result<Bytes, ReadError> {
    if resp.content_length().is_some_and(|n| n as usize > limit) {
        return Err(ReadError::TooLarge);
    }
    let mut stream = resp.bytes_stream();
    let mut buf = Vec::new();
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.map_err(ReadError::Http)?;
        if buf.len() + chunk.len() > limit {
            return Err(ReadError::TooLarge);
        }
        buf.extend_from_slice(&chunk);
    }
    Ok(Bytes::from(buf))
}

/// The message inside an upstream error body: `{"error":{"message"}}`, `{"error":"..."}`,
/// `{"message"}` or the raw text.
fn upstream_message(bytes: &[u8]) -> String {
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(v) => {
            if let Some(e) = v.get("error") {
                crate::sse::error_message(e)
            } else if let Some(m) = v.get("message").and_then(|m| m.as_str()) {
                m.to_string()
            } else {
                String::new()
            }
        }
        Err(_) => String::from_utf8_lossy(bytes).trim().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn upstream_message_shapes() {
        assert_eq!(
            upstream_message(br#"{"error":{"message":"boom","type":"x"}}"#),
            "boom"
        );
        assert_eq!(
            upstream_message(br#"{"error":"model not found"}"#),
            "model not found"
        );
        assert_eq!(upstream_message(br#"{"message":"m"}"#), "m");
        assert_eq!(upstream_message(b"  plain text \n"), "plain text");
    }
}

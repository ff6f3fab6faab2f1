//! The one error shape every endpoint answers with: `{"error":{"code","message"}}`.
//!
//! Also the SSE error event used once a stream has started and a status can no longer change.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use serde_json::json;

/// An error answered to the client as JSON with a fitting status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// HTTP status.
    pub status: StatusCode,
    /// Stable machine-readable code the widget can switch on.
    pub code: &'static str,
    /// Human-readable text, safe to show (never contains the key).
    pub message: String,
    /// Seconds for `Retry-After` (429 and 503 overload).
    pub retry_after: Option<u64>,
    /// For `not_book_grounded`: which part of the request failed (see `guard::Part`).
    pub part: Option<&'static str>,
}

impl ApiError {
    fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        Self {
            status,
            code,
            message: message.into(),
            retry_after: None,
            part: None,
        }
    }

    /// 400: the request is not one the widget could have built for this book; nothing went upstream.
    pub fn not_book_grounded(part: &'static str, message: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::BAD_REQUEST, "not_book_grounded", message);
        e.part = Some(part);
        e
    }

    /// 409: the page loaded an older (or unknown) index than the proxy serves; reloading fixes it.
    pub fn book_updated() -> Self {
        Self::new(
            StatusCode::CONFLICT,
            "book_updated",
            "the book was updated since this page was loaded; reload the page",
        )
    }

    /// 503 (or 429 for a per-minute budget): the operator's global budget is spent.
    pub fn budget_exhausted(status: StatusCode, retry_after: u64, what: &str) -> Self {
        let mut e = Self::new(
            status,
            "budget_exhausted",
            format!("the assistant's {what} budget is used up; try again in {retry_after} s"),
        );
        e.retry_after = Some(retry_after);
        e
    }

    /// 401: the report needs the operator's bearer token.
    pub fn unauthorized() -> Self {
        Self::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid bearer token is required",
        )
    }

    /// 400: the request is malformed or breaks a limit.
    pub fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    /// 413: the body is larger than allowed.
    pub fn too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too_large",
            format!("request body is larger than {limit} bytes"),
        )
    }

    /// 403: a browser on an origin that is not allowed.
    pub fn origin_not_allowed() -> Self {
        Self::new(
            StatusCode::FORBIDDEN,
            "origin_not_allowed",
            "this origin may not call the API (see --allowed-origins)",
        )
    }

    /// 404 for unknown API paths.
    pub fn not_found() -> Self {
        Self::new(StatusCode::NOT_FOUND, "not_found", "no such API endpoint")
    }

    /// 405 for a known path with the wrong method.
    pub fn method_not_allowed() -> Self {
        Self::new(
            StatusCode::METHOD_NOT_ALLOWED,
            "method_not_allowed",
            "method not allowed on this endpoint",
        )
    }

    /// 429: this client is over its token bucket.
    pub fn rate_limited(retry_after: u64) -> Self {
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "rate_limited",
            format!("too many requests; try again in {retry_after} s"),
        );
        e.retry_after = Some(retry_after);
        e
    }

    /// 429: the upstream itself said "too many requests".
    pub fn upstream_rate_limited(retry_after: u64, message: String) -> Self {
        let mut e = Self::new(
            StatusCode::TOO_MANY_REQUESTS,
            "upstream_rate_limited",
            message,
        );
        e.retry_after = Some(retry_after);
        e
    }

    /// 503: the global concurrency cap is reached.
    pub fn overloaded(retry_after: u64) -> Self {
        let mut e = Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "overloaded",
            "the server is answering too many questions at once; try again shortly",
        );
        e.retry_after = Some(retry_after);
        e
    }

    /// 503: no upstream is configured; the widget should answer with extracts.
    pub fn no_upstream() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "no_upstream",
            "no language model is configured on this server",
        )
    }

    /// 503: feedback storage is off (no --db).
    pub fn feedback_disabled() -> Self {
        Self::new(
            StatusCode::SERVICE_UNAVAILABLE,
            "feedback_disabled",
            "feedback is not stored on this server",
        )
    }

    /// 502: the upstream failed (its message already scrubbed).
    pub fn upstream(code: &'static str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_GATEWAY, code, message)
    }

    /// 504: the upstream took too long.
    pub fn upstream_timeout(message: impl Into<String>) -> Self {
        Self::new(StatusCode::GATEWAY_TIMEOUT, "upstream_timeout", message)
    }

    /// 500: a bug or a broken disk; details go to the log, not the client.
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, "internal", message)
    }

    /// The JSON body.
    pub fn body(&self) -> serde_json::Value {
        match self.part {
            Some(part) => {
                json!({"error": {"code": self.code, "message": self.message, "part": part}})
            }
            None => json!({"error": {"code": self.code, "message": self.message}}),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut resp = (self.status, axum::Json(self.body())).into_response();
        if let Some(secs) = self.retry_after {
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        resp
    }
}

/// An SSE event that ends a stream with an error the widget can show:
/// `event: error\ndata: {"error":{"code":..,"message":..}}\n\n`.
pub fn sse_error_event(code: &str, message: &str) -> Bytes {
    let data = json!({"error": {"code": code, "message": message}});
    Bytes::from(format!("event: error\ndata: {data}\n\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_event_is_one_sse_event() {
        let ev = sse_error_event("upstream_stream", "line\nbreak \"quoted\"");
        let s = std::str::from_utf8(&ev).unwrap();
        assert!(s.starts_with("event: error\ndata: {"));
        assert!(s.ends_with("}\n\n"));
        // The message's newline is JSON-escaped, so the event stays one data line.
        assert_eq!(s.matches('\n').count(), 3);
        let data: serde_json::Value =
            serde_json::from_str(s.lines().nth(1).unwrap().trim_start_matches("data: ")).unwrap();
        assert_eq!(data["error"]["code"], "upstream_stream");
    }

    #[test]
    fn retry_after_header_set() {
        let resp = ApiError::rate_limited(7).into_response();
        assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(resp.headers()[header::RETRY_AFTER], "7");
    }
}

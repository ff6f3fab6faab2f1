//! Who may call the API from a browser: CORS for the configured origins, plus a server-side
//! check so a page on another origin cannot spend the model's budget with a "simple" request
//! that skips the CORS preflight.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tower_http::cors::{AllowOrigin, CorsLayer};

use crate::error::ApiError;

/// The CORS layer: only the configured origins get `Access-Control-Allow-Origin`.
pub fn cors_layer(allowed: &[String]) -> CorsLayer {
    let origins: Vec<HeaderValue> = allowed
        .iter()
        .filter_map(|o| HeaderValue::from_str(o).ok())
        .collect();
    CorsLayer::new()
        .allow_origin(AllowOrigin::list(origins))
        .allow_methods([Method::GET, Method::POST])
        .allow_headers([header::CONTENT_TYPE])
        .max_age(std::time::Duration::from_secs(600))
}

/// True when a request may proceed: no `Origin` (not a browser, or a same-origin GET), the
/// proxy's own origin (the book served by `--site`), or a configured one.
pub fn origin_allowed(headers: &HeaderMap, allowed: &[String]) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok()) else {
        return headers.get(header::ORIGIN).is_none();
    };
    let origin = origin.trim_end_matches('/');
    if allowed.iter().any(|a| a.eq_ignore_ascii_case(origin)) {
        return true;
    }
    // Same origin: the part after the scheme equals the Host the browser sent.
    let authority = origin
        .strip_prefix("http://")
        .or_else(|| origin.strip_prefix("https://"));
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    matches!((authority, host), (Some(a), Some(h)) if a.eq_ignore_ascii_case(h))
}

/// Middleware answering 403 JSON to browsers on origins that are not allowed.
pub async fn check_origin(
    State(allowed): State<Arc<Vec<String>>>,
    req: Request,
    next: Next,
) -> Response {
    if req.method() == Method::OPTIONS || origin_allowed(req.headers(), &allowed) {
        next.run(req).await
    } else {
        ApiError::origin_not_allowed().into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::HOST, HeaderValue::from_str(host).unwrap());
        if let Some(o) = origin {
            h.insert(header::ORIGIN, HeaderValue::from_str(o).unwrap());
        }
        h
    }

    #[test]
    fn decisions() {
        let allowed = vec!["https://book.example.org".to_string()];
        assert!(origin_allowed(&headers(None, "p:8080"), &allowed));
        assert!(origin_allowed(
            &headers(Some("https://book.example.org"), "p:8080"),
            &allowed
        ));
        assert!(origin_allowed(
            &headers(Some("http://127.0.0.1:8080"), "127.0.0.1:8080"),
            &allowed
        ));
        assert!(!origin_allowed(
            &headers(Some("https://evil.example"), "p:8080"),
            &allowed
        ));
        assert!(!origin_allowed(&headers(Some("null"), "p:8080"), &allowed));
        assert!(!origin_allowed(
            &headers(Some("http://127.0.0.1:9"), "127.0.0.1:8080"),
            &[]
        ));
    }
}

//! `--site DIR`: the built book on the same port as the API.
//!
//! Docusaurus writes real HTML files, so no SPA fallback: `/x/` and `/x` serve `x/index.html`,
//! `/x` also tries `x.html` (trailingSlash: false builds), misses get `404.html` with status 404.
//! Hashed assets (under `/assets/`) are cached for a year; everything else revalidates.
//! Compression: precompressed `.br`/`.gz` files when present, else on the fly (gzip, br).

use std::path::Path;

use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::Router;
use tower_http::compression::CompressionLayer;
use tower_http::services::{ServeDir, ServeFile};

/// Cache-Control for content-hashed files.
pub const IMMUTABLE: &str = "public, max-age=31536000, immutable";
/// Cache-Control for everything else (HTML, search index, images without hashes).
pub const REVALIDATE: &str = "no-cache";

/// A router serving `dir` for every path it receives.
pub fn router(dir: &Path) -> Router {
    let serve = ServeDir::new(dir)
        .append_index_html_on_directories(true)
        .redirect_to_trailing_slash(false)
        .html_as_default_extension(true)
        .precompressed_br()
        .precompressed_gzip();
    let not_found = dir.join("404.html");
    let router = if not_found.is_file() {
        Router::new().fallback_service(serve.not_found_service(ServeFile::new(not_found)))
    } else {
        Router::new().fallback_service(serve)
    };
    router
        .layer(CompressionLayer::new().gzip(true).br(true))
        .layer(middleware::from_fn(cache_headers))
}

/// Whether a path names a file whose content cannot change under the same name.
pub fn is_immutable(path: &str) -> bool {
    path.starts_with("/assets/")
}

async fn cache_headers(req: Request, next: Next) -> Response {
    let immutable = is_immutable(req.uri().path());
    let mut resp = next.run(req).await;
    if resp.status().is_success() || resp.status() == axum::http::StatusCode::NOT_MODIFIED {
        let value = if immutable { IMMUTABLE } else { REVALIDATE };
        resp.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static(value));
    } else {
        resp.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    resp
}

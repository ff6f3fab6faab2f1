//! `--site DIR`: the built book served beside the API.

use std::fs;

use crate::support::*;

fn book() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    fs::create_dir_all(p.join("docs/intro")).unwrap();
    fs::create_dir_all(p.join("assets/js")).unwrap();
    fs::write(p.join("index.html"), "<html>home page</html>").unwrap();
    fs::write(p.join("docs/intro/index.html"), "<html>intro page</html>").unwrap();
    fs::write(p.join("docs/flat.html"), "<html>flat page</html>").unwrap();
    fs::write(p.join("404.html"), "<html>custom not found</html>").unwrap();
    fs::write(
        p.join("assets/js/main.3f2a1b.js"),
        "console.log('book');\n".repeat(200),
    )
    .unwrap();
    dir
}

async fn get(proxy: &Proxy, path: &str, accept_encoding: Option<&str>) -> reqwest::Response {
    let mut req = client().get(proxy.url(path));
    if let Some(enc) = accept_encoding {
        req = req.header("accept-encoding", enc);
    }
    within(req.send()).await.unwrap()
}

#[tokio::test]
async fn serves_pages_assets_and_404() {
    let dir = book();
    let cfg = proxy::Config {
        site: Some(dir.path().to_path_buf()),
        ..proxy::Config::default()
    };
    let proxy = start(cfg).await;

    let home = get(&proxy, "/", None).await;
    assert_eq!(home.status(), 200);
    assert_eq!(home.headers()["cache-control"], "no-cache");
    assert!(home.headers()["content-type"]
        .to_str()
        .unwrap()
        .starts_with("text/html"));
    assert!(text(home).await.contains("home page"));

    for path in ["/docs/intro", "/docs/intro/"] {
        let r = get(&proxy, path, None).await;
        assert_eq!(r.status(), 200, "{path}");
        assert!(text(r).await.contains("intro page"), "{path}");
    }
    let flat = get(&proxy, "/docs/flat", None).await;
    assert_eq!(flat.status(), 200);
    assert!(text(flat).await.contains("flat page"));

    let missing = get(&proxy, "/docs/nope", None).await;
    assert_eq!(missing.status(), 404);
    assert!(text(missing).await.contains("custom not found"));

    let asset = get(&proxy, "/assets/js/main.3f2a1b.js", None).await;
    assert_eq!(asset.status(), 200);
    assert_eq!(
        asset.headers()["cache-control"],
        "public, max-age=31536000, immutable"
    );
    assert!(asset.headers().get("content-encoding").is_none());
    let plain_len = asset.bytes().await.unwrap().len();

    for enc in ["gzip", "br"] {
        let r = get(&proxy, "/assets/js/main.3f2a1b.js", Some(enc)).await;
        assert_eq!(r.status(), 200);
        assert_eq!(r.headers()["content-encoding"], enc);
        let n = r.bytes().await.unwrap().len();
        assert!(n < plain_len / 4, "{enc}: {n} vs {plain_len}");
    }

    // The API still answers beside the site.
    let h = get(&proxy, "/api/health", None).await;
    assert_eq!(h.status(), 200);
    expect_error(get(&proxy, "/api/missing", None).await, 404, "not_found").await;
    // No escaping the folder.
    let r = get(&proxy, "/../../etc/passwd", None).await;
    assert_ne!(r.status(), 200);
    proxy.stop().await;
}

#[tokio::test]
async fn without_site_root_is_json_404() {
    let proxy = start(proxy::Config::default()).await;
    expect_error(get(&proxy, "/", None).await, 404, "not_found").await;
    proxy.stop().await;
}

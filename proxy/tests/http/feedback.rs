//! `/api/feedback` rows written, read back, surviving a restart; `proxy report` output.

use std::process::Command;

use crate::support::*;
use serde_json::{json, Value};

fn fb(rating: &str, question: &str, refused: bool) -> Value {
    json!({
        "rating": rating,
        "session_id": "sess-42",
        "question": question,
        "answer_excerpt": "The sidebar is configured in sidebars.js",
        "cited_urls": ["/docs/sidebar", "/docs/config#sidebars"],
        "refused": refused
    })
}

fn config(db: &std::path::Path, store_questions: bool) -> proxy::Config {
    proxy::Config {
        db: Some(db.to_path_buf()),
        store_questions,
        ..proxy::Config::default()
    }
}

#[tokio::test]
async fn rows_are_written_read_back_and_survive_restart() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("feedback.sqlite3");

    let proxy = start(config(&db, true)).await;
    let resp = post_json(
        &proxy,
        "/api/feedback",
        &fb("down", "How do I add a sidebar?", false),
    )
    .await;
    assert_eq!(resp.status(), 201);
    let id: Value = serde_json::from_str(&text(resp).await).unwrap();
    assert!(id["id"].as_i64().unwrap() >= 1);
    let resp = post_json(&proxy, "/api/feedback", &fb("up", "What is MDX?", false)).await;
    assert_eq!(resp.status(), 201);
    expect_error(
        post_json(&proxy, "/api/feedback", &fb("meh", "q", false)).await,
        400,
        "bad_request",
    )
    .await;
    let h: Value = get_json(&proxy, "/api/health").await;
    assert_eq!(h["feedback"], true);
    proxy.stop().await;

    // Restart on the same file: old rows are still there, new ones are added.
    let proxy = start(config(&db, true)).await;
    let resp = post_json(
        &proxy,
        "/api/feedback",
        &fb("down", "how do i add a  sidebar", true),
    )
    .await;
    assert_eq!(resp.status(), 201);
    proxy.stop().await;

    let rows = proxy::feedback::read_all(&db).unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0].rating, "down");
    assert_eq!(rows[0].question.as_deref(), Some("How do I add a sidebar?"));
    assert_eq!(rows[0].session_id.as_deref(), Some("sess-42"));
    assert_eq!(
        rows[0].cited_urls,
        vec!["/docs/sidebar", "/docs/config#sidebars"]
    );
    assert_eq!(rows[1].rating, "up");
    assert!(rows[2].refused);

    // `proxy report` ranks the sidebar question (twice down, once refused) first.
    let out = Command::new(env!("CARGO_BIN_EXE_proxy"))
        .args(["report", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(
        report.contains("3 rows (1 up, 2 down, 1 refused)"),
        "{report}"
    );
    let down = &report[report
        .find("rated down:")
        .unwrap_or_else(|| panic!("{report}"))..];
    let line = down
        .lines()
        .find(|l| l.to_lowercase().contains("sidebar"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(line.trim_start().starts_with('2'), "{line}");
    assert!(!report.contains("MDX"), "{report}");
}

#[tokio::test]
async fn questions_not_stored_by_default_and_report_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("feedback.sqlite3");
    let proxy = start(config(&db, false)).await;
    let resp = post_json(
        &proxy,
        "/api/feedback",
        &fb("down", "my private question", true),
    )
    .await;
    assert_eq!(resp.status(), 201);
    proxy.stop().await;
    let rows = proxy::feedback::read_all(&db).unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].question, None);
    let raw = std::fs::read(&db).unwrap();
    let wal = std::fs::read(dir.path().join("feedback.sqlite3-wal")).unwrap_or_default();
    let needle = b"my private question";
    assert!(!raw.windows(needle.len()).any(|w| w == needle));
    assert!(!wal.windows(needle.len()).any(|w| w == needle));

    let out = Command::new(env!("CARGO_BIN_EXE_proxy"))
        .args(["report", "--db"])
        .arg(&db)
        .output()
        .unwrap();
    assert!(out.status.success());
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(report.contains("No question text is stored"), "{report}");
    assert!(report.contains("--store-questions"), "{report}");
}

#[tokio::test]
async fn feedback_without_db_is_503_and_report_on_missing_db_fails() {
    let proxy = start(proxy::Config::default()).await;
    expect_error(
        post_json(&proxy, "/api/feedback", &fb("up", "q", false)).await,
        503,
        "feedback_disabled",
    )
    .await;
    proxy.stop().await;
    let err = report_failure("/nonexistent/feedback.db");
    assert!(err.contains("no feedback database"), "{err}");
}

/// `proxy report` on a PostgreSQL server it cannot reach says why, not only "error connecting to
/// server" (tokio_postgres keeps the reason in its source error).
#[test]
fn report_on_an_unreachable_postgres_says_why() {
    let err = report_failure("postgres://nobody@127.0.0.1:1/feedback");
    assert!(
        err.contains("feedback database: error connecting to server: Connection refused"),
        "{err}"
    );
}

/// Runs `proxy report --db DB`, expects it to fail with one line on stderr, and returns it.
fn report_failure(db: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_proxy"))
        .args(["report", "--db", db])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.lines().count(), 1, "{err}");
    err
}

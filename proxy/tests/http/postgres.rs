//! Feedback and the report in PostgreSQL, shared by two proxy instances (as behind one load
//! balancer). Needs a server: `scripts/with-postgres.sh cargo test -p proxy --test http postgres -- --ignored`.

use std::path::PathBuf;
use std::time::Duration;

use crate::support::*;
use proxy::feedback::FeedbackStore;
use proxy::stub::Scenario;
use serde_json::{json, Value};

/// `DATABASE_URL`; with `CI` set its absence fails the test, elsewhere it is skipped with a notice.
fn database_url() -> Option<String> {
    match std::env::var("DATABASE_URL") {
        Ok(u) if !u.trim().is_empty() => Some(u),
        _ if std::env::var_os("CI").is_some() => {
            panic!("CI is set but DATABASE_URL is missing: run under scripts/with-postgres.sh")
        }
        _ => {
            eprintln!("NOTICE: DATABASE_URL not set; PostgreSQL test not run (use scripts/with-postgres.sh)");
            None
        }
    }
}

#[tokio::test]
#[ignore = "needs PostgreSQL (scripts/with-postgres.sh)"]
async fn two_instances_share_feedback_and_report() {
    let Some(url) = database_url() else {
        return;
    };
    let store = FeedbackStore::open_postgres(&url, true).await.unwrap();
    let before = store.read_all_async().await.unwrap().len();

    let stub = stub(Scenario::Ok, Duration::ZERO).await;
    let mut cfg = config_for(&stub.base_url());
    cfg.db = Some(PathBuf::from(&url));
    cfg.store_questions = true;
    cfg.report_token = proxy::config::ApiKey::new("pg-report-token");
    let a = start(cfg.clone()).await;
    let b = start(cfg).await;
    let fb = |rating: &str, refused: bool, q: &str| {
        json!({"rating": rating, "refused": refused, "question": q, "session_id": "pg",
               "cited_urls": ["/docs/nodes"]})
    };
    for (proxy, body) in [
        (&a, fb("up", false, "What is a node?")),
        (&b, fb("down", false, "How do topics work?")),
        (&a, fb("none", true, "How do I fly a drone?")),
        (&b, fb("none", true, "how do i fly a  drone")),
    ] {
        assert_eq!(post_json(proxy, "/api/feedback", &body).await.status(), 201);
    }
    let rows = store.read_all_async().await.unwrap();
    assert_eq!(rows.len(), before + 4);
    assert_eq!(rows[before + 2].rating, "none");
    assert!(rows[before + 2].refused);

    let resp = within(
        client()
            .get(b.url("/api/report?format=json"))
            .header("authorization", "Bearer pg-report-token")
            .send(),
    )
    .await
    .unwrap();
    assert_eq!(resp.status(), 200);
    let v: Value = serde_json::from_str(&text(resp).await).unwrap();
    assert!(v["refused"].as_i64().unwrap() >= 2, "{v}");
    assert_eq!(
        v["most_refused"][0]["question"]
            .as_str()
            .map(|q| q.to_lowercase().contains("drone")),
        Some(true),
        "{v}"
    );
    assert_eq!(v["most_refused"][0]["sources"][0], "/docs/nodes");
    assert!(!v["per_day"].as_array().unwrap().is_empty());
    a.stop().await;
    b.stop().await;

    // The operator's terminal report reads the same store, given the same URL as --db.
    let out = tokio::process::Command::new(env!("CARGO_BIN_EXE_proxy"))
        .args(["report", "--db", &url])
        .env_remove("PROXY_DB")
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.to_lowercase().contains("fly a drone"), "{stdout}");
}

/// A connection to the test server for setting up what a test needs (roles, databases).
async fn connect_admin(url: &str) -> (tokio_postgres::Client, tokio::task::JoinHandle<()>) {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    let conn = tokio::spawn(async move {
        let _ = conn.await;
    });
    (client, conn)
}

/// A new, empty database named `name` on the test server (dropped first if a run left it).
async fn new_database(admin: &tokio_postgres::Client, name: &str) {
    // One statement a call: CREATE and DROP DATABASE cannot run inside a transaction block.
    for statement in [
        format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"),
        format!("CREATE DATABASE {name}"),
    ] {
        admin.batch_execute(&statement).await.unwrap();
    }
}

/// `url` logged in as `user` (no password: the test server trusts loopback) and/or on database `db`.
fn url_with(url: &str, user: Option<&str>, db: Option<&str>) -> String {
    let mut u = url::Url::parse(url).unwrap();
    if let Some(user) = user {
        u.set_username(user).unwrap();
        u.set_password(None).unwrap();
    }
    if let Some(db) = db {
        u.set_path(&format!("/{db}"));
    }
    u.to_string()
}

/// `proxy report` writes nothing: a read-only role reads the report, and a database no proxy has
/// used gets a clear error and no table.
#[tokio::test]
#[ignore = "needs PostgreSQL (scripts/with-postgres.sh)"]
async fn report_reads_with_a_read_only_role_and_creates_nothing() {
    let Some(url) = database_url() else {
        return;
    };
    // The table exists: the proxy made it.
    drop(FeedbackStore::open_postgres(&url, true).await.unwrap());
    let (admin, conn) = connect_admin(&url).await;
    admin
        .batch_execute(
            "DO $$ BEGIN CREATE ROLE report_reader LOGIN; \
             EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        )
        .await
        .unwrap();
    admin
        .batch_execute("GRANT SELECT ON feedback TO report_reader")
        .await
        .unwrap();
    let empty_db = format!("report_empty_{}", std::process::id());
    new_database(&admin, &empty_db).await;
    let report = |db: String| async move {
        tokio::process::Command::new(env!("CARGO_BIN_EXE_proxy"))
            .args(["report", "--db", &db])
            .env_remove("PROXY_DB")
            .output()
            .await
            .unwrap()
    };

    let out = report(url_with(&url, Some("report_reader"), None)).await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("Feedback:"));

    let empty = url_with(&url, None, Some(&empty_db));
    let out = report(empty.clone()).await;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("no feedback table"), "{stderr}");
    let (client, conn2) = connect_admin(&empty).await;
    let row = client
        .query_one("SELECT to_regclass('feedback') IS NULL", &[])
        .await
        .unwrap();
    assert!(row.get::<_, bool>(0), "the report created a table");
    drop(client);
    conn2.abort();
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {empty_db} WITH (FORCE)"))
        .await
        .unwrap();
    conn.abort();
}

/// Proxies starting together on a new database all start: creating the table is serialized.
#[tokio::test]
#[ignore = "needs PostgreSQL (scripts/with-postgres.sh)"]
async fn proxies_starting_together_on_a_new_database_all_start() {
    let Some(url) = database_url() else {
        return;
    };
    let (admin, conn) = connect_admin(&url).await;
    let db = format!("together_{}", std::process::id());
    new_database(&admin, &db).await;
    let fresh = url_with(&url, None, Some(&db));
    let opens: Vec<_> = (0..8)
        .map(|_| {
            let fresh = fresh.clone();
            tokio::spawn(async move { FeedbackStore::open_postgres(&fresh, true).await.map(drop) })
        })
        .collect();
    for open in opens {
        open.await.unwrap().unwrap();
    }
    admin
        .batch_execute(&format!("DROP DATABASE IF EXISTS {db} WITH (FORCE)"))
        .await
        .unwrap();
    conn.abort();
}

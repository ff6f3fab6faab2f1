//! `POST /api/feedback` and its SQLite store (WAL, created on start).
//!
//! Privacy: the question's text is stored only with `--store-questions`; otherwise nothing
//! about the question is kept (not even a hash: short questions are easy to guess from one).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use axum::body::Body;
use axum::extract::{ConnectInfo, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use rusqlite::{params, Connection};

use crate::chat::client_body;
use crate::error::ApiError;
use crate::AppState;
use book_retrieval::error::error_line;

/// Longest stored answer excerpt, in characters (longer ones are cut, not refused).
pub const MAX_EXCERPT_CHARS: usize = 2_000;
/// Longest accepted question, in characters.
pub const MAX_QUESTION_CHARS: usize = 16_000;
/// Most cited URLs kept.
pub const MAX_URLS: usize = 50;
/// Largest feedback body.
const MAX_BODY: usize = 64 * 1024;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS feedback (
    id             INTEGER PRIMARY KEY,
    created_at     INTEGER NOT NULL,               -- unix seconds
    rating         TEXT    NOT NULL CHECK (rating IN ('up', 'down', 'none')),
    refused        INTEGER NOT NULL DEFAULT 0,     -- the assistant said the book has no answer
    session_id     TEXT,
    question       TEXT,                           -- NULL unless --store-questions
    question_key   TEXT,                           -- normalised question, for grouping
    answer_excerpt TEXT,
    cited_urls     TEXT    NOT NULL DEFAULT '[]'   -- JSON array
);
CREATE INDEX IF NOT EXISTS feedback_question_key ON feedback (question_key);
";

/// Schema version 2 allows rating 'none' (the widget's automatic report of a refused question).
const SCHEMA_VERSION: i64 = 2;

/// Version 1 tables only allowed 'up' and 'down': copy into a table with the new CHECK.
const MIGRATE_1_TO_2: &str = "
BEGIN;
ALTER TABLE feedback RENAME TO feedback_v1;
DROP INDEX IF EXISTS feedback_question_key;
CREATE TABLE feedback (
    id             INTEGER PRIMARY KEY,
    created_at     INTEGER NOT NULL,
    rating         TEXT    NOT NULL CHECK (rating IN ('up', 'down', 'none')),
    refused        INTEGER NOT NULL DEFAULT 0,
    session_id     TEXT,
    question       TEXT,
    question_key   TEXT,
    answer_excerpt TEXT,
    cited_urls     TEXT    NOT NULL DEFAULT '[]'
);
INSERT INTO feedback SELECT * FROM feedback_v1;
DROP TABLE feedback_v1;
CREATE INDEX feedback_question_key ON feedback (question_key);
COMMIT;
";

/// Failures of the feedback store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// SQLite refused (bad path, full disk, corrupt file, ...).
    #[error("feedback database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// The connection's lock was poisoned by a panic elsewhere.
    #[error("feedback database lock poisoned")]
    Poisoned,
    /// PostgreSQL refused or the connection failed.
    #[error("feedback database (PostgreSQL): {0}")]
    Postgres(#[from] tokio_postgres::Error),
    /// A synchronous SQLite-only call on the PostgreSQL store.
    #[error("this operation needs the SQLite store")]
    NotSqlite,
}

/// Whether `--db` names a PostgreSQL server rather than a SQLite file.
pub fn is_postgres_url(db: &str) -> bool {
    db.starts_with("postgres://") || db.starts_with("postgresql://")
}

/// `--db` for display: a PostgreSQL URL without its password.
pub fn display_db(db: &Path) -> String {
    let s = db.to_string_lossy();
    if !is_postgres_url(&s) {
        return db.display().to_string();
    }
    match url::Url::parse(&s) {
        Ok(mut u) => {
            if u.password().is_some() {
                let _ = u.set_password(Some("redacted"));
            }
            u.to_string()
        }
        Err(_) => "postgres://(unparsable URL)".into(),
    }
}

/// What the widget sends (shared contract 2, defined in `book_prompt::wire`).
pub use book_prompt::FeedbackBody as FeedbackRequest;
use book_prompt::Rating;

/// One row as stored; what tests and `report` read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// `up`, `down` or `none`.
    pub rating: String,
    /// Refused flag.
    pub refused: bool,
    /// Session id.
    pub session_id: Option<String>,
    /// Question text, if stored.
    pub question: Option<String>,
    /// Answer excerpt.
    pub answer_excerpt: Option<String>,
    /// Cited URLs.
    pub cited_urls: Vec<String>,
}

/// The feedback store: SQLite (one connection behind a mutex: feedback is rare, writes are tiny)
/// or PostgreSQL (`--db postgres://...`, for several instances).
#[derive(Debug, Clone)]
pub struct FeedbackStore {
    conn: Option<Arc<Mutex<Connection>>>,
    pg: Option<Arc<crate::pgstore::PgStore>>,
    store_questions: bool,
}

impl FeedbackStore {
    /// Opens (creating if needed) the database in WAL mode.
    pub fn open(path: &Path, store_questions: bool) -> Result<Self, StoreError> {
        let conn = Connection::open(path)?;
        conn.busy_timeout(std::time::Duration::from_secs(5))?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        if version == 1 {
            conn.execute_batch(MIGRATE_1_TO_2)?;
        }
        conn.execute_batch(SCHEMA)?;
        conn.pragma_update(None, "user_version", SCHEMA_VERSION)?;
        Ok(Self {
            conn: Some(Arc::new(Mutex::new(conn))),
            pg: None,
            store_questions,
        })
    }

    /// Connects to PostgreSQL at `url` and creates the table if needed.
    pub async fn open_postgres(url: &str, store_questions: bool) -> Result<Self, StoreError> {
        let pg = crate::pgstore::PgStore::connect(url).await?;
        Ok(Self {
            conn: None,
            pg: Some(Arc::new(pg)),
            store_questions,
        })
    }

    /// Opens `db`: a PostgreSQL URL or a SQLite file.
    pub async fn open_any(db: &Path, store_questions: bool) -> Result<Self, StoreError> {
        match db.to_str().filter(|s| is_postgres_url(s)) {
            Some(url) => Self::open_postgres(url, store_questions).await,
            None => Self::open(db, store_questions),
        }
    }

    /// Stores one row on either backend (SQLite on a blocking thread).
    pub async fn insert_async(&self, row: Row) -> Result<i64, StoreError> {
        if let Some(pg) = &self.pg {
            return Ok(pg.insert(&row).await?);
        }
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.insert(&row))
            .await
            .map_err(|_| StoreError::Poisoned)?
    }

    /// The report's figures on either backend.
    pub async fn report_async(&self, limit: u32) -> Result<crate::report::ReportData, StoreError> {
        if let Some(pg) = &self.pg {
            return Ok(pg.report(limit).await?);
        }
        let this = self.clone();
        tokio::task::spawn_blocking(move || this.report(limit))
            .await
            .map_err(|_| StoreError::Poisoned)?
    }

    /// Every row, oldest first, on either backend.
    pub async fn read_all_async(&self) -> Result<Vec<Row>, StoreError> {
        if let Some(pg) = &self.pg {
            return Ok(pg.read_all().await?);
        }
        Err(StoreError::NotSqlite)
    }

    fn sqlite(&self) -> Result<std::sync::MutexGuard<'_, Connection>, StoreError> {
        self.conn
            .as_ref()
            .ok_or(StoreError::NotSqlite)?
            .lock()
            .map_err(|_| StoreError::Poisoned)
    }

    /// Checks a request and turns it into the row to store.
    pub fn to_row(&self, req: FeedbackRequest) -> Result<Row, ApiError> {
        if req.rating == Rating::None && !req.refused {
            return Err(ApiError::bad_request(
                "rating \"none\" is only sent with refused: true",
            ));
        }
        if req
            .session_id
            .as_ref()
            .is_some_and(|s| s.chars().count() > 128)
        {
            return Err(ApiError::bad_request(
                "session_id is longer than 128 characters",
            ));
        }
        if req
            .question
            .as_ref()
            .is_some_and(|q| q.chars().count() > MAX_QUESTION_CHARS)
        {
            return Err(ApiError::bad_request(format!(
                "question is longer than {MAX_QUESTION_CHARS} characters"
            )));
        }
        if req.cited_urls.len() > MAX_URLS || req.cited_urls.iter().any(|u| u.len() > 2_000) {
            return Err(ApiError::bad_request(format!(
                "cited_urls: at most {MAX_URLS} URLs of at most 2000 bytes"
            )));
        }
        Ok(Row {
            rating: req.rating.as_str().to_string(),
            refused: req.refused,
            session_id: req.session_id,
            question: if self.store_questions {
                req.question.filter(|q| !q.trim().is_empty())
            } else {
                None
            },
            answer_excerpt: req
                .answer_excerpt
                .map(|a| a.chars().take(MAX_EXCERPT_CHARS).collect()),
            cited_urls: req.cited_urls,
        })
    }

    /// The report's figures, read through this store's connection.
    pub fn report(&self, limit: u32) -> Result<crate::report::ReportData, StoreError> {
        let conn = self.sqlite()?;
        crate::report::collect(&conn, limit)
    }

    /// Stores one row; returns its id. Blocking: call from `spawn_blocking`.
    pub fn insert(&self, row: &Row) -> Result<i64, StoreError> {
        let conn = self.sqlite()?;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let urls = serde_json::to_string(&row.cited_urls).unwrap_or_else(|_| "[]".into());
        conn.execute(
            "INSERT INTO feedback (created_at, rating, refused, session_id, question, question_key,
                                   answer_excerpt, cited_urls)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            params![
                now,
                row.rating,
                row.refused,
                row.session_id,
                row.question,
                row.question.as_deref().map(question_key),
                row.answer_excerpt,
                urls
            ],
        )?;
        Ok(conn.last_insert_rowid())
    }
}

/// Reads every row back, oldest first (for tests and tools).
pub fn read_all(path: &Path) -> Result<Vec<Row>, StoreError> {
    let conn = Connection::open_with_flags(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let mut stmt = conn.prepare(
        "SELECT rating, refused, session_id, question, answer_excerpt, cited_urls
         FROM feedback ORDER BY id",
    )?;
    let rows = stmt
        .query_map([], |r| {
            let urls: String = r.get(5)?;
            Ok(Row {
                rating: r.get(0)?,
                refused: r.get(1)?,
                session_id: r.get(2)?,
                question: r.get(3)?,
                answer_excerpt: r.get(4)?,
                cited_urls: serde_json::from_str(&urls).unwrap_or_default(),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Lower-case, whitespace collapsed, trailing punctuation dropped: "How do I X?" and
/// "how do i  x" count as one question in the report.
pub fn question_key(q: &str) -> String {
    q.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
        .trim_end_matches(['?', '.', '!', ' '])
        .to_string()
}

/// The handler: 201 `{"id": N}`.
pub async fn feedback(
    State(state): State<Arc<AppState>>,
    ConnectInfo(peer): ConnectInfo<SocketAddr>,
    headers: HeaderMap,
    body: Body,
) -> Result<Response, ApiError> {
    let Some(store) = state.feedback.clone() else {
        return Err(ApiError::feedback_disabled());
    };
    let bytes = client_body(&state, peer, &headers, body, MAX_BODY).await?;
    let req: FeedbackRequest = serde_json::from_slice(&bytes)
        .map_err(|e| ApiError::bad_request(format!("invalid feedback body: {e}")))?;
    let row = store.to_row(req)?;
    let id = store.insert_async(row).await.map_err(|e| {
        tracing::error!(error = %error_line(&e), "storing feedback failed");
        ApiError::internal("storing feedback failed")
    })?;
    Ok((
        StatusCode::CREATED,
        axum::Json(serde_json::json!({"id": id})),
    )
        .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(rating: Rating, q: &str) -> FeedbackRequest {
        FeedbackRequest {
            rating,
            session_id: Some("s1".into()),
            question: Some(q.into()),
            answer_excerpt: Some("a".repeat(5000)),
            cited_urls: vec!["/docs/a".into()],
            refused: false,
        }
    }

    #[test]
    fn question_stored_only_when_enabled() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.db");
        let off = FeedbackStore::open(&path, false).unwrap();
        off.insert(&off.to_row(req(Rating::Down, "Secret question?")).unwrap())
            .unwrap();
        let on = FeedbackStore::open(&path, true).unwrap();
        on.insert(&on.to_row(req(Rating::Up, "Public question?")).unwrap())
            .unwrap();
        let rows = read_all(&path).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].question, None);
        assert_eq!(rows[1].question.as_deref(), Some("Public question?"));
        assert_eq!(
            rows[0].answer_excerpt.as_ref().unwrap().chars().count(),
            MAX_EXCERPT_CHARS
        );
        let mode: String = Connection::open(&path)
            .unwrap()
            .query_row("PRAGMA journal_mode", [], |r| r.get(0))
            .unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn bad_rating_rejected() {
        assert!(serde_json::from_str::<FeedbackRequest>(r#"{"rating":"meh"}"#).is_err());
        let dir = tempfile::tempdir().unwrap();
        let s = FeedbackStore::open(&dir.path().join("f.db"), false).unwrap();
        assert!(
            s.to_row(req(Rating::None, "q")).is_err(),
            "none without refused"
        );
        let mut r = req(Rating::None, "q");
        r.refused = true;
        let row = s.to_row(r).unwrap();
        assert_eq!(row.rating, "none");
        s.insert(&row).unwrap();
    }

    #[test]
    fn version_1_database_is_migrated() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("old.db");
        let old = Connection::open(&path).unwrap();
        old.execute_batch(&SCHEMA.replace("'up', 'down', 'none'", "'up', 'down'"))
            .unwrap();
        old.execute_batch(
            "PRAGMA user_version = 1;
             INSERT INTO feedback (created_at, rating) VALUES (1, 'up');",
        )
        .unwrap();
        drop(old);
        let s = FeedbackStore::open(&path, false).unwrap();
        let mut r = req(Rating::None, "q");
        r.refused = true;
        s.insert(&s.to_row(r).unwrap()).unwrap();
        let rows = read_all(&path).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].rating, "none");
    }

    #[test]
    fn keys_group_variants() {
        assert_eq!(question_key("  How do I   Deploy? "), "how do i deploy");
        assert_eq!(question_key("how do i deploy"), "how do i deploy");
    }
}

//! Feedback in PostgreSQL (`--db postgres://...`): the same rows and report as the SQLite store,
//! for several proxy instances behind one load balancer. The table is created on start.

use crate::feedback::{question_key, Row};
use crate::report::{Collected, DayCount, QuestionRow, ReportData, Totals, DAYS};
use book_retrieval::error::error_line;

/// Run as one implicit transaction (a simple query of several statements). Proxies starting
/// together on a new database would race in `CREATE TABLE IF NOT EXISTS` (the loser fails on
/// the catalog's unique index, and its proxy does not start): the advisory lock, held until the
/// transaction ends, makes them create it one after the other.
const SCHEMA: &str = "
SELECT pg_advisory_xact_lock(7419020251129);
CREATE TABLE IF NOT EXISTS feedback (
    id             BIGSERIAL PRIMARY KEY,
    created_at     BIGINT  NOT NULL,
    rating         TEXT    NOT NULL CHECK (rating IN ('up', 'down', 'none')),
    refused        BOOLEAN NOT NULL DEFAULT FALSE,
    session_id     TEXT,
    question       TEXT,
    question_key   TEXT,
    answer_excerpt TEXT,
    cited_urls     TEXT    NOT NULL DEFAULT '[]'
);
CREATE INDEX IF NOT EXISTS feedback_question_key ON feedback (question_key);
";

/// A PostgreSQL connection (tokio-postgres pipelines concurrent queries on one connection).
#[derive(Debug)]
pub struct PgStore {
    client: tokio_postgres::Client,
    conn_task: tokio::task::JoinHandle<()>,
}

impl Drop for PgStore {
    fn drop(&mut self) {
        self.conn_task.abort();
    }
}

impl PgStore {
    /// Connects (no TLS: use a local server or a TLS-terminating pooler) and creates the table.
    pub async fn connect(url: &str) -> Result<Self, tokio_postgres::Error> {
        let store = Self::open(url).await?;
        store.client.batch_execute(SCHEMA).await?;
        Ok(store)
    }

    /// Connects to a store a proxy has already made, writing nothing: `proxy report` reads with
    /// whatever rights the operator's role has (a read-only role cannot create a table). `None`
    /// when the database has no feedback table.
    pub async fn connect_existing(url: &str) -> Result<Option<Self>, tokio_postgres::Error> {
        let store = Self::open(url).await?;
        let row = store
            .client
            .query_one("SELECT to_regclass('feedback') IS NOT NULL", &[])
            .await?;
        Ok(row.get::<_, bool>(0).then_some(store))
    }

    async fn open(url: &str) -> Result<Self, tokio_postgres::Error> {
        let (client, connection) = tokio_postgres::connect(url, tokio_postgres::NoTls).await?;
        let conn_task = tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::error!(error = %error_line(&e), "feedback database connection failed");
            }
        });
        Ok(Self { client, conn_task })
    }

    /// Stores one row; returns its id.
    pub async fn insert(&self, row: &Row) -> Result<i64, tokio_postgres::Error> {
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0);
        let urls = serde_json::to_string(&row.cited_urls).unwrap_or_else(|_| "[]".into());
        let key = row.question.as_deref().map(question_key);
        let r = self
            .client
            .query_one(
                "INSERT INTO feedback (created_at, rating, refused, session_id, question, question_key,
                                       answer_excerpt, cited_urls)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id",
                &[
                    &now,
                    &row.rating,
                    &row.refused,
                    &row.session_id,
                    &row.question,
                    &key,
                    &row.answer_excerpt,
                    &urls,
                ],
            )
            .await?;
        Ok(r.get(0))
    }

    /// Every row, oldest first.
    pub async fn read_all(&self) -> Result<Vec<Row>, tokio_postgres::Error> {
        let rows = self
            .client
            .query(
                "SELECT rating, refused, session_id, question, answer_excerpt, cited_urls
                 FROM feedback ORDER BY id",
                &[],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| Row {
                rating: r.get(0),
                refused: r.get(1),
                session_id: r.get(2),
                question: r.get(3),
                answer_excerpt: r.get(4),
                cited_urls: serde_json::from_str(r.get::<_, &str>(5)).unwrap_or_default(),
            })
            .collect())
    }

    async fn questions(
        &self,
        filter: &str,
        limit: u32,
    ) -> Result<Vec<QuestionRow>, tokio_postgres::Error> {
        let sql = format!(
            "SELECT COUNT(*), MAX(question), string_agg(cited_urls, chr(31))
             FROM feedback WHERE question_key IS NOT NULL AND {filter}
             GROUP BY question_key ORDER BY COUNT(*) DESC, question_key LIMIT $1"
        );
        let rows = self.client.query(&sql, &[&i64::from(limit)]).await?;
        Ok(rows
            .iter()
            .map(|r| QuestionRow::from_group(r.get(0), r.get(1), r.get(2)))
            .collect())
    }

    /// The report's figures (see [`crate::report::collect`] for SQLite).
    pub async fn report(&self, limit: u32) -> Result<ReportData, tokio_postgres::Error> {
        let t = self
            .client
            .query_one(
                "SELECT COUNT(*),
                        COUNT(*) FILTER (WHERE rating = 'up'),
                        COUNT(*) FILTER (WHERE rating = 'down'),
                        COUNT(*) FILTER (WHERE refused),
                        COUNT(*) FILTER (WHERE question IS NOT NULL)
                 FROM feedback",
                &[],
            )
            .await?;
        let totals = Totals {
            total: t.get(0),
            up: t.get(1),
            down: t.get(2),
            refused: t.get(3),
            with_question: t.get(4),
        };
        let days = self
            .client
            .query(
                "SELECT to_char(to_timestamp(created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS d,
                        COUNT(*), COUNT(*) FILTER (WHERE refused)
                 FROM feedback GROUP BY d ORDER BY d DESC LIMIT $1",
                &[&DAYS],
            )
            .await?;
        let days_newest_first: Vec<DayCount> = days
            .iter()
            .map(|r| DayCount {
                day: r.get(0),
                total: r.get(1),
                refused: r.get(2),
            })
            .collect();
        Ok(ReportData::assemble(Collected {
            totals,
            days_newest_first,
            most_refused: self.questions("refused", limit).await?,
            most_down: self.questions("rating = 'down'", limit).await?,
        }))
    }
}

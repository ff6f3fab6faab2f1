//! The authors' report: questions over time, the refusal rate, and the questions most often
//! refused (the book's gaps) or rated down, with the pages their answers cited. One collection
//! step ([`collect`]) and three renderings: text (`proxy report`), JSON and HTML with small SVG
//! charts drawn here (`GET /api/report`, only with `PROXY_REPORT_TOKEN`; see [`http`]).
//! Question text appears only if the operator enabled storing it; otherwise counts only.

use std::fmt::Write as _;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};
use serde::Serialize;

use crate::feedback::StoreError;

/// Days shown in the "over time" chart.
pub const DAYS: i64 = 30;

/// Everything the report shows.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ReportData {
    /// Feedback rows.
    pub total: i64,
    /// Rated up.
    pub up: i64,
    /// Rated down.
    pub down: i64,
    /// Refused questions (automatic reports and rated ones).
    pub refused: i64,
    /// Rows whose question text is stored.
    pub with_question: i64,
    /// `refused / total` (0 when empty).
    pub refusal_rate: f64,
    /// Per UTC day (oldest first, last [`DAYS`] days with feedback): (day "YYYY-MM-DD", rows, refused).
    pub per_day: Vec<DayCount>,
    /// The questions most often refused: the book's gaps.
    pub most_refused: Vec<QuestionRow>,
    /// The questions most often rated down.
    pub most_down: Vec<QuestionRow>,
}

/// One day of the chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DayCount {
    /// UTC date.
    pub day: String,
    /// Feedback rows that day.
    pub total: i64,
    /// Refusals that day.
    pub refused: i64,
}

/// One grouped question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct QuestionRow {
    /// How often it was asked (in this group).
    pub count: i64,
    /// An example wording.
    pub question: String,
    /// Pages cited by its answers (the nearest sections, for refusals).
    pub sources: Vec<String>,
}

/// The counts over every feedback row, as both stores read them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Totals {
    /// Feedback rows.
    pub total: i64,
    /// Rated up.
    pub up: i64,
    /// Rated down.
    pub down: i64,
    /// Refused questions.
    pub refused: i64,
    /// Rows whose question text is stored.
    pub with_question: i64,
}

/// What a store reads for the report, before the shared assembly step ([`ReportData::assemble`]).
#[derive(Debug, Clone)]
pub struct Collected {
    /// The counts.
    pub totals: Totals,
    /// The last [`DAYS`] days with feedback, newest first (as `ORDER BY day DESC LIMIT` reads them).
    pub days_newest_first: Vec<DayCount>,
    /// The most often refused questions.
    pub most_refused: Vec<QuestionRow>,
    /// The questions most often rated down.
    pub most_down: Vec<QuestionRow>,
}

impl ReportData {
    /// The report from what either store read (SQLite here, PostgreSQL in `pgstore`).
    pub fn assemble(c: Collected) -> Self {
        let Totals {
            total,
            up,
            down,
            refused,
            with_question,
        } = c.totals;
        let mut per_day = c.days_newest_first;
        per_day.reverse();
        Self {
            total,
            up,
            down,
            refused,
            with_question,
            refusal_rate: share(refused, total),
            per_day,
            most_refused: c.most_refused,
            most_down: c.most_down,
        }
    }
}

/// Separator between the `cited_urls` JSON arrays a store concatenates for one question group.
pub const CITED_SEPARATOR: char = '\u{1f}';

/// Cited pages shown per question.
const SOURCES_PER_QUESTION: usize = 5;

impl QuestionRow {
    /// One question group as a store reads it: its count, one stored wording and its rows'
    /// `cited_urls` arrays joined by [`CITED_SEPARATOR`].
    pub fn from_group(count: i64, question: Option<String>, cited: Option<String>) -> Self {
        let mut sources: Vec<String> = Vec::new();
        for part in cited.unwrap_or_default().split(CITED_SEPARATOR) {
            for u in serde_json::from_str::<Vec<String>>(part).unwrap_or_default() {
                if !sources.contains(&u) && sources.len() < SOURCES_PER_QUESTION {
                    sources.push(u);
                }
            }
        }
        let question = question.unwrap_or_default();
        Self {
            count,
            question: question.split_whitespace().collect::<Vec<_>>().join(" "),
            sources,
        }
    }
}

fn question_rows(
    conn: &Connection,
    filter: &str,
    limit: u32,
) -> Result<Vec<QuestionRow>, StoreError> {
    let sql = format!(
        "SELECT question_key, COUNT(*) AS n, MAX(question), GROUP_CONCAT(cited_urls, '\u{1f}')
         FROM feedback WHERE question_key IS NOT NULL AND {filter}
         GROUP BY question_key ORDER BY n DESC, question_key LIMIT ?1"
    );
    let mut stmt = conn.prepare(&sql)?;
    let rows = stmt
        .query_map([limit], |r| {
            Ok(QuestionRow::from_group(r.get(1)?, r.get(2)?, r.get(3)?))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// Reads the report's figures from an open feedback database.
pub fn collect(conn: &Connection, limit: u32) -> Result<ReportData, StoreError> {
    let totals = conn.query_row(
        "SELECT COUNT(*),
                COALESCE(SUM(rating = 'up'), 0),
                COALESCE(SUM(rating = 'down'), 0),
                COALESCE(SUM(refused), 0),
                COALESCE(SUM(question IS NOT NULL), 0)
         FROM feedback",
        [],
        |r| {
            Ok(Totals {
                total: r.get(0)?,
                up: r.get(1)?,
                down: r.get(2)?,
                refused: r.get(3)?,
                with_question: r.get(4)?,
            })
        },
    )?;
    let mut stmt = conn.prepare(
        "SELECT date(created_at, 'unixepoch') AS d, COUNT(*), COALESCE(SUM(refused), 0)
         FROM feedback GROUP BY d ORDER BY d DESC LIMIT ?1",
    )?;
    let days_newest_first = stmt
        .query_map([DAYS], |r| {
            Ok(DayCount {
                day: r.get(0)?,
                total: r.get(1)?,
                refused: r.get(2)?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(ReportData::assemble(Collected {
        totals,
        days_newest_first,
        most_refused: question_rows(conn, "refused = 1", limit)?,
        most_down: question_rows(conn, "rating = 'down'", limit)?,
    }))
}

/// Opens the database at `db` read-only and collects the report.
pub fn collect_file(db: &Path, limit: u32) -> Result<ReportData, ReportError> {
    if !db.is_file() {
        return Err(ReportError::Missing(db.display().to_string()));
    }
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(StoreError::from)?;
    Ok(collect(&conn, limit)?)
}

/// Builds the report's text from the feedback store `db` names, as `--db` does (`proxy report`):
/// a SQLite file, or a PostgreSQL URL.
pub fn report(db: &Path, limit: u32) -> Result<String, ReportError> {
    let data = match db.to_str().filter(|d| crate::feedback::is_postgres_url(d)) {
        Some(url) => collect_postgres(url, limit)?,
        None => collect_file(db, limit)?,
    };
    Ok(render_text(&data))
}

/// Connects to the PostgreSQL store at `url` and collects the report. `proxy report` runs
/// outside the server's runtime: one current-thread runtime serves its few queries.
fn collect_postgres(url: &str, limit: u32) -> Result<ReportData, ReportError> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(ReportError::Runtime)?;
    let store = rt
        .block_on(crate::pgstore::PgStore::connect_existing(url))
        .map_err(ReportError::Postgres)?
        .ok_or_else(|| ReportError::NoTable(crate::feedback::display_db(Path::new(url))))?;
    rt.block_on(store.report(limit))
        .map_err(ReportError::Postgres)
}

/// The terminal rendering.
pub fn render_text(d: &ReportData) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Feedback: {} rows ({} up, {} down, {} refused); question text stored for {}.",
        d.total, d.up, d.down, d.refused, d.with_question
    );
    let _ = writeln!(out, "Refusal rate: {:.1}%", d.refusal_rate * 100.0);
    if !d.per_day.is_empty() {
        let max = d.per_day.iter().map(|x| x.total).max().unwrap_or(1).max(1);
        let _ = writeln!(
            out,
            "Questions over time (feedback rows per UTC day, # = refused):"
        );
        for x in &d.per_day {
            let width = ((x.total * 40 + max - 1) / max) as usize;
            let refused = (((x.refused * 40 + max - 1) / max) as usize).min(width);
            let _ = writeln!(
                out,
                "  {} {:>5} {}{}",
                x.day,
                x.total,
                "#".repeat(refused),
                "=".repeat(width - refused)
            );
        }
    }
    if d.with_question == 0 {
        let _ = writeln!(
            out,
            "No question text is stored, so there is nothing to rank. Start the proxy with \
--store-questions (off by default, for privacy) to collect it."
        );
        return out;
    }
    for (title, rows) in [
        (
            "Questions most often refused (what the book should cover next):",
            &d.most_refused,
        ),
        ("Questions most often rated down:", &d.most_down),
    ] {
        if rows.is_empty() {
            continue;
        }
        let _ = writeln!(out, "{title}");
        let _ = writeln!(out, "{:>5}  question  [sources]", "times");
        for r in rows {
            let short: String = r.question.chars().take(120).collect();
            let _ = writeln!(out, "{:>5}  {short}  [{}]", r.count, r.sources.join(", "));
        }
    }
    if d.most_refused.is_empty() && d.most_down.is_empty() {
        let _ = writeln!(out, "No stored question was refused or rated down.");
    }
    out
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A bar chart of questions per day (refusals stacked in a darker shade), as inline SVG.
fn svg_per_day(days: &[DayCount]) -> String {
    let (w, h, pad) = (600.0_f64, 160.0_f64, 20.0_f64);
    let max = days.iter().map(|d| d.total).max().unwrap_or(0).max(1) as f64;
    let bw = (w - 2.0 * pad) / days.len().max(1) as f64;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {w} {h}\" width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"Questions per day\">"
    );
    for (i, d) in days.iter().enumerate() {
        let x = pad + i as f64 * bw;
        let th = (h - 2.0 * pad) * d.total as f64 / max;
        let rh = (h - 2.0 * pad) * d.refused as f64 / max;
        let _ = write!(
            s,
            "<g><title>{} : {} ({} refused)</title><rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{th:.1}\" fill=\"#8ab4f8\"/><rect x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{rh:.1}\" fill=\"#d93025\"/></g>",
            esc(&d.day), d.total, d.refused,
            h - pad - th, (bw - 2.0).max(1.0),
            h - pad - rh, (bw - 2.0).max(1.0),
        );
    }
    if let (Some(first), Some(last)) = (days.first(), days.last()) {
        let _ = write!(
            s,
            "<text x=\"{pad}\" y=\"{h}\" font-size=\"11\">{}</text><text x=\"{}\" y=\"{h}\" font-size=\"11\" text-anchor=\"end\">{}</text>",
            esc(&first.day), w - pad, esc(&last.day)
        );
    }
    s.push_str("</svg>");
    s
}

/// A single horizontal bar showing the refusal rate, as inline SVG.
fn svg_rate(rate: f64) -> String {
    let filled = (300.0 * rate.clamp(0.0, 1.0)).round();
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 300 16\" width=\"300\" height=\"16\" role=\"img\" aria-label=\"Refusal rate\"><rect width=\"300\" height=\"16\" fill=\"#e8eaed\"/><rect width=\"{filled}\" height=\"16\" fill=\"#d93025\"/></svg>"
    )
}

fn html_table(rows: &[QuestionRow]) -> String {
    let mut s = String::from("<table><tr><th>Times</th><th>Question</th><th>Sources</th></tr>");
    for r in rows {
        let links: Vec<String> = r
            .sources
            .iter()
            .map(|u| format!("<a href=\"{0}\">{0}</a>", esc(u)))
            .collect();
        let _ = write!(
            s,
            "<tr><td>{}</td><td>{}</td><td>{}</td></tr>",
            r.count,
            esc(&r.question),
            links.join("<br>")
        );
    }
    s.push_str("</table>");
    s
}

/// The HTML page: self-contained (inline CSS and SVG, no external requests).
pub fn render_html(d: &ReportData) -> String {
    let mut s = String::from(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Book chat report</title>\
<meta name=\"robots\" content=\"noindex\"><style>body{font:14px system-ui,sans-serif;max-width:860px;margin:2em auto;padding:0 1em}\
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #ddd;padding:4px;text-align:left;vertical-align:top}</style></head><body>",
    );
    let _ = write!(
        s,
        "<h1>Book chat report</h1><p>{} feedback rows: {} up, {} down, {} refused; question text stored for {}.</p>",
        d.total, d.up, d.down, d.refused, d.with_question
    );
    let _ = write!(
        s,
        "<h2>Refusal rate: {:.1}%</h2>{}<h2>Questions over time</h2>{}",
        d.refusal_rate * 100.0,
        svg_rate(d.refusal_rate),
        svg_per_day(&d.per_day)
    );
    if d.with_question == 0 {
        s.push_str("<p>No question text is stored (start the proxy with <code>--store-questions</code> to rank questions); counts only.</p>");
    } else {
        let _ = write!(
            s,
            "<h2>Most often refused (the book's gaps)</h2>{}<h2>Most often rated down</h2>{}",
            html_table(&d.most_refused),
            html_table(&d.most_down)
        );
    }
    s.push_str("</body></html>");
    s
}

/// `GET /api/report`: exists only when `PROXY_REPORT_TOKEN` is set; `Authorization: Bearer TOKEN`
/// is compared in constant time (`subtle`) and never logged (the trace layer logs no headers).
pub mod http {
    use std::sync::Arc;

    use axum::extract::{Query, State};
    use axum::http::{header, HeaderMap, HeaderValue};
    use axum::response::{IntoResponse, Response};
    use serde::Deserialize;
    use subtle::ConstantTimeEq;

    use crate::error::ApiError;
    use crate::AppState;
    use book_retrieval::error::error_line;

    /// `?format=json` for JSON; HTML otherwise.
    #[derive(Debug, Deserialize)]
    pub struct ReportQuery {
        /// `json` or `html`.
        #[serde(default)]
        pub format: Option<String>,
        /// Rows per table.
        #[serde(default)]
        pub limit: Option<u32>,
    }

    /// Whether `headers` carry the bearer `token` (constant time in the token's content).
    pub fn authorized(headers: &HeaderMap, token: &str) -> bool {
        let Some(given) = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
        else {
            return false;
        };
        given.trim().as_bytes().ct_eq(token.as_bytes()).into()
    }

    /// The handler.
    pub async fn report(
        State(state): State<Arc<AppState>>,
        headers: HeaderMap,
        Query(q): Query<ReportQuery>,
    ) -> Result<Response, ApiError> {
        let Some(token) = state.report_token.as_deref() else {
            return Err(ApiError::not_found());
        };
        if !authorized(&headers, token) {
            let mut resp = ApiError::unauthorized().into_response();
            resp.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
            return Ok(resp);
        }
        let Some(store) = state.feedback.clone() else {
            return Err(ApiError::feedback_disabled());
        };
        let limit = q.limit.unwrap_or(20).clamp(1, 1000);
        let data = store.report_async(limit).await.map_err(|e| {
            tracing::error!(error = %error_line(&e), "building the report failed");
            ApiError::internal("building the report failed")
        })?;
        let mut resp = if q.format.as_deref() == Some("json") {
            axum::Json(data).into_response()
        } else {
            (
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                super::render_html(&data),
            )
                .into_response()
        };
        resp.headers_mut()
            .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        Ok(resp)
    }
}

/// Why the report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// No database at that path.
    #[error("no feedback database at {0} (is it the proxy's --db?)")]
    Missing(String),
    /// The PostgreSQL database has no feedback table (no proxy has used it as `--db` yet).
    #[error("no feedback table in {0} (is it the proxy's --db? the proxy creates the table when it starts)")]
    NoTable(String),
    /// SQLite failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// PostgreSQL failed (connecting or reading).
    #[error("feedback database: {0}")]
    Postgres(#[source] tokio_postgres::Error),
    /// The PostgreSQL client's runtime could not start.
    #[error("cannot start the PostgreSQL client: {0}")]
    Runtime(#[source] std::io::Error),
}

/// `part / total` as a fraction, 0 when there is nothing yet (the refusal rate of both stores).
pub fn share(part: i64, total: i64) -> f64 {
    if total > 0 {
        part as f64 / total as f64
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::feedback::{FeedbackRequest, FeedbackStore};

    fn add(store: &FeedbackStore, rating: &str, refused: bool, q: &str) {
        let row = store
            .to_row(FeedbackRequest {
                rating: match rating {
                    "up" => book_prompt::Rating::Up,
                    "down" => book_prompt::Rating::Down,
                    _ => book_prompt::Rating::None,
                },
                session_id: None,
                question: Some(q.into()),
                answer_excerpt: None,
                cited_urls: vec![],
                refused,
            })
            .unwrap();
        store.insert(&row).unwrap();
    }

    #[test]
    fn ranks_down_and_refused_questions() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("f.db");
        let s = FeedbackStore::open(&db, true).unwrap();
        add(&s, "down", false, "How do I deploy?");
        add(&s, "down", true, "how do i  deploy");
        add(&s, "down", true, "What is i18n?");
        add(&s, "up", false, "What is MDX?");
        let text = report(&db, 10).unwrap();
        assert!(text.contains("4 rows (1 up, 3 down, 2 refused)"), "{text}");
        assert!(text.contains("Refusal rate: 50.0%"), "{text}");
        let data = collect_file(&db, 10).unwrap();
        assert_eq!(data.most_refused.len(), 2);
        assert_eq!(data.most_down[0].count, 2);
        assert_eq!(data.per_day.len(), 1);
        let html = render_html(&data);
        assert!(html.contains("<svg") && html.contains("deploy"));
        assert!(
            !html.contains("http://") || !html.contains("<script"),
            "no external resources"
        );
        let deploy = text.find("deploy").unwrap();
        let i18n = text.find("i18n").unwrap();
        assert!(deploy < i18n, "most frequent first:\n{text}");
        assert!(
            !text.contains("MDX"),
            "upvoted questions are not listed:\n{text}"
        );
    }

    #[test]
    fn says_clearly_when_no_questions() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("f.db");
        let s = FeedbackStore::open(&db, false).unwrap();
        add(&s, "down", true, "hidden");
        let text = report(&db, 10).unwrap();
        assert!(text.contains("No question text is stored"), "{text}");
        assert!(text.contains("--store-questions"));
        assert!(matches!(
            report(&dir.path().join("none.db"), 1),
            Err(ReportError::Missing(_))
        ));
    }
}

//! `proxy report`: the questions most often refused or rated down, i.e. what the book's
//! authors should write next.

use std::fmt::Write as _;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::feedback::StoreError;

/// Builds the report's text from the feedback database at `db`.
pub fn report(db: &Path, limit: u32) -> Result<String, ReportError> {
    if !db.is_file() {
        return Err(ReportError::Missing(db.display().to_string()));
    }
    let conn = Connection::open_with_flags(db, OpenFlags::SQLITE_OPEN_READ_ONLY)
        .map_err(StoreError::from)?;
    let (total, up, down, refused, with_q): (i64, i64, i64, i64, i64) = conn
        .query_row(
            "SELECT COUNT(*),
                    COALESCE(SUM(rating = 'up'), 0),
                    COALESCE(SUM(rating = 'down'), 0),
                    COALESCE(SUM(refused), 0),
                    COALESCE(SUM(question IS NOT NULL), 0)
             FROM feedback",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
        )
        .map_err(StoreError::from)?;

    let mut out = String::new();
    let _ = writeln!(
        out,
        "Feedback: {total} rows ({up} up, {down} down, {refused} refused); question text stored for {with_q}."
    );
    if with_q == 0 {
        let _ = writeln!(
            out,
            "No question text is stored, so there is nothing to rank. Start the proxy with \
--store-questions (off by default, for privacy) to collect it."
        );
        return Ok(out);
    }

    let mut stmt = conn
        .prepare(
            "SELECT question_key,
                    COUNT(*) AS n,
                    SUM(rating = 'down') AS downs,
                    SUM(refused) AS refusals,
                    MAX(question) AS example
             FROM feedback
             WHERE question_key IS NOT NULL AND (rating = 'down' OR refused = 1)
             GROUP BY question_key
             ORDER BY n DESC, refusals DESC, question_key
             LIMIT ?1",
        )
        .map_err(StoreError::from)?;
    let rows = stmt
        .query_map([limit], |r| {
            Ok((
                r.get::<_, i64>(1)?,
                r.get::<_, i64>(2)?,
                r.get::<_, i64>(3)?,
                r.get::<_, String>(4)?,
            ))
        })
        .map_err(StoreError::from)?
        .collect::<Result<Vec<_>, _>>()
        .map_err(StoreError::from)?;
    if rows.is_empty() {
        let _ = writeln!(out, "No stored question was refused or rated down.");
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "Questions most often refused or rated down (what the book should cover next):"
    );
    let _ = writeln!(
        out,
        "{:>5} {:>5} {:>7}  question",
        "times", "down", "refused"
    );
    for (n, downs, refusals, example) in rows {
        let example: String = example.split_whitespace().collect::<Vec<_>>().join(" ");
        let short: String = example.chars().take(120).collect();
        let _ = writeln!(out, "{n:>5} {downs:>5} {refusals:>7}  {short}");
    }
    Ok(out)
}

/// Why the report could not be made.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// No database at that path.
    #[error("no feedback database at {0} (is it the proxy's --db?)")]
    Missing(String),
    /// SQLite failed.
    #[error(transparent)]
    Store(#[from] StoreError),
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

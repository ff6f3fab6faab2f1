//! `index-builder query`: answers questions from a built asset with exactly the browser's code path
//! (int8 encoder, quantized vectors, hybrid fusion, stored thresholds), one JSON line per question.

use std::io::{BufRead, Write};
use std::path::Path;

use anyhow::{Context, Result};
use book_retrieval::{Index, Mode, SearchRequest, SearchResults};
use serde::{Deserialize, Serialize};

use crate::build::LoadedAsset;

/// One line of the `--batch` file.
#[derive(Debug, Deserialize)]
pub struct Question {
    /// Any JSON value, echoed in the answer line.
    pub id: serde_json::Value,
    /// The question.
    pub question: String,
    /// `answer` only: the page the reader asks from (its URL or path, e.g. `/docs/intro`); its
    /// sections get the current-page boost the widget gives the page it is open on. Absent: no
    /// page, as when the widget is asked from no docs page.
    #[serde(default)]
    pub page: Option<String>,
    /// `answer` only: the reader's selected passage ("Ask about this"). Absent: none.
    #[serde(default)]
    pub selection: Option<String>,
    /// `answer` only: lines with the same value (any JSON) are one conversation, asked in file
    /// order: a follow-up ("How do I install it?") is searched with the previous answered
    /// question's topic words, as the widget does. Absent: the question is asked alone.
    #[serde(default)]
    pub conversation: Option<serde_json::Value>,
    /// `answer` only: the URL of the section the question was offered under as a follow-up
    /// (the `url` of one of a previous answer's `suggestions`), when the reader clicked it: of
    /// the sections offering those words, that one is answered from. Absent: typed.
    #[serde(default)]
    pub offered_by: Option<String>,
}

/// One result in the output.
#[derive(Debug, Serialize, PartialEq)]
pub struct ResultRow {
    /// Source path of the page.
    pub path: String,
    /// Section heading; `None`: the page top.
    pub heading: Option<String>,
    /// Site URL of the section.
    pub url: String,
    /// Fused score.
    pub score: f32,
}

/// One line of output.
#[derive(Debug, Serialize)]
pub struct Answer {
    /// The question's id.
    pub id: serde_json::Value,
    /// The book does not cover the question.
    pub refused: bool,
    /// The hits, best first.
    pub results: Vec<ResultRow>,
}

/// Searches one question as the widget does.
pub fn search(asset: &LoadedAsset, question: &str, k: usize, mode: Mode) -> SearchResults {
    let vector = match (&asset.encoder, mode) {
        (Some(enc), Mode::Hybrid | Mode::DenseOnly) => Some(enc.encode(question)),
        _ => None,
    };
    let mut req = SearchRequest::new(question, vector.as_deref());
    req.k = k;
    req.mode = mode;
    asset.index.search(&req)
}

/// Turns search results into output rows.
pub fn rows(index: &Index, results: &SearchResults) -> Vec<ResultRow> {
    results
        .hits
        .iter()
        .filter_map(|h| {
            let c = index.chunk(h.chunk)?;
            Some(ResultRow {
                path: c.path.clone(),
                heading: c.section.clone(),
                url: c.url.clone(),
                score: h.score,
            })
        })
        .collect()
}

/// Runs a batch file (JSON lines) and prints one JSON line per question. A bad line gets an error line on stderr and is skipped.
/// `mode`: [`Mode::Hybrid`] as the widget searches with its encoder, [`Mode::Bm25Only`] as it
/// searches before the encoder has loaded.
pub fn run_batch(asset: &LoadedAsset, batch: &Path, k: usize, mode: Mode) -> Result<()> {
    for_each_question(batch, |q| {
        let results = search(asset, &q.question, k, mode);
        Answer {
            id: q.id,
            refused: results.refused,
            results: rows(&asset.index, &results),
        }
    })
}

/// The batch protocol `query` and `answer` share: reads `{"id","question"}` JSON lines from
/// `batch`, calls `respond` for each and prints its result as one JSON line on stdout. A line
/// that is not such an object gets an error on stderr naming the file and line, and is skipped.
pub fn for_each_question<T: Serialize>(
    batch: &Path,
    mut respond: impl FnMut(Question) -> T,
) -> Result<()> {
    let file =
        std::fs::File::open(batch).with_context(|| format!("cannot open {}", batch.display()))?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut bad = 0usize;
    for (n, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line =
            line.with_context(|| format!("cannot read {} line {}", batch.display(), n + 1))?;
        if line.trim().is_empty() {
            continue;
        }
        let q: Question = match serde_json::from_str(&line) {
            Ok(q) => q,
            Err(e) => {
                eprintln!(
                    "{}:{}: skipped: not a {{\"id\", \"question\"}} object ({e})",
                    batch.display(),
                    n + 1
                );
                bad += 1;
                continue;
            }
        };
        serde_json::to_writer(&mut out, &respond(q))?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    if bad > 0 {
        eprintln!("{bad} line(s) skipped");
    }
    Ok(())
}

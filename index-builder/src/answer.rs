//! `index-builder answer`: what the widget shows for each question when no LLM is configured (the
//! default of every static book), from a built asset, with the widget's own code path: the
//! browser's search (int8 encoder, quantized vectors, stored thresholds), then
//! `book_answer::compose`. `--before-encoder` answers as the widget does while the encoder module
//! is still downloading (BM25 alone, quotes chosen by terms).

use std::path::Path;

use anyhow::{Context, Result};
use book_answer::{Answer, Found};
use book_retrieval::{ChunkTexts, Encoder, Index, Mode, SearchRequest};
use serde::Serialize;

use crate::build::{load_asset, read_manifest, LoadedAsset};
use crate::query::for_each_question;

/// An asset with its chunk texts: everything an answer is built from.
pub struct AnswerAsset {
    /// The index and encoder.
    pub asset: LoadedAsset,
    /// The chunk texts (quoted by excerpts).
    pub texts: ChunkTexts,
}

/// Loads an asset folder, chunk texts included.
pub fn load(dir: &Path) -> Result<AnswerAsset> {
    let asset = load_asset(dir)?;
    let manifest = read_manifest(dir)?;
    let p = dir.join(&manifest.files.chunks);
    let bytes = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
    let texts = ChunkTexts::from_bytes(&bytes, &asset.index.content_hash, asset.index.len())
        .with_context(|| format!("cannot load {}", p.display()))?;
    Ok(AnswerAsset { asset, texts })
}

/// What the search finds for `question`, as the widget searches: hybrid when `encoder` is given,
/// BM25 alone otherwise (the widget before its encoder has loaded), asked from the page at `page`
/// (URL or path; its sections get the widget's current-page boost) or from none.
pub fn find_from(
    index: &Index,
    texts: &ChunkTexts,
    encoder: Option<&Encoder>,
    question: &str,
    page: Option<&str>,
) -> Found {
    let vector = encoder.map(|e| e.encode(question));
    let mut req = SearchRequest::new(question, vector.as_deref());
    req.k = book_retrieval::index::DEFAULT_K;
    req.current_page_url = page;
    if encoder.is_none() {
        req.mode = Mode::Bm25Only;
    }
    let res = index.search(&req);
    book_answer::found::collect(index, texts, &res, vector)
}

/// The widget's answer to `question` asked from `page` (no LLM, no conversation, no selection).
pub fn answer(
    index: &Index,
    texts: &ChunkTexts,
    encoder: Option<&Encoder>,
    question: &str,
    page: Option<&str>,
) -> Answer {
    let question = question.trim();
    let found = find_from(index, texts, encoder, question, page);
    // A reader who changed nothing: the widget's default preferences.
    let prefs = book_answer::Preferences::default();
    match encoder {
        Some(enc) => {
            let embed = |t: &str, max_tokens: usize| Some(enc.encode_opening(t, max_tokens));
            book_answer::compose(question, &found, Some(&embed), &prefs)
        }
        None => book_answer::compose(question, &found, None, &prefs),
    }
}

/// One quote in the output.
#[derive(Debug, Serialize)]
pub struct QuoteRow {
    /// The quoted sentence or code.
    pub text: String,
    /// Source path of the quoted section.
    pub path: String,
    /// Its heading (`None` for a page top).
    pub heading: Option<String>,
    /// Its URL.
    pub url: String,
    /// The code block's language, for code quotes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
    /// "sentence", "code", "table" (`text`: rows one a line, cells separated by a tab, header
    /// first) or "list" (`text`: items one a line).
    pub form: &'static str,
    /// For a table or list: the book's lead-in sentence to it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intro: Option<String>,
}

/// One listed source in the output.
#[derive(Debug, Serialize)]
pub struct SourceRow {
    /// Source path.
    pub path: String,
    /// Heading (`None` for a page top).
    pub heading: Option<String>,
    /// URL with anchor.
    pub url: String,
    /// Relevance (the scale of the refusal threshold).
    pub score: f32,
}

/// One line of output.
#[derive(Debug, Serialize)]
pub struct AnswerRow {
    /// The question's id from the batch file.
    pub id: serde_json::Value,
    /// The book does not cover it.
    pub refused: bool,
    /// "high", "medium", "low", or null for refusals.
    pub confidence: Option<book_answer::Confidence>,
    /// The quotes, in the answer's order.
    pub quotes: Vec<QuoteRow>,
    /// The sources listed under the answer, numbered from 1 in this order.
    pub sources: Vec<SourceRow>,
    /// Sections linked after the quotes ("Also relevant"), not numbered.
    pub also: Vec<SourceRow>,
    /// Follow-up questions.
    pub suggestions: Vec<String>,
    /// The answer text exactly as the widget renders it (Markdown).
    pub markdown: String,
}

/// The output line of `answer` for question `id`.
pub fn row(index: &Index, id: serde_json::Value, a: Answer) -> AnswerRow {
    let path = |chunk: u32| {
        index
            .chunk(chunk)
            .map(|c| c.path.clone())
            .unwrap_or_default()
    };
    let source_row = |s: &book_answer::Source| SourceRow {
        path: path(s.chunk),
        heading: s.section.clone(),
        url: s.url.clone(),
        score: s.score,
    };
    AnswerRow {
        id,
        refused: a.refused,
        confidence: a.confidence,
        quotes: a
            .quotes
            .iter()
            .filter_map(|q| {
                let s = a.sources.get(q.source)?;
                Some(QuoteRow {
                    text: q.text.clone(),
                    path: path(s.chunk),
                    heading: s.section.clone(),
                    url: s.url.clone(),
                    code: q.code_lang().map(str::to_string),
                    form: match q.form {
                        book_answer::extractive::Form::Sentence => "sentence",
                        book_answer::extractive::Form::Code { .. } => "code",
                        book_answer::extractive::Form::Table => "table",
                        book_answer::extractive::Form::List => "list",
                    },
                    intro: q.intro.clone(),
                })
            })
            .collect(),
        sources: a.sources.iter().map(source_row).collect(),
        also: a.also.iter().map(source_row).collect(),
        suggestions: a.suggestions,
        markdown: a.markdown,
    }
}

/// Answers every question of a JSON-lines batch file, one JSON line each. A bad line gets an
/// error on stderr and is skipped.
pub fn run_batch(asset: &AnswerAsset, batch: &Path, before_encoder: bool) -> Result<()> {
    let encoder = asset.asset.encoder.as_ref().filter(|_| !before_encoder);
    for_each_question(batch, |q| {
        let a = answer(
            &asset.asset.index,
            &asset.texts,
            encoder,
            &q.question,
            q.page.as_deref(),
        );
        row(&asset.asset.index, q.id, a)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_page_asked_from_ranks_its_sections_first_as_in_the_widget() {
        // Two pages explaining launch files in the same words: a tie the page asked from breaks.
        let text = "A launch file starts several nodes at once with their parameters.";
        let (index, texts) = book_answer::testing::tiny_index(&[
            (
                "Simulation",
                Some("Launch files"),
                "/docs/sim",
                Some("launch-files"),
                text,
            ),
            (
                "Hardware",
                Some("Launch files"),
                "/docs/robot",
                Some("launch-files"),
                text,
            ),
        ]);
        let q = "What does a launch file start?";
        let top = |page: Option<&str>| {
            let a = answer(&index, &texts, None, q, page);
            assert!(!a.refused, "{q}");
            a.sources.first().map(|s| s.url.clone()).unwrap_or_default()
        };
        assert_eq!(top(None), "/docs/sim#launch-files");
        assert_eq!(top(Some("/docs/robot")), "/docs/robot#launch-files");
        // The widget passes the page's full URL: host, trailing slash and anchor do not matter.
        assert_eq!(
            top(Some("http://127.0.0.1:3000/docs/robot/#intro")),
            "/docs/robot#launch-files"
        );
    }

    #[test]
    fn a_batch_line_may_name_the_page() {
        let q: crate::query::Question =
            serde_json::from_str(r#"{"id": 1, "question": "q", "page": "/docs/intro"}"#)
                .expect("parses");
        assert_eq!(q.page.as_deref(), Some("/docs/intro"));
        let q: crate::query::Question =
            serde_json::from_str(r#"{"id": 1, "question": "q"}"#).expect("parses");
        assert_eq!(q.page, None);
    }
}

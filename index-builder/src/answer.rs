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
/// BM25 alone otherwise (the widget before its encoder has loaded).
pub fn find(index: &Index, texts: &ChunkTexts, encoder: Option<&Encoder>, question: &str) -> Found {
    let vector = encoder.map(|e| e.encode(question));
    let mut req = SearchRequest::new(question, vector.as_deref());
    req.k = book_retrieval::index::DEFAULT_K;
    if encoder.is_none() {
        req.mode = Mode::Bm25Only;
    }
    let res = index.search(&req);
    book_answer::found::collect(index, texts, &res, vector)
}

/// The widget's answer to `question` (no LLM, no conversation, no page context).
pub fn answer(
    index: &Index,
    texts: &ChunkTexts,
    encoder: Option<&Encoder>,
    question: &str,
) -> Answer {
    let question = question.trim();
    let found = find(index, texts, encoder, question);
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
        let a = answer(&asset.asset.index, &asset.texts, encoder, &q.question);
        row(&asset.asset.index, q.id, a)
    })
}

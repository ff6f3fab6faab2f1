//! Per-book refusal thresholds, calibrated at build time without any labelled question of the book.
//!
//! A relevance score means different things in different books (a dense book of jargon gives every
//! question some term coverage; a book with long sections gives high cosines). So each book's
//! thresholds are set from two distributions measured on the book itself:
//! - **answerable-like** questions made from the book's own text (section headings phrased as
//!   questions, and key words of a sentence of the section), which the book can answer;
//! - **out-of-scope** questions from the calibration bank (`eval/calibration/`: off-topic and
//!   near-miss questions written for no particular book, never used in evaluation).
//!
//! The threshold sits between a high quantile of the out-of-scope scores and a low quantile of the
//! answerable-like ones. Which quantiles, how they mix and the coverage weight are global
//! [`Calibration`] parameters, fitted leave-one-book-out over the labelled books
//! (`tests/quality.rs` refits them for every held-out book; the defaults are the fit on all books).
//! The result is stored in the asset's `SearchSettings`, so the browser refuses exactly as measured.

use book_answer::passage::{passages, Kind};
use book_answer::suggest::as_question;
use book_retrieval::{Encoder, Index, Mode, SearchRequest};

/// Global parameters of the calibration (the same for every book).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Weight of term coverage in the hybrid relevance (`cosine + weight × coverage`).
    pub coverage_weight: f32,
    /// Quantile of the out-of-scope relevances (hybrid).
    pub neg_quantile: f32,
    /// Quantile of the answerable-like relevances (hybrid).
    pub pos_quantile: f32,
    /// 0: the threshold is the out-of-scope quantile; 1: the answerable-like quantile.
    pub mix: f32,
    /// The same three for the BM25-only phase (coverage alone).
    pub bm25_neg_quantile: f32,
    /// See `bm25_neg_quantile`.
    pub bm25_pos_quantile: f32,
    /// See `bm25_neg_quantile`.
    pub bm25_mix: f32,
}

impl Default for Calibration {
    /// Fitted by `tests/quality.rs` (`fit` over all labelled books); the figures reported come from
    /// refits that leave the measured book out.
    fn default() -> Self {
        Self {
            coverage_weight: 0.4,
            neg_quantile: 0.85,
            pos_quantile: 0.0,
            mix: 0.75,
            bm25_neg_quantile: 0.5,
            bm25_pos_quantile: 0.0,
            bm25_mix: 0.0,
        }
    }
}

/// The refusal signals of one question: best cosine and best coverage among the hybrid hits, and
/// best coverage among the BM25-only hits (`None` when nothing searchable was asked).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    /// Best cosine of the hybrid hits.
    pub cosine: f32,
    /// Best term coverage of the hybrid hits.
    pub coverage: f32,
    /// Best term coverage of the BM25-only hits; `None` when the question has no searchable term.
    pub bm25_coverage: Option<f32>,
}

impl Signals {
    /// Hybrid relevance with coverage weight `w`.
    pub fn relevance(&self, w: f32) -> f32 {
        self.cosine + w * self.coverage
    }
}

/// Measures the refusal signals of `question`.
pub fn signals(index: &Index, encoder: &Encoder, question: &str) -> Signals {
    let v = encoder.encode(question);
    let mut req = SearchRequest::new(question, Some(&v));
    let r = index.search(&req);
    let cosine = r.hits.iter().filter_map(|h| h.dense).fold(-1f32, f32::max);
    let coverage = r.hits.iter().map(|h| h.coverage).fold(0f32, f32::max);
    req.mode = Mode::Bm25Only;
    let b = index.search(&req);
    let searchable = index.bm25.score(question).query_terms > 0;
    let bm25_coverage = searchable.then(|| b.hits.iter().map(|h| h.coverage).fold(0f32, f32::max));
    Signals {
        cosine,
        coverage,
        bm25_coverage,
    }
}

/// Answerable-like questions made from the book's own sections (at most `max`, spread over the book).
pub fn pseudo_questions(
    index: &Index,
    texts: &book_retrieval::ChunkTexts,
    max: usize,
) -> Vec<String> {
    let n = index.len();
    let step = (n / max.max(1)).max(1);
    let mut out = Vec::new();
    for i in (0..n).step_by(step) {
        let Some(meta) = index.chunk(i as u32) else {
            continue;
        };
        let heading = meta.section.as_deref().unwrap_or(&meta.chapter);
        // Alternate: the heading as a question, or key words of a sentence (a reader's paraphrase
        // shares some words with the text, rarely the heading's).
        if i / step % 2 == 0 {
            if let Some(q) = as_question(heading) {
                out.push(q);
                continue;
            }
        }
        let text = texts.get(i as u32).unwrap_or_default();
        if let Some(p) = passages(text).into_iter().find(|p| p.kind == Kind::Prose) {
            let words = book_answer::text::content_words(&p.text);
            let picked: Vec<String> = words.into_iter().step_by(2).take(6).collect();
            if picked.len() >= 2 {
                out.push(format!("what about {}", picked.join(" ")));
            }
        }
    }
    out
}

/// The calibration bank compiled into the builder (`eval/calibration/*.jsonl`), so a packaged
/// builder, run far from this source tree, calibrates every book the same way.
const BUILT_IN_BANK: [&str; 2] = [
    include_str!("../../eval/calibration/off-topic.jsonl"),
    include_str!("../../eval/calibration/near-miss.jsonl"),
];

/// The `question` field of every JSON line of `text` (other lines are ignored).
fn questions_of(text: &str, out: &mut Vec<String>) {
    for line in text.lines() {
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(line) {
            if let Some(q) = v.get("question").and_then(|q| q.as_str()) {
                out.push(q.to_string());
            }
        }
    }
}

/// A calibration bank of the author's: JSON lines with a `question` field in every `*.jsonl`
/// file of `dir` (`index-builder build --calibration DIR`).
pub fn bank_from(dir: &std::path::Path) -> std::io::Result<Vec<String>> {
    let mut files: Vec<std::path::PathBuf> = std::fs::read_dir(dir)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        questions_of(&std::fs::read_to_string(&f)?, &mut out);
    }
    Ok(out)
}

/// The built-in bank: out-of-scope questions written for no particular book (off-topic and
/// near-miss), never used in any evaluation.
pub fn bank() -> Vec<String> {
    let mut out = Vec::new();
    for text in BUILT_IN_BANK {
        questions_of(text, &mut out);
    }
    out
}

/// The unlabelled measurements a book's thresholds are set from.
#[derive(Debug, Clone, Default)]
pub struct BookSample {
    /// Signals of answerable-like questions from the book's text.
    pub positive: Vec<Signals>,
    /// Signals of the calibration bank's out-of-scope questions.
    pub negative: Vec<Signals>,
}

/// Measures a book's calibration sample.
pub fn sample(
    index: &Index,
    texts: &book_retrieval::ChunkTexts,
    encoder: &Encoder,
    bank: &[String],
) -> BookSample {
    BookSample {
        positive: pseudo_questions(index, texts, 160)
            .iter()
            .map(|q| signals(index, encoder, q))
            .collect(),
        negative: bank.iter().map(|q| signals(index, encoder, q)).collect(),
    }
}

fn quantile(values: &mut [f32], q: f32) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f32::total_cmp);
    let pos = (q.clamp(0.0, 1.0) * (values.len() - 1) as f32).round() as usize;
    values[pos]
}

/// The book's thresholds: (coverage weight, hybrid min relevance, BM25 min coverage).
pub fn thresholds(s: &BookSample, c: &Calibration) -> (f32, f32, f32) {
    let rel =
        |v: &[Signals]| -> Vec<f32> { v.iter().map(|x| x.relevance(c.coverage_weight)).collect() };
    let cov = |v: &[Signals]| -> Vec<f32> { v.iter().filter_map(|x| x.bm25_coverage).collect() };
    let hybrid = (1.0 - c.mix) * quantile(&mut rel(&s.negative), c.neg_quantile)
        + c.mix * quantile(&mut rel(&s.positive), c.pos_quantile);
    let bm25 = (1.0 - c.bm25_mix) * quantile(&mut cov(&s.negative), c.bm25_neg_quantile)
        + c.bm25_mix * quantile(&mut cov(&s.positive), c.bm25_pos_quantile);
    (
        c.coverage_weight,
        hybrid.clamp(0.0, 4.0),
        bm25.clamp(0.0, 1.0),
    )
}

/// Stores a book's calibrated thresholds in its index (the hash is recomputed, as on disk).
pub fn apply(
    index: &mut Index,
    s: &BookSample,
    c: &Calibration,
) -> Result<(), book_retrieval::AssetError> {
    let (w, rel, cov) = thresholds(s, c);
    index.meta.settings.coverage_weight = w;
    index.meta.settings.min_relevance = rel;
    index.meta.settings.min_coverage = cov;
    let dim = index.dim();
    *index = Index::from_bytes(&index.to_bytes()?, Some(dim))?;
    Ok(())
}

/// Whether the search refuses a question with `sig` under thresholds `(w, rel, cov)`, in the
/// hybrid phase (`hybrid`) or the BM25-only one: the rule of `Index::search`.
pub fn refuses(sig: &Signals, t: (f32, f32, f32), hybrid: bool) -> bool {
    if hybrid {
        sig.relevance(t.0) < t.1
    } else {
        sig.bm25_coverage.is_none_or(|c| c < t.2)
    }
}

/// A labelled book for fitting: its calibration sample and its labelled questions' signals
/// (`true` = out of scope).
pub struct FitBook {
    /// The unlabelled calibration sample.
    pub sample: BookSample,
    /// Labelled questions: (out of scope, signals).
    pub labelled: Vec<(bool, Signals)>,
}

/// Refusal rates (out-of-scope refused, answerable refused) of a book under `c`.
pub fn rates(b: &FitBook, c: &Calibration, hybrid: bool) -> (f32, f32) {
    let t = thresholds(&b.sample, c);
    let (mut oos, mut oos_r, mut ans, mut ans_r) = (0f32, 0f32, 0f32, 0f32);
    for (o, s) in &b.labelled {
        let r = refuses(s, t, hybrid);
        if *o {
            oos += 1.0;
            oos_r += r as u8 as f32;
        } else {
            ans += 1.0;
            ans_r += r as u8 as f32;
        }
    }
    (oos_r / oos.max(1.0), ans_r / ans.max(1.0))
}

/// Fits the global parameters on `books` (grid search): most out-of-scope questions refused while
/// every book keeps answerable refusals at or under 8 %.
pub fn fit(books: &[&FitBook]) -> Calibration {
    let objective = |c: &Calibration, hybrid: bool| -> f32 {
        let mut score = 0.0;
        for b in books {
            let (o, a) = rates(b, c, hybrid);
            score += o.min(0.9) - 3.0 * a - if a > 0.08 { 1.0 } else { 0.0 };
        }
        score
    };
    let qs_neg = [0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0];
    let qs_pos = [0.0, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3];
    let mixes = [0.0, 0.25, 0.5, 0.75, 1.0];
    let mut best = Calibration::default();
    let mut best_score = f32::MIN;
    for w in [0.4, 0.6, 0.8, 1.0, 1.2] {
        for &a in &qs_neg {
            for &b in &qs_pos {
                for &m in &mixes {
                    let c = Calibration {
                        coverage_weight: w,
                        neg_quantile: a,
                        pos_quantile: b,
                        mix: m,
                        ..best
                    };
                    let s = objective(&c, true);
                    if s > best_score {
                        best_score = s;
                        best = c;
                    }
                }
            }
        }
    }
    let mut best_score = f32::MIN;
    let hybrid_part = best;
    for &a in &qs_neg {
        for &b in &qs_pos {
            for &m in &mixes {
                let c = Calibration {
                    bm25_neg_quantile: a,
                    bm25_pos_quantile: b,
                    bm25_mix: m,
                    ..hybrid_part
                };
                let s = objective(&c, false);
                if s > best_score {
                    best_score = s;
                    best = c;
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(rel: f32) -> Signals {
        Signals {
            cosine: rel,
            coverage: 0.0,
            bm25_coverage: Some(rel),
        }
    }

    #[test]
    fn threshold_sits_between_the_two_samples() {
        let s = BookSample {
            positive: (0..100).map(|i| sig(0.6 + i as f32 / 250.0)).collect(),
            negative: (0..100).map(|i| sig(0.1 + i as f32 / 250.0)).collect(),
        };
        let c = Calibration {
            neg_quantile: 1.0,
            pos_quantile: 0.0,
            mix: 0.5,
            bm25_neg_quantile: 1.0,
            bm25_pos_quantile: 0.0,
            bm25_mix: 0.5,
            ..Calibration::default()
        };
        let (_, rel, cov) = thresholds(&s, &c);
        assert!(rel > 0.5 && rel < 0.6, "{rel}");
        assert!(cov > 0.5 && cov < 0.6, "{cov}");
        let book = FitBook {
            sample: s,
            labelled: vec![(true, sig(0.2)), (false, sig(0.8))],
        };
        assert_eq!(rates(&book, &c, true), (1.0, 0.0));
        let fitted = fit(&[&book]);
        assert_eq!(rates(&book, &fitted, true), (1.0, 0.0));
        assert_eq!(rates(&book, &fitted, false), (1.0, 0.0));
    }
}

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
//! The relevance is the book's best cosine plus a weight × its best term coverage, less a penalty
//! for each query term the book never uses that names something (a near-miss question names a
//! tool or a thing the book lacks). Unseen terms are told apart (`book_retrieval::common_words`):
//! a likely typo of a book term costs nothing, a common English word (a reader's own wording:
//! "choppy", "forever") costs a fitted fraction, a name the whole penalty. The threshold is a
//! weighted quantile of the out-of-scope relevances, plus a weighted low quantile of the
//! answerable-like ones, plus an offset; a weight below 1 on the out-of-scope quantile leans the
//! threshold towards a constant, which carries over better to a broad book whose bank scores run
//! high. Which quantiles, weights and offset, the coverage weight, the penalty and the common-word
//! weight are global [`Calibration`] parameters, fitted leave-one-book-out over the labelled books
//! (`tests/quality.rs` refits them for every held-out book; the defaults are the fit on all books).
//! With the encoder, a question is refused only when the words-only test (the BM25 phase's
//! threshold) refuses it too: a reader's vague question still uses the book's words, and the
//! hybrid threshold alone, set from the bank and the book's own text, does not carry over to a
//! book whose readers ask vaguer questions (the second textbook refused 20 % of its answerable
//! questions). The hybrid phase's words threshold (the BM25 phase's plus a fitted offset) and its
//! relevance threshold are fitted together for that rule.
//! The result is stored in the asset's `SearchSettings`, so the browser refuses exactly as measured.

use std::collections::HashMap;

use book_answer::passage::{passages, Kind};
use book_answer::phrasing::as_question;
use book_retrieval::{Encoder, Index};

/// Global parameters of the calibration (the same for every book).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Calibration {
    /// Weight of term coverage in the hybrid relevance (`cosine + weight × coverage − unseen`).
    pub coverage_weight: f32,
    /// Relevance taken off per query term the book never uses (both phases; see
    /// `SearchSettings::unseen_penalty`).
    pub unseen_penalty: f32,
    /// How much an unseen common English word counts towards the penalty (a name the book lacks
    /// counts 1, a likely typo 0; `SearchSettings::common_unseen_weight`).
    pub common_weight: f32,
    /// Quantile of the out-of-scope relevances (hybrid).
    pub neg_quantile: f32,
    /// Quantile of the answerable-like relevances (hybrid).
    pub pos_quantile: f32,
    /// Weight of the out-of-scope quantile in the threshold (hybrid); below 1 the threshold
    /// leans towards a book-independent constant (the offset).
    pub neg_weight: f32,
    /// Weight of the answerable-like quantile in the threshold (hybrid).
    pub mix: f32,
    /// Added to the mixed quantile (hybrid).
    pub offset: f32,
    /// The same four for the BM25-only phase (coverage alone).
    pub bm25_neg_quantile: f32,
    /// See `bm25_neg_quantile`.
    pub bm25_pos_quantile: f32,
    /// See `bm25_neg_quantile`.
    pub bm25_neg_weight: f32,
    /// See `bm25_neg_quantile`.
    pub bm25_mix: f32,
    /// See `bm25_neg_quantile`.
    pub bm25_offset: f32,
    /// Added to the BM25 phase's threshold for the hybrid phase's words test
    /// (`SearchSettings::hybrid_min_coverage`).
    pub words_offset: f32,
    /// With the encoder, questions whose best cosine is below this are refused whatever their
    /// words (`SearchSettings::min_cosine`; 0 = no floor).
    pub min_cosine: f32,
}

impl Default for Calibration {
    /// Fitted by `tests/quality.rs` (`fit` over all labelled books); the figures reported come from
    /// refits that leave the measured book out.
    fn default() -> Self {
        Self {
            coverage_weight: 0.0,
            unseen_penalty: 0.3,
            common_weight: 0.0,
            neg_quantile: 0.5,
            pos_quantile: 0.0,
            neg_weight: 0.0,
            mix: 0.0,
            offset: 0.42,
            bm25_neg_quantile: 0.5,
            bm25_pos_quantile: 0.0,
            bm25_neg_weight: 0.0,
            bm25_mix: 0.0,
            bm25_offset: 0.16,
            words_offset: 0.0,
            min_cosine: 0.25,
        }
    }
}

/// The refusal signals of one question, as `Index::search` measures them: best cosine over the
/// candidates, best term coverage over the book, and how many query terms the book never uses
/// (`None` coverage when nothing searchable was asked).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signals {
    /// Best cosine of the search's candidates.
    pub cosine: f32,
    /// Best term coverage over the book's chunks.
    pub coverage: f32,
    /// The same coverage for the BM25-only phase; `None` when the question has no searchable term.
    pub bm25_coverage: Option<f32>,
    /// Distinct searchable terms of the question.
    pub query_terms: usize,
    /// Query terms the book never uses.
    pub unseen: usize,
    /// Of `unseen`, likely typos of a book term.
    pub unseen_typos: usize,
    /// Of `unseen`, common English words.
    pub unseen_common: usize,
}

/// How the unseen terms cost: (penalty per term, weight of a common word).
pub type Unseen = (f32, f32);

impl Signals {
    /// What the unseen terms take off the relevance (the search's rule,
    /// `book_retrieval::index::weigh_unseen`).
    fn unseen_cost(&self, (penalty, common): Unseen) -> f32 {
        penalty
            * book_retrieval::index::weigh_unseen(
                book_retrieval::index::UnseenTerms {
                    query: self.query_terms,
                    all: self.unseen,
                    typos: self.unseen_typos,
                    common: self.unseen_common,
                },
                Some(common),
            )
    }

    /// Hybrid relevance with coverage weight `w` and unseen-term cost `u`.
    pub fn relevance(&self, w: f32, u: Unseen) -> f32 {
        self.cosine + w * self.coverage - self.unseen_cost(u)
    }

    /// BM25-only relevance with unseen-term cost `u` (`None`: nothing searchable).
    pub fn bm25_relevance(&self, u: Unseen) -> Option<f32> {
        self.bm25_coverage.map(|c| c - self.unseen_cost(u))
    }
}

/// Measures the refusal signals of `question`.
pub fn signals(index: &Index, encoder: &Encoder, question: &str) -> Signals {
    let v = encoder.encode(question);
    // The search's dense candidates hold the book's best cosine (exactly, without the ANN graph).
    let cosine = (0..index.len())
        .map(|i| index.vectors.exact(&v, i))
        .fold(-1f32, f32::max);
    let bm = index.bm25.score(question, &index.meta.common_words);
    let coverage = bm.coverage.iter().copied().fold(0f32, f32::max);
    Signals {
        cosine,
        coverage,
        bm25_coverage: (bm.query_terms > 0).then_some(coverage),
        query_terms: bm.query_terms,
        unseen: bm.unseen_terms,
        unseen_typos: bm.unseen_typos,
        unseen_common: bm.unseen_common,
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
    // Each question is one encoding and one search, independent of the others: on rayon's
    // threads (in order, so the sample is the same whatever the thread count).
    use rayon::prelude::*;
    BookSample {
        positive: pseudo_questions(index, texts, 160)
            .par_iter()
            .map(|q| signals(index, encoder, q))
            .collect(),
        negative: bank
            .par_iter()
            .map(|q| signals(index, encoder, q))
            .collect(),
    }
}

fn quantile(values: &mut [f32], q: f32) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    values.sort_by(f32::total_cmp);
    quantile_sorted(values, q)
}

fn quantile_sorted(values: &[f32], q: f32) -> f32 {
    if values.is_empty() {
        return 0.0;
    }
    let pos = (q.clamp(0.0, 1.0) * (values.len() - 1) as f32).round() as usize;
    values[pos]
}

/// A book's thresholds, as stored in its `SearchSettings`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Thresholds {
    /// `coverage_weight`.
    pub coverage_weight: f32,
    /// `min_relevance` (hybrid).
    pub min_relevance: f32,
    /// `min_coverage` (BM25 only).
    pub min_coverage: f32,
    /// (`unseen_penalty`, `common_unseen_weight`).
    pub unseen: Unseen,
    /// `hybrid_min_coverage`.
    pub words: f32,
    /// `min_cosine` (0: no floor).
    pub min_cosine: f32,
}

/// The book's thresholds under `c`.
pub fn thresholds(s: &BookSample, c: &Calibration) -> Thresholds {
    let (w, u) = (c.coverage_weight, (c.unseen_penalty, c.common_weight));
    let rel = |v: &[Signals]| -> Vec<f32> { v.iter().map(|x| x.relevance(w, u)).collect() };
    let cov =
        |v: &[Signals]| -> Vec<f32> { v.iter().filter_map(|x| x.bm25_relevance(u)).collect() };
    let hybrid = c.neg_weight * quantile(&mut rel(&s.negative), c.neg_quantile)
        + c.mix * quantile(&mut rel(&s.positive), c.pos_quantile)
        + c.offset;
    let bm25 = c.bm25_neg_weight * quantile(&mut cov(&s.negative), c.bm25_neg_quantile)
        + c.bm25_mix * quantile(&mut cov(&s.positive), c.bm25_pos_quantile)
        + c.bm25_offset;
    Thresholds {
        coverage_weight: w,
        min_relevance: hybrid.clamp(0.0, 4.0),
        min_coverage: bm25.clamp(0.0, 1.0),
        unseen: u,
        words: (bm25 + c.words_offset).clamp(0.0, 1.0),
        min_cosine: c.min_cosine.clamp(0.0, 1.0),
    }
}

/// Stores a book's calibrated thresholds in its index, and the follow-ups they refuse (asked with
/// `encoder`, the shipped one); the hash is recomputed, as on disk.
pub fn apply(
    index: &mut Index,
    encoder: &Encoder,
    s: &BookSample,
    c: &Calibration,
) -> Result<(), book_retrieval::AssetError> {
    let t = thresholds(s, c);
    let settings = &mut index.meta.settings;
    settings.coverage_weight = t.coverage_weight;
    settings.min_relevance = t.min_relevance;
    settings.min_coverage = t.min_coverage;
    settings.unseen_penalty = t.unseen.0;
    settings.common_unseen_weight = Some(t.unseen.1);
    settings.hybrid_min_coverage = Some(t.words);
    settings.min_cosine = (t.min_cosine > 0.0).then_some(t.min_cosine);
    // Which follow-ups these thresholds refuse, so the widget never offers them.
    index.meta.unaskable = crate::follow_ups::unaskable(index, encoder);
    let dim = index.dim();
    *index = Index::from_bytes(&index.to_bytes()?, Some(dim))?;
    Ok(())
}

/// Whether the search refuses a question with `sig` under thresholds `t` (from [`thresholds`]), in
/// the hybrid phase (`hybrid`) or the BM25-only one: the rule of `Index::search` (with the
/// encoder, the words must fall short too: `SearchSettings::hybrid_min_coverage`, unless the
/// cosine is below `SearchSettings::min_cosine`).
pub fn refuses(sig: &Signals, t: &Thresholds, hybrid: bool) -> bool {
    let words_below = |min: f32| sig.bm25_relevance(t.unseen).is_none_or(|c| c < min);
    if hybrid {
        sig.cosine < t.min_cosine
            || sig.relevance(t.coverage_weight, t.unseen) < t.min_relevance && words_below(t.words)
    } else {
        words_below(t.min_coverage)
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
    refusal_rates(b.labelled.iter().map(|(o, s)| (*o, refuses(s, &t, hybrid))))
}

/// (out-of-scope refused, answerable refused) of (out of scope, refused) outcomes.
fn refusal_rates(outcomes: impl Iterator<Item = (bool, bool)>) -> (f32, f32) {
    let (mut oos, mut oos_r, mut ans, mut ans_r) = (0f32, 0f32, 0f32, 0f32);
    for (out_of_scope, refused) in outcomes {
        if out_of_scope {
            oos += 1.0;
            oos_r += refused as u8 as f32;
        } else {
            ans += 1.0;
            ans_r += refused as u8 as f32;
        }
    }
    (oos_r / oos.max(1.0), ans_r / ans.max(1.0))
}

/// A book's relevances under one (coverage weight, unseen-term cost), sorted once for every
/// quantile and offset the grid tries.
struct Scored {
    negative: Vec<f32>,
    positive: Vec<f32>,
    /// The out-of-scope labelled questions' relevances, sorted (−∞: always refused), so a
    /// threshold's refusals are counted by one binary search.
    out_of_scope: Vec<f32>,
    /// The answerable labelled questions' relevances, likewise.
    answerable: Vec<f32>,
}

/// One threshold of the grid: `neg_weight` × the out-of-scope quantile `neg_quantile` + `mix` ×
/// the answerable-like quantile `pos_quantile` + `offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Rule {
    neg_quantile: f32,
    pos_quantile: f32,
    neg_weight: f32,
    mix: f32,
    offset: f32,
}

impl Scored {
    /// `words`: for the hybrid phase, which labelled questions the words-only test refuses (the
    /// others are never refused, see [`refuses`]); `floor`: the hybrid phase's cosine floor
    /// (questions under it are always refused).
    fn new(
        b: &FitBook,
        hybrid: bool,
        (w, floor): (f32, f32),
        u: Unseen,
        words: Option<&[bool]>,
    ) -> Self {
        let r = |s: &Signals| {
            if hybrid {
                Some(s.relevance(w, u))
            } else {
                s.bm25_relevance(u)
            }
        };
        let (mut out_of_scope, mut answerable) = (Vec::new(), Vec::new());
        for (k, (o, s)) in b.labelled.iter().enumerate() {
            let kept = words.is_none_or(|m| m.get(k).copied().unwrap_or(true));
            let relevance = if hybrid && s.cosine < floor {
                f32::NEG_INFINITY
            } else if kept {
                r(s).unwrap_or(f32::NEG_INFINITY)
            } else {
                f32::INFINITY
            };
            if *o {
                &mut out_of_scope
            } else {
                &mut answerable
            }
            .push(relevance);
        }
        out_of_scope.sort_by(f32::total_cmp);
        answerable.sort_by(f32::total_cmp);
        let mut negative: Vec<f32> = b.sample.negative.iter().filter_map(r).collect();
        let mut positive: Vec<f32> = b.sample.positive.iter().filter_map(r).collect();
        negative.sort_by(f32::total_cmp);
        positive.sort_by(f32::total_cmp);
        Scored {
            negative,
            positive,
            out_of_scope,
            answerable,
        }
    }

    /// (out-of-scope refused, answerable refused) under the threshold of `rule`.
    fn rates(&self, rule: &Rule, hybrid: bool) -> (f32, f32) {
        let t = rule.neg_weight * quantile_sorted(&self.negative, rule.neg_quantile)
            + rule.mix * quantile_sorted(&self.positive, rule.pos_quantile)
            + rule.offset;
        let t = if hybrid {
            t.clamp(0.0, 4.0)
        } else {
            t.clamp(0.0, 1.0)
        };
        // The threshold is finite and the relevances are not NaN: those under it are a prefix.
        let share =
            |sorted: &[f32]| sorted.partition_point(|&r| r < t) as f32 / sorted.len().max(1) as f32;
        (share(&self.out_of_scope), share(&self.answerable))
    }
}

/// The fit's score of one book's rates: out-of-scope refusals (up to 0.9) count, answerable
/// refusals cost three times as much, and more than 8 % of them costs a whole point.
fn objective(o: f32, a: f32) -> f32 {
    o.min(0.9) - 3.0 * a - if a > 0.08 { 1.0 } else { 0.0 }
}

/// What a threshold's dependence on the book's own sample costs in the fit, per book and per unit
/// of weight on a quantile: a constant threshold is preferred unless following the book's sample
/// is clearly better on the books fitted on, as a sample's tail (a broad book's bank questions score
/// high) moves the threshold on a new book in ways four books cannot show.
const BOOK_DEPENDENCE_COST: f32 = 0.05;

/// Every threshold rule the grid tries. The out-of-scope quantile's weight below 1 leans the
/// threshold towards a constant: coverage and cosine are shares and angles, partly comparable
/// across books already, and a broad book's bank scores alone would set its threshold too high.
fn rules() -> Vec<Rule> {
    const NEG: [f32; 6] = [0.5, 0.75, 0.85, 0.9, 0.95, 1.0];
    const NEG_WEIGHT: [f32; 3] = [0.0, 0.5, 1.0];
    // (answerable-like quantile, its weight)
    const POS: [(f32, f32); 6] = [
        (0.0, 0.0),
        (0.05, 0.25),
        (0.1, 0.25),
        (0.25, 0.25),
        (0.1, 0.5),
        (0.25, 0.5),
    ];
    let mut out = Vec::new();
    for neg_weight in NEG_WEIGHT {
        for neg_quantile in NEG {
            if neg_weight == 0.0 && neg_quantile != NEG[0] {
                continue;
            }
            for (pos_quantile, mix) in POS {
                for offset in (-15..=30).map(|i| i as f32 * 0.02) {
                    out.push(Rule {
                        neg_quantile,
                        pos_quantile,
                        neg_weight,
                        mix,
                        offset,
                    });
                }
            }
        }
    }
    out
}

/// One phase's fit: its coverage weight, its threshold rule and its score.
type PhaseFit = (f32, Rule, f32);

/// Grid search of one phase's parameters: returns the coverage weight, the rule and its score.
/// `words`: per book, the hybrid phase's words-only refusals; `floor`: its cosine floor (see
/// [`Scored::new`]).
fn fit_phase(
    books: &[&FitBook],
    (hybrid, floor): (bool, f32),
    weights: &[f32],
    u: Unseen,
    words: Option<&[Vec<bool>]>,
    rules: &[Rule],
) -> PhaseFit {
    let mut best = (0.0, rules[0], f32::MIN);
    for &w in weights {
        let scores = phase_scores(books, (hybrid, floor), w, u, words, rules);
        for (i, rule) in rules.iter().enumerate() {
            if scores[i] > best.2 {
                best = (w, *rule, scores[i]);
            }
        }
    }
    best
}

/// The score of every rule of one phase under coverage weight `w`, summed over `books` and
/// averaged over its plateau ([`plateau_score`]); the arguments are [`fit_phase`]'s.
fn phase_scores(
    books: &[&FitBook],
    (hybrid, floor): (bool, f32),
    w: f32,
    u: Unseen,
    words: Option<&[Vec<bool>]>,
    rules: &[Rule],
) -> Vec<f32> {
    let scored: Vec<Scored> = books
        .iter()
        .enumerate()
        .map(|(k, b)| {
            Scored::new(
                b,
                hybrid,
                (w, floor),
                u,
                words.and_then(|m| m.get(k)).map(Vec::as_slice),
            )
        })
        .collect();
    let scores: Vec<f32> = rules
        .iter()
        .map(|rule| {
            scored
                .iter()
                .map(|s| {
                    let (o, a) = s.rates(rule, hybrid);
                    objective(o, a) - BOOK_DEPENDENCE_COST * (rule.neg_weight + rule.mix)
                })
                .sum()
        })
        .collect();
    (0..rules.len())
        .map(|i| plateau_score(rules, &scores, i))
        .collect()
}

/// Offsets on each side of a rule's own that its score is averaged over (grid steps of 0.02).
const PLATEAU_STEPS: usize = 2;

/// The mean score of rule `i` and of the rules that differ from it only by an offset at most
/// [`PLATEAU_STEPS`] grid steps away. A few dozen labelled questions a book make the score a
/// staircase: its single best step is often a narrow ledge next to a cliff (one more answerable
/// question refused past 8 %), which a new book, or a slightly different encoder, falls off. The
/// mean prefers thresholds in the middle of a broad good region.
fn plateau_score(rules: &[Rule], scores: &[f32], i: usize) -> f32 {
    let lo = i.saturating_sub(PLATEAU_STEPS);
    let hi = (i + PLATEAU_STEPS).min(rules.len() - 1);
    let (sum, n) = (lo..=hi)
        .filter(|&j| same_family(&rules[i], &rules[j]))
        .fold((0.0, 0), |(sum, n), j| (sum + scores[j], n + 1));
    sum / n as f32
}

/// Whether two rules differ at most in their offset (the grid lists such rules side by side).
fn same_family(a: &Rule, b: &Rule) -> bool {
    a.neg_quantile == b.neg_quantile
        && a.pos_quantile == b.pos_quantile
        && a.neg_weight == b.neg_weight
        && a.mix == b.mix
}

/// Offsets on each side of the BM25 phase's best rule that [`fit_cost`] also tries, with the
/// hybrid phase fitted under each (grid steps of 0.02).
const JOINT_STEPS: usize = 2;

/// Fits the global parameters on `books` (grid search): most out-of-scope questions refused while
/// every book keeps answerable refusals at or under 8 %. For each unseen-term cost (penalty and
/// common-word weight, shared by both phases), each BM25-phase threshold near that phase's best
/// (see [`JOINT_STEPS`]) and each offset of the hybrid phase's words test from it, the hybrid
/// phase's coverage weight and threshold are fitted under the rule the search applies with the
/// encoder (refuse only when the words fall short too, or when the cosine is under a floor,
/// itself one of the grid's values), and the combination whose two phases score best together
/// is kept.
pub fn fit(books: &[&FitBook]) -> Calibration {
    use rayon::prelude::*;
    const PENALTIES: [f32; 6] = [0.0, 0.1, 0.15, 0.2, 0.3, 0.4];
    const COMMON: [f32; 4] = [0.0, 0.15, 0.3, 0.5];
    let rules = rules();
    let costs: Vec<(f32, f32)> = PENALTIES
        .into_iter()
        .flat_map(|penalty| COMMON.into_iter().map(move |common| (penalty, common)))
        .filter(|&(penalty, common)| penalty != 0.0 || common == COMMON[0])
        .collect();
    // Each unseen-term cost is fitted apart from the others (about half a second each): on
    // rayon's threads, then the best kept in the grid's order, so a tie keeps what one loop would.
    let fitted: Vec<(f32, Calibration)> = costs
        .par_iter()
        .map(|&cost| fit_cost(books, cost, &rules))
        .collect();
    fitted
        .into_iter()
        .fold(None::<(f32, Calibration)>, |best, (score, c)| {
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                Some((score, c))
            } else {
                best
            }
        })
        .map_or_else(Calibration::default, |(_, c)| c)
}

/// [`fit`] for one unseen-term cost (penalty, common-word weight): the best combination of the
/// other parameters and its score (the first of equals in the grid's order).
fn fit_cost(books: &[&FitBook], u: (f32, f32), rules: &[Rule]) -> (f32, Calibration) {
    const WEIGHTS: [f32; 6] = [0.0, 0.15, 0.3, 0.45, 0.6, 0.8];
    const WORDS_OFFSETS: [f32; 6] = [-0.05, 0.0, 0.1, 0.2, 0.3, 1.0];
    // The hybrid phase's cosine floor (0: none); tried in this order, so a tie keeps the lower.
    // The fit keeps 0.25 on all books and on every leave-one-book-out set (2026-12-03): the two
    // floors above it are tried so that the choice is not the grid's edge (each costs about 1 s
    // of fitting; 0.4 was tried too, and not chosen either).
    const FLOORS: [f32; 6] = [0.0, 0.15, 0.2, 0.25, 0.3, 0.35];
    let (penalty, common) = u;
    // The BM25 phase's threshold decides which questions the hybrid phase's words test refuses,
    // so the two are chosen together: the BM25 phase's best rule and its neighbours (offsets up
    // to `JOINT_STEPS` grid steps away), each scored by both phases' scores summed. Fitted one
    // after the other, a question that moved the BM25 phase's best step by one grid step (a
    // ledge as good as its neighbour) moved the hybrid fit to another optimum far away.
    let bm25 = phase_scores(books, (false, 0.0), 0.0, u, None, rules);
    let top = (0..rules.len()).fold(0, |b, i| if bm25[i] > bm25[b] { i } else { b });
    // The best first, so that a tie keeps it; then its neighbours, nearest first.
    let candidates = (1..=JOINT_STEPS)
        .flat_map(|d| [top.checked_sub(d), Some(top + d)])
        .flatten()
        .filter(|&j| j < rules.len() && same_family(&rules[top], &rules[j]));
    // Neighbouring BM25 thresholds often refuse the same questions: the hybrid fits under one
    // set of words-test refusals are kept for the next candidate that gives the same set.
    let mut hybrid_fits: HashMap<Vec<Vec<bool>>, Vec<PhaseFit>> = HashMap::new();
    let mut best: Option<(f32, Calibration)> = None;
    for j in std::iter::once(top).chain(candidates) {
        let (b, bm25_score) = (rules[j], bm25[j]);
        for words_offset in WORDS_OFFSETS {
            let words = Calibration {
                unseen_penalty: penalty,
                common_weight: common,
                bm25_neg_quantile: b.neg_quantile,
                bm25_pos_quantile: b.pos_quantile,
                bm25_neg_weight: b.neg_weight,
                bm25_mix: b.mix,
                bm25_offset: b.offset,
                words_offset,
                ..Calibration::default()
            };
            // Which labelled questions the hybrid phase's words test refuses, per book.
            let refused_by_words: Vec<Vec<bool>> = books
                .iter()
                .map(|b| {
                    let t = thresholds(&b.sample, &words);
                    b.labelled
                        .iter()
                        .map(|(_, s)| s.bm25_relevance(u).is_none_or(|c| c < t.words))
                        .collect()
                })
                .collect();
            let fits = hybrid_fits
                .entry(refused_by_words)
                .or_insert_with_key(|refused| {
                    FLOORS
                        .iter()
                        .map(|&floor| {
                            fit_phase(books, (true, floor), &WEIGHTS, u, Some(refused), rules)
                        })
                        .collect()
                });
            for (&floor, &(w, h, score)) in FLOORS.iter().zip(fits.iter()) {
                let score = bm25_score + score;
                if best.as_ref().is_none_or(|(s, _)| score > *s) {
                    let c = Calibration {
                        coverage_weight: w,
                        neg_quantile: h.neg_quantile,
                        pos_quantile: h.pos_quantile,
                        neg_weight: h.neg_weight,
                        mix: h.mix,
                        offset: h.offset,
                        min_cosine: floor,
                        ..words
                    };
                    best = Some((score, c));
                }
            }
        }
    }
    // WORDS_OFFSETS and FLOORS are not empty: there is a best.
    best.unwrap_or((f32::NEG_INFINITY, Calibration::default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sig(rel: f32) -> Signals {
        Signals {
            cosine: rel,
            coverage: 0.0,
            bm25_coverage: Some(rel),
            query_terms: 10,
            unseen: 0,
            unseen_typos: 0,
            unseen_common: 0,
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
            neg_weight: 0.5,
            mix: 0.5,
            offset: 0.0,
            bm25_neg_quantile: 1.0,
            bm25_pos_quantile: 0.0,
            bm25_neg_weight: 0.5,
            bm25_mix: 0.5,
            bm25_offset: 0.0,
            ..Calibration::default()
        };
        let t = thresholds(&s, &c);
        let (rel, cov) = (t.min_relevance, t.min_coverage);
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

    #[test]
    fn the_grid_counts_refusals_as_the_search_refuses() {
        // The grid counts a threshold's refusals by binary search over sorted relevances; the
        // search refuses question by question. Both must agree at every step of the grid.
        let q = |cosine: f32, coverage: f32, unseen: usize| Signals {
            cosine,
            coverage,
            bm25_coverage: (coverage > 0.05).then_some(coverage),
            unseen,
            ..sig(0.0)
        };
        let book = FitBook {
            sample: BookSample {
                positive: (0..30).map(|i| q(0.4 + i as f32 / 60.0, 0.5, 0)).collect(),
                negative: (0..30).map(|i| q(0.1 + i as f32 / 60.0, 0.1, 1)).collect(),
            },
            labelled: (0..40)
                .map(|i| {
                    let x = (i * 7 % 40) as f32 / 40.0;
                    (i % 3 == 0, q(x, 1.0 - x, i % 4 / 3))
                })
                .collect(),
        };
        let u = (0.3, 0.0);
        for hybrid in [false, true] {
            let scored = Scored::new(&book, hybrid, (0.0, 0.0), u, None);
            for rule in rules().iter().step_by(7) {
                let c = Calibration {
                    unseen_penalty: u.0,
                    common_weight: u.1,
                    coverage_weight: 0.0,
                    min_cosine: 0.0,
                    neg_quantile: rule.neg_quantile,
                    pos_quantile: rule.pos_quantile,
                    neg_weight: rule.neg_weight,
                    mix: rule.mix,
                    offset: rule.offset,
                    bm25_neg_quantile: rule.neg_quantile,
                    bm25_pos_quantile: rule.pos_quantile,
                    bm25_neg_weight: rule.neg_weight,
                    bm25_mix: rule.mix,
                    bm25_offset: rule.offset,
                    // The hybrid phase's words test never refuses: the grid's `words: None`.
                    words_offset: -10.0,
                };
                let t = thresholds(&book.sample, &c);
                let expected = refusal_rates(book.labelled.iter().map(|(o, s)| {
                    let refused = if hybrid {
                        s.relevance(0.0, u) < t.min_relevance
                    } else {
                        refuses(s, &t, false)
                    };
                    (*o, refused)
                }));
                assert_eq!(
                    scored.rates(rule, hybrid),
                    expected,
                    "{rule:?} hybrid {hybrid}"
                );
            }
        }
    }

    #[test]
    fn with_the_encoder_both_tests_must_refuse() {
        // Thresholds: hybrid relevance 0.5, words-only coverage 0.3 in both phases (weight 0, no
        // penalty).
        let t = &Thresholds {
            coverage_weight: 0.0,
            min_relevance: 0.5,
            min_coverage: 0.3,
            unseen: (0.0, 0.0),
            words: 0.3,
            min_cosine: 0.0,
        };
        let vague_but_in_the_books_words = Signals {
            cosine: 0.2,
            coverage: 0.6,
            bm25_coverage: Some(0.6),
            ..sig(0.0)
        };
        assert!(!refuses(&vague_but_in_the_books_words, t, true));
        assert!(!refuses(&vague_but_in_the_books_words, t, false));
        let off_topic = Signals {
            coverage: 0.1,
            bm25_coverage: Some(0.1),
            ..vague_but_in_the_books_words
        };
        assert!(refuses(&off_topic, t, true));
        // Close in meaning: answered with the encoder even though the words-only test refuses.
        let paraphrase = Signals {
            cosine: 0.7,
            ..off_topic
        };
        assert!(!refuses(&paraphrase, t, true));
        assert!(refuses(&paraphrase, t, false));
        // Under the cosine floor the words no longer carry it (with the encoder only).
        let floored = &Thresholds {
            min_cosine: 0.25,
            ..*t
        };
        assert!(refuses(&vague_but_in_the_books_words, floored, true));
        assert!(!refuses(&vague_but_in_the_books_words, floored, false));
        assert!(!refuses(&paraphrase, floored, true));
    }

    #[test]
    fn the_fit_finds_the_cosine_floor_when_only_it_separates() {
        // Every question shares the book's words; only the cosine tells the off-topic ones apart.
        let q = |cosine: f32| Signals {
            cosine,
            coverage: 0.6,
            bm25_coverage: Some(0.6),
            ..sig(0.0)
        };
        let book = FitBook {
            sample: BookSample {
                positive: (0..20).map(|i| q(0.5 + i as f32 / 100.0)).collect(),
                negative: (0..20).map(|i| q(0.05 + i as f32 / 200.0)).collect(),
            },
            labelled: (0..10)
                .map(|i| (true, q(0.05 + i as f32 / 100.0)))
                .chain((0..30).map(|i| (false, q(0.3 + i as f32 / 100.0))))
                .collect(),
        };
        let no_floor = Calibration {
            min_cosine: 0.0,
            ..Calibration::default()
        };
        assert_eq!(rates(&book, &no_floor, true), (0.0, 0.0));
        let fitted = fit(&[&book]);
        assert!(
            fitted.min_cosine > 0.14 && fitted.min_cosine <= 0.3,
            "{fitted:?}"
        );
        assert_eq!(rates(&book, &fitted, true), (1.0, 0.0));
    }

    #[test]
    fn unseen_terms_lower_the_relevance() {
        let near_miss = Signals {
            unseen: 2,
            ..sig(0.6)
        };
        assert!(
            near_miss.relevance(0.0, (0.15, 0.5)) < sig(0.6).relevance(0.0, (0.15, 0.5)) - 0.29
        );
        // At most MAX_UNSEEN_TERMS count.
        let many = Signals {
            unseen: 9,
            ..sig(0.6)
        };
        assert!((many.relevance(0.0, (0.1, 0.5)) - 0.3).abs() < 1e-5);
        assert_eq!(
            many.bm25_relevance((0.1, 0.5)).map(|r| (r * 100.0).round()),
            Some(30.0)
        );
        // A typo costs nothing, a common word its weight, a name the whole penalty.
        let mixed = Signals {
            unseen: 3,
            unseen_typos: 1,
            unseen_common: 1,
            ..sig(0.6)
        };
        assert!((mixed.relevance(0.0, (0.2, 0.5)) - (0.6 - 0.2 * 1.5)).abs() < 1e-5);
        // When most of the question is words the book never uses, common ones count in full.
        let off_topic = Signals {
            query_terms: 4,
            unseen: 2,
            unseen_common: 2,
            ..sig(0.6)
        };
        assert!((off_topic.relevance(0.0, (0.2, 0.0)) - (0.6 - 0.2 * 2.0)).abs() < 1e-5);
    }

    #[test]
    fn the_plateau_beats_a_narrow_ledge_next_to_a_cliff() {
        let rule = |neg_weight: f32, offset: f32| Rule {
            neg_quantile: 0.5,
            pos_quantile: 0.0,
            neg_weight,
            mix: 0.0,
            offset,
        };
        // One family: a ledge at index 2 (the single best score) between cliffs, a broad
        // plateau a little lower at 6..=10; then a second family whose first rule must not
        // average with the first family's last.
        let mut rules: Vec<Rule> = (0..12).map(|i| rule(0.0, i as f32 * 0.02)).collect();
        rules.push(rule(0.5, 0.0));
        let scores = [
            -1.0, -1.0, 2.0, -1.0, -1.0, 0.0, 1.8, 1.8, 1.8, 1.8, 1.8, 0.0, 5.0,
        ];
        let best = (0..11)
            .max_by(|&a, &b| {
                plateau_score(&rules, &scores, a).total_cmp(&plateau_score(&rules, &scores, b))
            })
            .unwrap();
        assert_eq!(best, 8, "the middle of the plateau, not the ledge at 2");
        assert!(
            (plateau_score(&rules, &scores, 2) - (-1.0 - 1.0 + 2.0 - 1.0 - 1.0) / 5.0).abs() < 1e-6
        );
        // Near the end of a family only its own rules count.
        assert!((plateau_score(&rules, &scores, 11) - (1.8 + 1.8 + 0.0) / 3.0).abs() < 1e-6);
        assert_eq!(plateau_score(&rules, &scores, 12), 5.0);
    }
}

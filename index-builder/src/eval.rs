//! `index-builder eval`: retrieval quality on a labelled question set, for BM25 alone, dense alone
//! (as shipped: int8 encoder, quantized vectors), hybrid (the default) and dense f32 exact (the reference).

use std::path::Path;

use anyhow::{Context, Result};
use book_retrieval::{Encoder, Mode, SearchRequest, SearchResults};
use serde::Deserialize;

use crate::build::BuiltBook;

/// A labelled question.
#[derive(Debug, Clone, Deserialize)]
pub struct Labelled {
    /// Stable id of the question.
    pub id: String,
    /// The question.
    pub question: String,
    /// Source path of the page that answers it.
    #[serde(default)]
    pub path: Option<String>,
    /// Heading of the section that answers it; `None`: the page top.
    #[serde(default)]
    pub heading: Option<String>,
    /// Other sections that answer it as well.
    #[serde(default)]
    pub also: Vec<Target>,
    /// The book does not answer it: it should be refused.
    #[serde(default)]
    pub out_of_scope: bool,
    /// What kind of out-of-scope question it is, where the file says (the held-out sets do).
    #[serde(default)]
    pub kind: Option<OutOfScopeKind>,
    /// The book's own words an answer must show for the reader to be answered (any one of them;
    /// from `eval/answer-keys/`, see [`attach_answer_keys`]). Empty: not labelled.
    #[serde(default)]
    pub keys: Vec<String>,
}

/// Another section that answers a question equally well.
#[derive(Debug, Clone, Deserialize)]
pub struct Target {
    /// Source path of the page.
    pub path: String,
    /// Section heading; `None`: the page top.
    pub heading: Option<String>,
}

/// Reads a JSON-lines question file.
pub fn read_questions(path: &Path) -> Result<Vec<Labelled>> {
    read_json_lines(path, "labelled question")
}

/// What kind of question a held-out out-of-scope one is (`eval/out-of-scope-heldout/`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OutOfScopeKind {
    /// On the book's subject, about a thing the book does not cover.
    NearMiss,
    /// Nothing to do with the book.
    OffTopic,
}

impl OutOfScopeKind {
    /// Both kinds, in the order [`OutOfScopeKind::index`] numbers them.
    pub const ALL: [Self; 2] = [Self::NearMiss, Self::OffTopic];

    /// The kind's place in per-kind arrays (`[near-misses, off-topic]`).
    pub fn index(self) -> usize {
        self as usize
    }

    /// The kind as the question files write it.
    pub fn label(self) -> &'static str {
        match self {
            Self::NearMiss => "near-miss",
            Self::OffTopic => "off-topic",
        }
    }
}

/// Reads a file of held-out out-of-scope questions, in file order, each with its kind
/// ([`evaluate`] counts refusals per kind). A line without a `kind`, or one not marked out of
/// scope, is an error.
pub fn read_out_of_scope_with_kinds(path: &Path) -> Result<Vec<Labelled>> {
    let questions = read_json_lines::<Labelled>(path, "held-out out-of-scope question")?;
    for q in &questions {
        anyhow::ensure!(
            q.out_of_scope,
            "{}: {} is not marked out_of_scope",
            path.display(),
            q.id
        );
        anyhow::ensure!(q.kind.is_some(), "{}: {} has no kind", path.display(), q.id);
    }
    Ok(questions)
}

/// The answer keys of one labelled question (`eval/answer-keys/<book>.jsonl`): verbatim phrases of
/// the book (a value, an option, a command, a cause), any of which shown in an answer means the
/// reader got the answer, not only the right section.
#[derive(Debug, Clone, Deserialize)]
pub struct AnswerKeys {
    /// The labelled question's id.
    pub id: String,
    /// The phrases, any one of them answers.
    pub keys: Vec<String>,
}

/// Reads an answer-key file and attaches each question's keys (single questions, or the
/// follow-ups of labelled conversations: `eval/answer-keys/conversations/`); an id the questions
/// do not have is an error (a key file out of step with its questions would measure nothing).
pub fn attach_answer_keys<'a>(
    questions: impl IntoIterator<Item = &'a mut Labelled>,
    path: &Path,
) -> Result<()> {
    let mut questions: Vec<&mut Labelled> = questions.into_iter().collect();
    for k in read_json_lines::<AnswerKeys>(path, "answer-key line")? {
        let q = questions
            .iter_mut()
            .find(|q| q.id == k.id)
            .with_context(|| format!("{}: no labelled question {}", path.display(), k.id))?;
        q.keys = k.keys;
    }
    Ok(())
}

/// Text as keys are matched: Markdown's emphasis and code marks and link targets dropped,
/// lowercase, whitespace collapsed.
fn key_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    // `[words](target)` → `words`.
    while let Some(open) = rest.find("](") {
        let close = rest[open..].find(')').map_or(rest.len(), |c| open + c + 1);
        out.push_str(&rest[..open]);
        rest = &rest[close..];
    }
    out.push_str(rest);
    out.replace(['`', '*', '[', ']'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// Whether a quote (its text, with its lead-in) holds one of `keys`.
fn quote_shows_key(quote: &book_answer::Quote, keys: &[String]) -> bool {
    let shown = format!("{}\n{}", quote.intro.as_deref().unwrap_or(""), quote.text);
    shows_key(&shown, keys)
}

/// Whether one of `answer`'s quotes holds one of `keys` (a refusal quotes nothing).
fn quotes_show_key(answer: &book_answer::Answer, keys: &[String]) -> bool {
    answer.quotes.iter().any(|q| quote_shows_key(q, keys))
}

/// Whether `shown` (a quote's text, with its lead-in) holds one of `keys`.
pub fn shows_key(shown: &str, keys: &[String]) -> bool {
    let shown = key_text(shown);
    keys.iter()
        .map(|k| key_text(k))
        .any(|k| !k.is_empty() && shown.contains(&k))
}

/// Reads a JSON-lines file of `T`, one per non-empty line; a bad line is an error naming it as
/// not `what`.
fn read_json_lines<T: serde::de::DeserializeOwned>(path: &Path, what: &str) -> Result<Vec<T>> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("{}:{}: not a {what}", path.display(), i + 1))
        })
        .collect()
}

/// A labelled two-turn conversation (`eval/conversations/`): a question asked first, then a
/// follow-up that cannot be understood alone ("How do I turn it off?"), labelled with the section
/// that answers the follow-up in that conversation.
#[derive(Debug, Clone, Deserialize)]
pub struct Conversation {
    /// The first question, self-contained.
    pub previous: String,
    /// The follow-up and its gold section(s).
    #[serde(flatten)]
    pub follow_up: Labelled,
}

/// Reads a JSON-lines conversation file.
pub fn read_conversations(path: &Path) -> Result<Vec<Conversation>> {
    read_json_lines(path, "labelled conversation")
}

/// Scores of one configuration.
#[derive(Debug, Default, Clone, Copy)]
pub struct Metrics {
    /// Share of answerable questions whose section is the first hit.
    pub section_r1: f32,
    /// Share of answerable questions whose section is among the first five hits.
    pub section_r5: f32,
    /// Mean reciprocal rank of the section, over answerable questions.
    pub section_mrr: f32,
    /// Share of answerable questions whose page is the first hit.
    pub page_r1: f32,
    /// Share of answerable questions whose page is among the first five hits.
    pub page_r5: f32,
    /// Out-of-scope questions refused.
    pub refusal_recall: f32,
    /// Refused questions that were out of scope.
    pub refusal_precision: f32,
    /// Answerable questions wrongly refused.
    pub false_refusals: f32,
    /// Out-of-scope questions of a known kind (held-out sets), `[near-misses, off-topic]`:
    /// (refused, all).
    pub refused_by_kind: [(usize, usize); 2],
}

impl Metrics {
    /// Counts an out-of-scope question of a known kind, refused or not.
    fn count_kind(&mut self, kind: OutOfScopeKind, refused: bool) {
        let (r, all) = &mut self.refused_by_kind[kind.index()];
        *all += 1;
        *r += usize::from(refused);
    }

    /// "refused: near-miss 0.750 (9/12), off-topic ..." for the kinds counted; `None` when the
    /// questions had no kinds (the labelled sets).
    pub fn refused_by_kind_line(&self) -> Option<String> {
        let parts: Vec<String> = OutOfScopeKind::ALL
            .iter()
            .filter_map(|&kind| {
                let (refused, all) = self.refused_by_kind[kind.index()];
                (all > 0).then(|| {
                    format!(
                        "{} {:.3} ({refused}/{all})",
                        kind.label(),
                        share(refused, all)
                    )
                })
            })
            .collect();
        (!parts.is_empty()).then(|| format!("refused: {}", parts.join(", ")))
    }
}

fn norm(h: &str) -> String {
    h.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// The (path, section) of each hit, in rank order: what the labels are matched against.
pub fn found_sections(
    book: &BuiltBook,
    r: &book_retrieval::SearchResults,
) -> Vec<(String, Option<String>)> {
    r.hits
        .iter()
        .filter_map(|h| book.index.chunk(h.chunk))
        .map(|c| (c.path.clone(), c.section.clone()))
        .collect()
}

/// The labelled sections of `q` (its own, then `also`), as (path, heading).
fn targets(q: &Labelled) -> impl Iterator<Item = (&str, Option<&str>)> {
    q.path
        .iter()
        .map(|p| (p.as_str(), q.heading.as_deref()))
        .chain(
            q.also
                .iter()
                .map(|t| (t.path.as_str(), t.heading.as_deref())),
        )
}

/// Whether the section (path, heading) of `book` is the labelled target (`p`, `h`). A label
/// naming the page title matches the page-top chunk.
fn target_matches(
    book: &BuiltBook,
    (p, h): (&str, Option<&str>),
    path: &str,
    heading: Option<&str>,
) -> bool {
    if p != path {
        return false;
    }
    let title = book
        .book
        .pages
        .iter()
        .find(|pg| pg.path == p)
        .map(|pg| pg.title.as_str());
    match (h, heading) {
        (None, None) => true,
        (Some(a), Some(b)) => norm(a) == norm(b),
        (Some(a), None) => title.is_some_and(|t| norm(t) == norm(a)),
        (None, Some(_)) => false,
    }
}

/// Whether a result (path, heading) is the labelled section. A label naming the page title matches the page-top chunk.
pub fn section_matches(q: &Labelled, book: &BuiltBook, path: &str, heading: Option<&str>) -> bool {
    targets(q).any(|t| target_matches(book, t, path, heading))
}

/// Checks the labels against `book` and reads a label naming a heading with no text of its own
/// before its subsections ("## Backup Plans", then "### Plan A: …") as naming those subsections:
/// the builder keeps no chunk for an empty heading, so they stand for it (added to `also`); a
/// page-top label on a page with no text before its first heading names all its sections.
/// Fails when a label names a section the book does not have (a mistyped heading, a moved
/// page, text the builder lost): such a question could never be found, and would count as a
/// miss of the search.
pub fn resolve_gold(book: &BuiltBook, questions: &mut [Labelled]) -> Result<()> {
    let chunks: Vec<&book_retrieval::ChunkMeta> = (0..book.index.len() as u32)
        .filter_map(|i| book.index.chunk(i))
        .collect();
    let mut unknown = Vec::new();
    for q in questions.iter_mut() {
        let mut below = Vec::new();
        for (p, h) in targets(q) {
            if chunks
                .iter()
                .any(|c| target_matches(book, (p, h), &c.path, c.section.as_deref()))
            {
                continue;
            }
            // The sections under the heading: it is one of their ancestors (after the title).
            // A page-top label on a page with no text before its first heading names the page.
            let under: Vec<Target> = chunks
                .iter()
                .filter(|c| c.path == p && c.section.is_some())
                .filter(|c| {
                    let ancestors = c
                        .headings
                        .get(1..c.headings.len().saturating_sub(1))
                        .unwrap_or_default();
                    h.is_none_or(|h| ancestors.iter().any(|a| norm(a) == norm(h)))
                })
                .map(|c| Target {
                    path: c.path.clone(),
                    heading: c.section.clone(),
                })
                .collect();
            if under.is_empty() {
                unknown.push(format!("{}: {p} › {}", q.id, h.unwrap_or("(top)")));
            }
            below.extend(under);
        }
        q.also.extend(below);
    }
    anyhow::ensure!(
        unknown.is_empty(),
        "labels name sections the book does not have:\n  {}",
        unknown.join("\n  ")
    );
    Ok(())
}

fn page_matches(q: &Labelled, path: &str) -> bool {
    q.path.as_deref() == Some(path) || q.also.iter().any(|t| t.path == path)
}

/// Evaluates one configuration. `search` answers a question.
pub fn evaluate(
    book: &BuiltBook,
    questions: &[Labelled],
    mut search: impl FnMut(&str) -> SearchResults,
) -> (Metrics, Vec<String>) {
    let mut m = Metrics::default();
    let (mut answerable, mut oos, mut refused_total, mut refused_oos, mut refused_ans) =
        (0f32, 0f32, 0f32, 0f32, 0f32);
    let mut misses = Vec::new();
    for q in questions {
        let r = search(&q.question);
        if r.refused {
            refused_total += 1.0;
        }
        if q.out_of_scope {
            oos += 1.0;
            if let Some(kind) = q.kind {
                m.count_kind(kind, r.refused);
            }
            if r.refused {
                refused_oos += 1.0;
            } else {
                misses.push(format!("{} not refused: {:?}", q.id, q.question));
            }
            continue;
        }
        answerable += 1.0;
        if r.refused {
            refused_ans += 1.0;
        }
        let found = found_sections(book, &r);
        let sec_rank = found
            .iter()
            .position(|(p, h)| section_matches(q, book, p, h.as_deref()));
        let page_rank = found.iter().position(|(p, _)| page_matches(q, p));
        if let Some(r) = sec_rank {
            m.section_mrr += 1.0 / (r as f32 + 1.0);
            if r == 0 {
                m.section_r1 += 1.0;
            }
            if r < 5 {
                m.section_r5 += 1.0;
            }
        } else {
            misses.push(format!(
                "{} miss: {:?} want {:?} › {:?}; got {:?}",
                q.id,
                q.question,
                q.path.as_deref().unwrap_or(""),
                q.heading,
                found
                    .iter()
                    .take(3)
                    .map(|(p, h)| format!("{p} › {}", h.as_deref().unwrap_or("(top)")))
                    .collect::<Vec<_>>()
            ));
        }
        if let Some(r) = page_rank {
            if r == 0 {
                m.page_r1 += 1.0;
            }
            if r < 5 {
                m.page_r5 += 1.0;
            }
        }
    }
    let a = answerable.max(1.0);
    m.section_r1 /= a;
    m.section_r5 /= a;
    m.section_mrr /= a;
    m.page_r1 /= a;
    m.page_r5 /= a;
    m.refusal_recall = if oos > 0.0 { refused_oos / oos } else { 0.0 };
    m.refusal_precision = if refused_total > 0.0 {
        refused_oos / refused_total
    } else {
        1.0
    };
    m.false_refusals = refused_ans / a;
    (m, misses)
}

/// The four configurations the report compares.
pub fn run_all(
    book: &BuiltBook,
    exact_encoder: &Encoder,
    questions: &[Labelled],
    k: usize,
) -> Vec<(&'static str, Metrics, Vec<String>)> {
    let shipped = &book.encoder;
    let idx = &book.index;
    let run = |mode: Mode, enc: Option<&Encoder>, exact: bool| {
        evaluate(book, questions, |q| {
            let v = enc.map(|e| e.encode(q));
            let mut req = SearchRequest::new(q, v.as_deref());
            req.k = k;
            req.mode = mode;
            if exact {
                req.exact_vectors = Some(&book.exact_vectors);
            }
            idx.search(&req)
        })
    };
    let mut out = Vec::new();
    let (m, x) = run(Mode::Bm25Only, None, false);
    out.push(("bm25", m, x));
    let (m, x) = run(Mode::DenseOnly, Some(shipped), false);
    out.push(("dense-int8", m, x));
    let (m, x) = run(Mode::DenseOnly, Some(exact_encoder), true);
    out.push(("dense-f32-exact", m, x));
    let (m, x) = run(Mode::Hybrid, Some(shipped), false);
    out.push(("hybrid (default)", m, x));
    out
}

/// Per-question refusal signals, as JSON objects: what the search's refusal and the build's
/// calibration read ([`crate::calibrate::signals`]: the book's best cosine to the question, the
/// best share of its terms, its unseen terms). One definition with the fit, so a figure read from
/// them is the one the thresholds apply to (the best cosine of the top 5 hits was written before,
/// and can be far lower than the book's best: 0.12 against 0.27 for an off-topic question).
pub fn refusal_signals(book: &BuiltBook, questions: &[Labelled]) -> Vec<serde_json::Value> {
    questions
        .iter()
        .map(|q| {
            let s = crate::calibrate::signals(&book.index, &book.encoder, &q.question);
            serde_json::json!({
                "id": q.id,
                "oos": q.out_of_scope,
                "dense": s.cosine,
                "coverage": s.coverage,
                "query_terms": s.query_terms,
                "unseen": s.unseen,
                "unseen_typos": s.unseen_typos,
                "unseen_common": s.unseen_common,
            })
        })
        .collect()
}

/// Prints the comparison table.
pub fn print_table(name: &str, rows: &[(&'static str, Metrics, Vec<String>)]) {
    println!("\n{name}");
    println!(
        "{:<18} {:>6} {:>6} {:>6} {:>7} {:>7} {:>8} {:>8} {:>9}",
        "config", "sec@1", "sec@5", "MRR", "page@1", "page@5", "refuse-R", "refuse-P", "false-ref"
    );
    for (n, m, _) in rows {
        println!(
            "{:<18} {:>6.3} {:>6.3} {:>6.3} {:>7.3} {:>7.3} {:>8.3} {:>8.3} {:>9.3}",
            n,
            m.section_r1,
            m.section_r5,
            m.section_mrr,
            m.page_r1,
            m.page_r5,
            m.refusal_recall,
            m.refusal_precision,
            m.false_refusals
        );
        if let Some(line) = m.refused_by_kind_line() {
            println!("{:<18} {line}", "");
        }
    }
}

/// Figures of the answers a reader sees (no LLM), in one phase (with or without the encoder).
#[derive(Debug, Default, Clone, Copy)]
pub struct AnswerMetrics {
    /// Answerable questions whose gold section is among the 5 sources found.
    pub gold_in_top5: usize,
    /// Of those, answers whose first quote comes from a gold section.
    pub first_quote_gold: usize,
    /// Of those, answers that show a gold section: quoted (listed under the answer) or linked
    /// ("Also relevant").
    pub gold_shown: usize,
    /// Answers that are not refusals yet list no source (must be 0).
    pub dead_ends: usize,
    /// Answered (not refused) answerable questions, per confidence level (high, medium, low).
    pub by_level: [usize; 3],
    /// Of those, answers whose top source is a gold section, per level.
    pub gold_top_by_level: [usize; 3],
    /// Answerable questions.
    pub answerable: usize,
    /// Slowest excerpt building (compose only, after the search), in milliseconds.
    pub max_compose_ms: f32,
    /// Answerable questions with answer keys (`eval/answer-keys/`).
    pub keyed: usize,
    /// Of those, answers whose quotes show a key (a refusal shows none).
    pub key_shown: usize,
    /// Of those, answers whose first quote shows a key.
    pub key_first: usize,
    /// Keyed questions whose first quote comes from a gold section (where the quoted lines, not
    /// the ranking, decide whether the answer shows)…
    pub keyed_gold_first: usize,
    /// …and of those, answers whose quotes show a key.
    pub key_shown_gold_first: usize,
    /// Distinct follow-ups offered under the answers (question and offering section).
    pub follow_ups: usize,
    /// Of those, follow-ups the book answers when a reader clicks them (not refused, same phase).
    pub follow_ups_answered: usize,
    /// Of those, follow-ups whose answer's first quote comes from the section that offered them
    /// (the one the reader clicked to hear about, though other sections may ask the same words).
    pub follow_ups_own_quote: usize,
}

/// `part` as a share of `whole` (0 when `whole` is 0).
fn share(part: usize, whole: usize) -> f32 {
    part as f32 / whole.max(1) as f32
}

impl AnswerMetrics {
    /// Share of first quotes from gold, among questions whose gold is in the top 5.
    pub fn first_quote_rate(&self) -> f32 {
        share(self.first_quote_gold, self.gold_in_top5)
    }

    /// Share of answers that show a gold section (quoted or linked), among questions whose gold is
    /// in the top 5.
    pub fn gold_shown_rate(&self) -> f32 {
        share(self.gold_shown, self.gold_in_top5)
    }

    /// Share of keyed questions whose answer shows a key, in any quote.
    pub fn key_shown_rate(&self) -> f32 {
        share(self.key_shown, self.keyed)
    }

    /// Share of keyed questions whose first quote shows a key.
    pub fn key_first_rate(&self) -> f32 {
        share(self.key_first, self.keyed)
    }

    /// Share of keyed questions whose first quote is from gold that show a key: how well the lines
    /// of the right section are chosen.
    pub fn key_shown_gold_first_rate(&self) -> f32 {
        share(self.key_shown_gold_first, self.keyed_gold_first)
    }

    /// Share of the follow-ups offered that the book answers when clicked.
    pub fn follow_up_rate(&self) -> f32 {
        share(self.follow_ups_answered, self.follow_ups)
    }

    /// Share of the follow-ups offered whose answer, clicked, quotes first the section offering it.
    pub fn follow_up_own_rate(&self) -> f32 {
        share(self.follow_ups_own_quote, self.follow_ups)
    }

    /// Share of answers at `level` (0 high, 1 medium, 2 low) whose top source is gold.
    pub fn reliability(&self, level: usize) -> f32 {
        share(self.gold_top_by_level[level], self.by_level[level])
    }
}

/// The chunk texts of a built book, as the asset ships them.
pub fn texts_of(book: &BuiltBook) -> book_retrieval::ChunkTexts {
    book_retrieval::ChunkTexts::new(
        book.index.content_hash.clone(),
        book.chunks.iter().map(|c| c.chunk.text.clone()).collect(),
    )
}

/// Measures the widget's answers (`index-builder answer`) on the labelled questions; `encoder`
/// `None` is the phase before the encoder has loaded.
pub fn answer_metrics(
    book: &BuiltBook,
    texts: &book_retrieval::ChunkTexts,
    questions: &[Labelled],
    encoder: Option<&Encoder>,
) -> AnswerMetrics {
    answer_metrics_graded(book, texts, questions, encoder).0
}

/// [`answer_metrics`], plus each answered question's confidence signals and whether its top
/// source is gold (for fitting confidence cut-offs on other books).
pub fn answer_metrics_graded(
    book: &BuiltBook,
    texts: &book_retrieval::ChunkTexts,
    questions: &[Labelled],
    encoder: Option<&Encoder>,
) -> (
    AnswerMetrics,
    Vec<(book_answer::confidence::ExcerptSignals, bool)>,
) {
    let mut graded = Vec::new();
    let mut m = AnswerMetrics::default();
    // Measured as a reader who changed nothing sees them: the default preferences.
    let prefs = book_answer::Preferences::default();
    let words = book_answer::Words::default();
    // Distinct follow-ups: the same words offered by two sections are two follow-ups.
    let mut follow_ups: std::collections::BTreeSet<(String, String)> = Default::default();
    for q in questions.iter().filter(|q| !q.out_of_scope) {
        m.answerable += 1;
        let question = q.question.trim();
        let found = crate::answer::find_from(&book.index, texts, encoder, question, None);
        let t0 = std::time::Instant::now();
        let a = match encoder {
            Some(enc) => {
                let embed = |t: &str, max_tokens: usize| Some(enc.encode_opening(t, max_tokens));
                book_answer::compose(question, &found, Some(&embed), &prefs, &words, None)
            }
            None => book_answer::compose(question, &found, None, &prefs, &words, None),
        };
        m.max_compose_ms = m.max_compose_ms.max(t0.elapsed().as_secs_f32() * 1000.0);
        let is_gold = |chunk: u32| {
            book.index
                .chunk(chunk)
                .is_some_and(|c| section_matches(q, book, &c.path, c.section.as_deref()))
        };
        if !a.refused && a.sources.is_empty() {
            m.dead_ends += 1;
        }
        if !q.keys.is_empty() {
            let shows = |qt: &book_answer::Quote| quote_shows_key(qt, &q.keys);
            let shown = quotes_show_key(&a, &q.keys);
            m.keyed += 1;
            m.key_shown += usize::from(shown);
            m.key_first += usize::from(a.quotes.first().is_some_and(shows));
            let first_gold = a
                .quotes
                .first()
                .and_then(|qt| a.sources.get(qt.source))
                .is_some_and(|s| is_gold(s.chunk));
            if first_gold {
                m.keyed_gold_first += 1;
                m.key_shown_gold_first += usize::from(shown);
            }
        }
        follow_ups.extend(
            a.suggestions
                .iter()
                .map(|s| (s.question.clone(), s.url.clone())),
        );
        if found.sources.iter().take(5).any(|s| is_gold(s.chunk)) {
            m.gold_in_top5 += 1;
            if let Some(s) = a.quotes.first().and_then(|qt| a.sources.get(qt.source)) {
                if is_gold(s.chunk) {
                    m.first_quote_gold += 1;
                }
            }
            if a.sources.iter().chain(&a.also).any(|s| is_gold(s.chunk)) {
                m.gold_shown += 1;
            }
        }
        if let Some(c) = a.confidence.filter(|_| !a.refused) {
            let level = match c {
                book_answer::Confidence::High => 0,
                book_answer::Confidence::Medium => 1,
                book_answer::Confidence::Low => 2,
            };
            m.by_level[level] += 1;
            let right = found.sources.first().is_some_and(|s| is_gold(s.chunk));
            if right {
                m.gold_top_by_level[level] += 1;
            }
            graded.push((
                book_answer::signals(question, &found, &a.sources, &a.quotes),
                right,
            ));
        }
    }
    // "Never a question the book cannot answer": each follow-up, clicked, is asked in turn, and
    // answered from the section that offered it.
    m.follow_ups = follow_ups.len();
    for (question, url) in &follow_ups {
        let asked = crate::answer::Asked {
            offered_by: Some(url),
            ..crate::answer::Asked::default()
        };
        let a = crate::answer::answer(&book.index, texts, encoder, question, &asked);
        m.follow_ups_answered += usize::from(!a.refused);
        let first = a.quotes.first().and_then(|qt| a.sources.get(qt.source));
        m.follow_ups_own_quote += usize::from(first.is_some_and(|s| &s.url == url));
    }
    (m, graded)
}

/// Figures of follow-ups answered in their conversation, as the widget answers them (no LLM), in
/// one phase; each also asked alone, as a reader would be answered without the follow-up rule.
#[derive(Debug, Default, Clone, Copy)]
pub struct ConversationMetrics {
    /// Labelled conversations.
    pub conversations: usize,
    /// Follow-ups the widget reads as follow-ups (searched with the previous turn's words).
    pub recognised: usize,
    /// Follow-ups whose gold section is among the 5 sections found, asked in the conversation.
    pub gold_in_top5: usize,
    /// The same, the follow-up asked alone.
    pub gold_in_top5_alone: usize,
    /// Of the follow-ups with their gold in the top 5 (in the conversation), answers whose first
    /// quote comes from a gold section.
    pub first_quote_gold: usize,
    /// Follow-ups refused in the conversation (all are answerable).
    pub refused: usize,
    /// Follow-ups refused when asked alone.
    pub refused_alone: usize,
    /// First questions refused (all are answerable): the follow-up then has no conversation to
    /// lean on, as in the widget, where a refusal is not a turn.
    pub first_refused: usize,
    /// Follow-ups with answer keys (`eval/answer-keys/conversations/`).
    pub keyed: usize,
    /// Of them, answers in the conversation whose quotes show a key.
    pub key_shown: usize,
}

impl ConversationMetrics {
    /// Share of follow-ups the widget reads as follow-ups.
    pub fn recognised_rate(&self) -> f32 {
        share(self.recognised, self.conversations)
    }

    /// Share of follow-ups with their gold section in the top 5, in the conversation.
    pub fn section_r5(&self) -> f32 {
        share(self.gold_in_top5, self.conversations)
    }

    /// Share of follow-ups with their gold section in the top 5, asked alone.
    pub fn section_r5_alone(&self) -> f32 {
        share(self.gold_in_top5_alone, self.conversations)
    }

    /// Share of first quotes from gold, among follow-ups whose gold is in the top 5.
    pub fn first_quote_rate(&self) -> f32 {
        share(self.first_quote_gold, self.gold_in_top5)
    }

    /// Share of keyed follow-ups whose answer in the conversation shows a key.
    pub fn key_rate(&self) -> f32 {
        share(self.key_shown, self.keyed)
    }
}

/// Asks each labelled conversation as a reader would in the widget (the first question, then the
/// follow-up with the first answer as history; `index-builder answer` with a `conversation`), and
/// the follow-up alone; `encoder` `None` is the phase before the encoder has loaded. Also returns
/// a line for each follow-up whose gold section is not among the 5 found in its conversation.
pub fn conversation_metrics(
    book: &BuiltBook,
    texts: &book_retrieval::ChunkTexts,
    conversations: &[Conversation],
    encoder: Option<&Encoder>,
) -> (ConversationMetrics, Vec<String>) {
    use crate::answer::{answer, answer_with_found, Asked};
    let mut m = ConversationMetrics::default();
    let mut misses = Vec::new();
    for c in conversations {
        let q = &c.follow_up;
        m.conversations += 1;
        m.recognised += book_answer::followup::is_follow_up(&q.question) as usize;
        let first = answer(&book.index, texts, encoder, &c.previous, &Asked::default());
        m.first_refused += first.refused as usize;
        let history: Vec<book_answer::Turn> = (!first.refused)
            .then(|| book_answer::Turn {
                question: c.previous.trim().to_string(),
                answer: first.markdown,
            })
            .into_iter()
            .collect();
        let is_gold = |chunk: u32| {
            book.index
                .chunk(chunk)
                .is_some_and(|ch| section_matches(q, book, &ch.path, ch.section.as_deref()))
        };
        // As for single questions: the five sections found, refused or not (refusals are
        // counted apart).
        let in_top5 =
            |found: &book_answer::Found| found.sources.iter().take(5).any(|s| is_gold(s.chunk));
        let previous_source = first
            .sources
            .first()
            .map(|s| s.url.as_str())
            .filter(|_| !first.refused);
        let asked = Asked {
            history: &history,
            previous_source,
            ..Asked::default()
        };
        let (searched, a) = answer_with_found(&book.index, texts, encoder, &q.question, &asked);
        let found = &searched.found;
        m.refused += a.refused as usize;
        if !q.keys.is_empty() {
            m.keyed += 1;
            m.key_shown += usize::from(quotes_show_key(&a, &q.keys));
        }
        if in_top5(found) {
            m.gold_in_top5 += 1;
            let first_source = a.quotes.first().and_then(|qt| a.sources.get(qt.source));
            m.first_quote_gold += first_source.is_some_and(|s| is_gold(s.chunk)) as usize;
        } else {
            let query = &searched.query;
            let got: Vec<String> = found
                .sources
                .iter()
                .take(3)
                .filter_map(|s| book.index.chunk(s.chunk))
                .map(|c| format!("{} › {}", c.path, c.section.as_deref().unwrap_or("(top)")))
                .collect();
            misses.push(format!(
                "{} miss{}{}: {:?} searched as {query:?} want {:?} › {:?}; got {got:?}",
                q.id,
                if a.refused { " (refused)" } else { "" },
                if history.is_empty() {
                    " (first question refused: no conversation)"
                } else if query == q.question.trim() {
                    " (read as self-contained)"
                } else {
                    ""
                },
                q.question,
                q.path.as_deref().unwrap_or(""),
                q.heading,
            ));
        }
        let (alone, a) =
            answer_with_found(&book.index, texts, encoder, &q.question, &Asked::default());
        m.refused_alone += a.refused as usize;
        m.gold_in_top5_alone += in_top5(&alone.found) as usize;
    }
    (m, misses)
}

/// A labelled "Ask about this" case (`eval/selections/`): a passage of a page the reader selected,
/// the question they asked about it, the sections that answer it beyond the passage, and the
/// book's phrases an answer must show (none of them in the passage).
#[derive(Debug, Clone, Deserialize)]
pub struct SelectionCase {
    /// Stable id.
    pub id: String,
    /// Source path of the page the passage is on (the page asked from).
    pub path: String,
    /// The passage, as the page shows it.
    pub selection: String,
    /// The reader's question about it.
    pub question: String,
    /// The sections that answer it.
    pub gold: Vec<Target>,
    /// The phrases an answer must show, any one of them.
    pub keys: Vec<String>,
}

/// Reads a JSON-lines file of "Ask about this" cases.
pub fn read_selections(path: &Path) -> Result<Vec<SelectionCase>> {
    read_json_lines(path, "selection case")
}

/// How "Ask about this" is answered with no LLM.
#[derive(Debug, Default, Clone, Copy)]
pub struct SelectionMetrics {
    /// Cases asked.
    pub cases: usize,
    /// Answers refused.
    pub refused: usize,
    /// Answers whose quotes show a key.
    pub key_shown: usize,
    /// Answers whose first quote comes from a gold section.
    pub first_quote_gold: usize,
    /// Answers with a quote the selection holds (the passage quoted back).
    pub echoed: usize,
}

impl SelectionMetrics {
    /// Share of answers showing a key.
    pub fn key_rate(&self) -> f32 {
        share(self.key_shown, self.cases)
    }

    /// Share of answers whose first quote comes from a gold section.
    pub fn first_quote_rate(&self) -> f32 {
        share(self.first_quote_gold, self.cases)
    }
}

/// Asks each case as the widget does: from its page, with its passage selected, no LLM.
pub fn selection_metrics(
    book: &BuiltBook,
    texts: &book_retrieval::ChunkTexts,
    cases: &[SelectionCase],
    encoder: Option<&Encoder>,
) -> SelectionMetrics {
    use crate::answer::{answer, Asked};
    let mut m = SelectionMetrics::default();
    for c in cases {
        m.cases += 1;
        let page = book
            .index
            .meta
            .pages
            .iter()
            .find(|p| p.path == c.path)
            .map(|p| p.url.as_str());
        let asked = Asked {
            page,
            selection: Some(&c.selection),
            ..Asked::default()
        };
        let a = answer(&book.index, texts, encoder, &c.question, &asked);
        if a.refused {
            m.refused += 1;
            continue;
        }
        m.key_shown += usize::from(quotes_show_key(&a, &c.keys));
        let gold = Labelled {
            id: c.id.clone(),
            question: c.question.clone(),
            path: c.gold.first().map(|t| t.path.clone()),
            heading: c.gold.first().and_then(|t| t.heading.clone()),
            also: c.gold.iter().skip(1).cloned().collect(),
            out_of_scope: false,
            kind: None,
            keys: c.keys.clone(),
        };
        let first = a.quotes.first().and_then(|q| a.sources.get(q.source));
        m.first_quote_gold += usize::from(first.is_some_and(|s| {
            book.index
                .chunk(s.chunk)
                .is_some_and(|ch| section_matches(&gold, book, &ch.path, ch.section.as_deref()))
        }));
        let selection = key_text(&c.selection);
        m.echoed += usize::from(a.quotes.iter().any(|q| {
            let quoted = key_text(&q.text);
            !quoted.is_empty() && selection.contains(&quoted)
        }));
    }
    m
}

/// Prints "Ask about this" figures, one row per label.
pub fn print_selection_table(title: &str, rows: &[(String, SelectionMetrics)]) {
    let w = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0).max(5);
    println!("\n{title}: questions about a selected passage, no LLM");
    println!(
        "{:<w$} {:>5} {:>8} {:>9} {:>9} {:>7}",
        "", "cases", "refused", "key-shown", "1st-quote", "echoed"
    );
    for (label, m) in rows {
        println!(
            "{:<w$} {:>5} {:>8} {:>9.3} {:>9.3} {:>7}",
            label,
            m.cases,
            m.refused,
            m.key_rate(),
            m.first_quote_rate(),
            m.echoed
        );
    }
}

/// Prints conversation figures, one row per label (a phase, or a book and a phase).
pub fn print_conversation_table(title: &str, rows: &[(String, ConversationMetrics)]) {
    let w = rows.iter().map(|(l, _)| l.len()).max().unwrap_or(0).max(5);
    println!("\n{title}: follow-ups asked second in their conversation, and alone");
    println!(
        "{:<w$} {:>5} {:>10} {:>7} {:>11} {:>9} {:>9} {:>8} {:>13} {:>13}",
        "",
        "convs",
        "read-as-fu",
        "sec@5",
        "sec@5-alone",
        "1st-quote",
        "key-shown",
        "refused",
        "refused-alone",
        "first-refused"
    );
    for (label, c) in rows {
        println!(
            "{:<w$} {:>5} {:>10.3} {:>7.3} {:>11.3} {:>9.3} {:>9} {:>8} {:>13} {:>13}",
            label,
            c.conversations,
            c.recognised_rate(),
            c.section_r5(),
            c.section_r5_alone(),
            c.first_quote_rate(),
            // No keys attached (`index-builder eval` reads none): nothing measured.
            if c.keyed == 0 {
                "-".to_string()
            } else {
                format!("{:.3}", c.key_rate())
            },
            c.refused,
            c.refused_alone,
            c.first_refused
        );
    }
}

/// Re-grades answers with other confidence cut-offs: (answers, gold top sources) per level.
pub fn regrade(
    graded: &[(book_answer::confidence::ExcerptSignals, bool)],
    cut: &book_answer::confidence::ExcerptCutoffs,
) -> ([usize; 3], [usize; 3]) {
    let (mut n, mut ok) = ([0usize; 3], [0usize; 3]);
    for (s, right) in graded {
        let level = match book_answer::confidence::for_excerpts(s, cut) {
            book_answer::Confidence::High => 0,
            book_answer::Confidence::Medium => 1,
            book_answer::Confidence::Low => 2,
        };
        n[level] += 1;
        ok[level] += *right as usize;
    }
    (n, ok)
}

/// Prints the answer figures of both phases.
pub fn print_answer_table(name: &str, rows: &[(&str, AnswerMetrics)]) {
    println!("\n{name}: answers as the widget shows them (no LLM)");
    println!(
        "{:<16} {:>10} {:>9} {:>12} {:>12} {:>12} {:>10}",
        "phase", "1st-quote", "dead-end", "high(gold)", "medium(gold)", "low(gold)", "max ms"
    );
    for (phase, m) in rows {
        println!(
            "{:<16} {:>10.3} {:>9} {:>7}({:.2}) {:>7}({:.2}) {:>7}({:.2}) {:>10.1}",
            phase,
            m.first_quote_rate(),
            m.dead_ends,
            m.by_level[0],
            m.reliability(0),
            m.by_level[1],
            m.reliability(1),
            m.by_level[2],
            m.reliability(2),
            m.max_compose_ms
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_kinds(lines: &str) -> Result<Vec<Labelled>> {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("book.jsonl");
        std::fs::write(&path, lines)?;
        read_out_of_scope_with_kinds(&path)
    }

    #[test]
    fn held_out_out_of_scope_questions_keep_their_kinds() {
        let read = read_kinds(concat!(
            r#"{"id":"a","question":"q a","out_of_scope":true,"kind":"near-miss"}"#,
            "\n\n",
            r#"{"id":"b","question":"q b","out_of_scope":true,"kind":"off-topic"}"#,
            "\n",
            r#"{"id":"c","question":"q c","out_of_scope":true,"kind":"near-miss"}"#,
        ))
        .unwrap();
        let kinds: Vec<_> = read.iter().map(|q| (q.id.as_str(), q.kind)).collect();
        assert_eq!(
            kinds,
            [
                ("a", Some(OutOfScopeKind::NearMiss)),
                ("b", Some(OutOfScopeKind::OffTopic)),
                ("c", Some(OutOfScopeKind::NearMiss))
            ]
        );
    }

    #[test]
    fn an_unknown_kind_or_an_answerable_line_is_an_error() {
        let unknown = read_kinds(r#"{"id":"a","question":"q","out_of_scope":true,"kind":"near"}"#);
        assert!(format!("{:#}", unknown.unwrap_err()).contains(":1: not a held-out"));
        let missing = read_kinds(r#"{"id":"a","question":"q","out_of_scope":true}"#);
        assert!(format!("{:#}", missing.unwrap_err()).contains("a has no kind"));
        let answerable = read_kinds(r#"{"id":"a","question":"q","kind":"off-topic"}"#);
        assert!(format!("{:#}", answerable.unwrap_err()).contains("a is not marked out_of_scope"));
    }

    #[test]
    fn refusals_are_reported_by_kind_only_when_the_questions_have_kinds() {
        let mut m = Metrics::default();
        assert_eq!(m.refused_by_kind_line(), None);
        m.count_kind(OutOfScopeKind::OffTopic, true);
        assert_eq!(
            m.refused_by_kind_line().as_deref(),
            Some("refused: off-topic 1.000 (1/1)")
        );
        for refused in [true, false, false, true] {
            m.count_kind(OutOfScopeKind::NearMiss, refused);
        }
        m.count_kind(OutOfScopeKind::OffTopic, false);
        assert_eq!(
            m.refused_by_kind_line().as_deref(),
            Some("refused: near-miss 0.500 (2/4), off-topic 0.500 (1/2)")
        );
    }
}

//! The quality bar, measured leave-one-book-out on every labelled book: for each book, the global
//! calibration parameters are fitted on the other books only, the book's refusal thresholds are
//! calibrated from its own text and the calibration bank (no labels), and then its labelled
//! questions are answered as the widget answers them, in both phases (before and after the encoder
//! has loaded). Prints the full table and which of issue 11's targets are missed, and fails when a
//! book falls below its floor (today's figures less a margin).
//!
//! Needs the real books in `../shared/corpora` and the model: run with
//! `cargo test --release -p index-builder --test quality -- --include-ignored --nocapture`.
//! `QUALITY_COMMON_VOCAB=N` and `QUALITY_PRUNED_WORDS=unk|squared|cosineNN` build the books with
//! another word table (`--common-vocab`, `--pruned-words`) to compare.

use std::path::PathBuf;

use rayon::prelude::*;

use book_answer::confidence::{fit_cutoffs, ExcerptCutoffs, ExcerptSignals};
use book_retrieval::bm25::Bm25Params;
use book_retrieval::encoder::PrunedWords;
use book_retrieval::{Mode, SearchRequest, SearchResults, SearchSettings};
use index_builder::build::{build, BuildOptions, BuiltBook};
use index_builder::calibrate::{self, FitBook};
use index_builder::chunker::ChunkLimits;
use index_builder::docs::ReadOptions;
use index_builder::eval::{self, Labelled, Metrics};
use index_builder::{embed, model};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn corpus(name: &str) -> PathBuf {
    [
        repo().join("../shared/corpora").join(name).join("docs"),
        repo().join("../../shared/corpora").join(name).join("docs"),
    ]
    .into_iter()
    .find(|p| p.is_dir())
    .unwrap_or_else(|| panic!("../shared/corpora/{name}/docs not found"))
}

/// (name, docs folder, labelled questions); each book's conversations are `<name>.jsonl` in each
/// folder of [`CONVERSATION_SETS`].
fn books() -> Vec<(&'static str, PathBuf, &'static str)> {
    vec![
        (
            "sample-book",
            repo().join("www/docs"),
            "eval/sample-book.jsonl",
        ),
        (
            "docusaurus-docs",
            corpus("docusaurus-docs"),
            "eval/docusaurus-docs.jsonl",
        ),
        (
            "physical-ai-textbook",
            corpus("physical-ai-textbook"),
            "eval/physical-ai-textbook.jsonl",
        ),
        ("hydra-docs", corpus("hydra-docs"), "eval/hydra-docs.jsonl"),
        (
            "physical-ai-textbook-2",
            corpus("physical-ai-textbook-2"),
            "eval/physical-ai-textbook-2.jsonl",
        ),
    ]
}

/// The number in environment variable `name` (to compare other settings), else `default`.
fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name).map_or(default, |v| {
        v.parse()
            .unwrap_or_else(|_| panic!("{name} is a number, not {v:?}"))
    })
}

fn build_book(docs: PathBuf, name: &str) -> BuiltBook {
    let model_dir = model::resolve_model_dir(None);
    assert!(
        model_dir.join("model.safetensors").exists(),
        "model weights not found at {} (scripts/setup.sh downloads them)",
        model_dir.display()
    );
    let built = build(&BuildOptions {
        cache: Some(embed::default_cache_path(&docs)),
        docs,
        read: ReadOptions::default(),
        model_dir,
        limits: ChunkLimits::default(),
        settings: SearchSettings::default(),
        bm25: Bm25Params::default(),
        common_vocab: env_number(
            "QUALITY_COMMON_VOCAB",
            index_builder::build::DEFAULT_COMMON_VOCAB,
        ),
        word_min_uses: env_number(
            "QUALITY_WORD_MIN_USES",
            index_builder::build::DEFAULT_WORD_MIN_USES,
        ),
        word_rows: env_number("QUALITY_WORD_ROWS", index_builder::build::DEFAULT_WORD_ROWS),
        // "unk", "squared" or "cosineNN" (the least cosine in hundredths).
        pruned_words: match std::env::var("QUALITY_PRUNED_WORDS").as_deref() {
            Ok("unk") => PrunedWords::Unk,
            Ok("squared") => PrunedWords::NearestSquared,
            Ok(v) if v.starts_with("cosine") => PrunedWords::NearestCosine {
                min_percent: v["cosine".len()..].parse().unwrap_or(0),
            },
            _ => index_builder::build::DEFAULT_PRUNED_WORDS,
        },
        ann_min_chunks: usize::MAX,
        title: name.to_string(),
        progress: false,
    })
    .unwrap_or_else(|e| panic!("{name}: {e:#}"));
    let rows = match &built.encoder.words {
        book_retrieval::encoder::WordEmbeddings::Grouped { table, .. } => table.rows,
        _ => 0,
    };
    let encoder = built.encoder.to_bytes().unwrap();
    eprintln!(
        "{name}: encoder file {} B, {} B deflated, {rows} word-table rows",
        encoder.len(),
        miniz_oxide::deflate::compress_to_vec(&encoder, 6).len()
    );
    built
}

/// Share of "high" answers with a gold top source the confidence cut-offs are fitted for on the
/// training books: above the 85 % target, as a held-out book measures lower than the books fitted on.
const HIGH_PRECISION: f32 = 0.95;

struct Row {
    name: &'static str,
    phase: &'static str,
    retrieval: Metrics,
    answers: eval::AnswerMetrics,
    /// Confidence signals of the answered questions, and whether the top source was gold.
    graded: Vec<(ExcerptSignals, bool)>,
    /// Follow-ups answered in their conversation, one per set of [`CONVERSATION_SETS`] (the
    /// labelled set first).
    conversations: [eval::ConversationMetrics; 4],
    /// "Ask about this" answered with no LLM, one per set of [`SELECTION_SETS`].
    selections: [eval::SelectionMetrics; 2],
    /// Of [`HELDOUT_OUT_OF_SCOPE`]'s questions, the near-misses and the off-topic ones: (refused,
    /// asked).
    heldout_out_of_scope: [(usize, usize); 2],
}

#[test]
#[ignore = "needs ../shared corpora and the model"]
fn answers_meet_the_bar_on_every_book_leave_one_book_out() {
    let bank = calibrate::bank();
    // Each book is built and read on its own: side by side on rayon's threads (order kept).
    let mut built: Vec<_> = books()
        .into_par_iter()
        .map(|(name, docs, questions)| {
            let book = build_book(docs, name);
            let mut qs = eval::read_questions(&repo().join(questions)).unwrap();
            eval::resolve_gold(&book, &mut qs).unwrap();
            let keys = repo()
                .join("eval/answer-keys")
                .join(format!("{name}.jsonl"));
            if keys.exists() {
                eval::attach_answer_keys(qs.iter_mut(), &keys).unwrap();
            }
            let mut conversations = CONVERSATION_SETS.map(|set| {
                eval::read_conversations(&repo().join(set).join(format!("{name}.jsonl"))).unwrap()
            });
            // Only the labelled set has answer keys.
            eval::attach_answer_keys(
                conversations[0].iter_mut().map(|c| &mut c.follow_up),
                &repo()
                    .join("eval/answer-keys/conversations")
                    .join(format!("{name}.jsonl")),
            )
            .unwrap();
            let selections = SELECTION_SETS.map(|(set, _)| {
                eval::read_selections(&repo().join(set).join(format!("{name}.jsonl"))).unwrap()
            });
            let heldout_out_of_scope = read_heldout_out_of_scope(name);
            let texts = eval::texts_of(&book);
            let sample = calibrate::sample(&book.index, &texts, &book.encoder, &bank);
            let labelled = qs
                .iter()
                .map(|q| {
                    (
                        q.out_of_scope,
                        calibrate::signals(&book.index, &book.encoder, &q.question),
                    )
                })
                .collect();
            (
                name,
                book,
                qs,
                FitBook { sample, labelled },
                conversations,
                selections,
                heldout_out_of_scope,
            )
        })
        .collect();
    let all: Vec<&FitBook> = built.iter().map(|b| &b.3).collect();
    let fitted = calibrate::fit(&all);
    println!("refusal calibration fitted on all books (the shipped default): {fitted:?}");
    // What the builder ships is this fit: a change that moves it (a new encoder, a new signal)
    // updates `Calibration::default()` with it (until 2026-12-02 the hybrid offset had stayed at
    // 0.40 while the fit had moved to 0.42).
    assert_eq!(
        fitted,
        calibrate::Calibration::default(),
        "the all-books refusal fit differs from the shipped Calibration::default()"
    );
    // Each book's calibration is fitted on the other books (the fit itself runs on rayon's
    // threads); then the books are answered side by side, their lines printed in order (so the
    // "max ms" column is timed beside another book's answers: the browser benchmark, scripts/bench.sh,
    // times answers alone).
    let cals: Vec<calibrate::Calibration> = (0..built.len())
        .map(|i| {
            let others: Vec<&FitBook> = built
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, b)| &b.3)
                .collect();
            let started = std::time::Instant::now();
            let cal = calibrate::fit(&others);
            eprintln!("fit in {:.1} s", started.elapsed().as_secs_f32());
            cal
        })
        .collect();
    let answered: Vec<(String, [Row; 2])> = built
        .par_iter_mut()
        .zip(cals)
        .map(|((name, book, qs, fit, conversations, selections, heldout), cal)| {
            let name: &'static str = name;
            calibrate::apply(&mut book.index, &book.encoder, &fit.sample, &cal).unwrap();
            let texts = eval::texts_of(book);
            let s = book.index.meta.settings;
            let line = format!(
                "{name}: fitted on the other books {cal:?}; thresholds: coverage weight {:.2}, unseen-term penalty {:.2} (common words {:.2}), min relevance {:.3} unless coverage reaches {:.3}, never below cosine {:.2}, BM25 min coverage {:.3}",
                s.coverage_weight,
                s.unseen_penalty,
                s.common_unseen_weight.unwrap_or(1.0),
                s.min_relevance,
                s.hybrid_min_coverage.unwrap_or(0.0),
                s.min_cosine.unwrap_or(0.0),
                s.min_coverage
            );
            floor_refuses_what_the_signals_put_under_it(book, qs);
            floor_refuses_what_the_signals_put_under_it(book, heldout);
            let rows = [("before encoder", false), ("with encoder", true)].map(|(phase, hybrid)| {
                let encoder = hybrid.then_some(&book.encoder);
                let retrieval = run(book, qs, hybrid);
                let (answers, graded) = eval::answer_metrics_graded(book, &texts, qs, encoder);
                let conversations = conversations
                    .each_ref()
                    .map(|set| eval::conversation_metrics(book, &texts, set, encoder).0);
                let selections = selections
                    .each_ref()
                    .map(|set| eval::selection_metrics(book, &texts, set, encoder));
                let heldout_out_of_scope = run(book, heldout, hybrid).refused_by_kind;
                Row {
                    name,
                    phase,
                    retrieval,
                    answers,
                    graded,
                    conversations,
                    selections,
                    heldout_out_of_scope,
                }
            });
            (line, rows)
        })
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    for (line, book_rows) in answered {
        println!("{line}");
        rows.extend(book_rows);
    }
    // Confidence cut-offs, leave-one-book-out: each book is graded with cut-offs fitted on the
    // other books' answers in the same phase.
    for i in 0..rows.len() {
        let hybrid = rows[i].phase == "with encoder";
        let train: Vec<(ExcerptSignals, bool)> = rows
            .iter()
            .filter(|r| r.name != rows[i].name && r.phase == rows[i].phase)
            .flat_map(|r| r.graded.iter().copied())
            .collect();
        let cut = fit_cutoffs(&train, HIGH_PRECISION, ExcerptCutoffs::for_phase(hybrid));
        let (n, ok) = eval::regrade(&rows[i].graded, &cut);
        // What the widget shows: the shipped cut-offs (fitted on every book, this one included).
        let (sn, sok) = eval::regrade(&rows[i].graded, &ExcerptCutoffs::for_phase(hybrid));
        println!(
            "{} ({}): confidence cut-offs fitted on the other books {cut:?}; with the shipped cut-offs \"high\" {} answers, {:.2} with a gold top source",
            rows[i].name,
            rows[i].phase,
            sn[0],
            sok[0] as f32 / sn[0].max(1) as f32
        );
        rows[i].answers.by_level = n;
        rows[i].answers.gold_top_by_level = ok;
    }
    for phase in ["before encoder", "with encoder"] {
        let all: Vec<(ExcerptSignals, bool)> = rows
            .iter()
            .filter(|r| r.phase == phase)
            .flat_map(|r| r.graded.iter().copied())
            .collect();
        let cut = fit_cutoffs(
            &all,
            HIGH_PRECISION,
            ExcerptCutoffs::for_phase(phase == "with encoder"),
        );
        // The fit's optimum sits on a plateau and moves with single answers; the shipped
        // constants stay until a refit gives clearly more right "high" answers (each book's count
        // with them is printed above).
        println!(
            "confidence cut-offs fitted on all books ({phase}): {cut:?}; shipped: {:?}",
            ExcerptCutoffs::for_phase(phase == "with encoder")
        );
    }
    print_rows(&rows);
    // Two tiers. The targets are printed, met or missed, so the README can report them;
    // the floors are what this test enforces: today's leave-one-book-out figures less a margin,
    // so a change that makes answers worse on any book fails here.
    let mut missed = Vec::new();
    let mut failures = Vec::new();
    for r in &rows {
        let m = &r.retrieval;
        let a = &r.answers;
        let hybrid = r.phase == "with encoder";
        let mut check = |value: f64, target: f64, floor: f64, higher: bool, what: &str| {
            let meets = |bar: f64| if higher { value >= bar } else { value <= bar };
            if !meets(target) {
                missed.push(format!(
                    "{} ({}): {what} {value:.3} (target {target})",
                    r.name, r.phase
                ));
            }
            if !meets(floor) {
                failures.push(format!(
                    "{} ({}): {what} {value:.3} (floor {floor})",
                    r.name, r.phase
                ));
            }
        };
        check(a.dead_ends as f64, 0.0, 0.0, false, "dead ends");
        // "Never a question the book cannot answer" (issue 11): every follow-up offered, clicked,
        // is answered. The build marks the sections whose follow-up the book refuses with these
        // very thresholds (`calibrate::apply`), so anything less is a bug.
        check(
            a.follow_up_rate() as f64,
            1.0,
            1.0,
            true,
            "follow-ups the book answers",
        );
        // A clicked follow-up is answered from the section that offered it (the search ranks a
        // section first when the question is its follow-up: `Index::chunks_offering`), quoted
        // first unless it has no sentence to quote (a page top holding only a lead-in).
        check(
            a.follow_up_own_rate() as f64,
            FOLLOW_UP_OWN_FLOOR,
            FOLLOW_UP_OWN_FLOOR,
            true,
            "follow-ups quoting the section offering them",
        );
        check(
            a.first_quote_rate() as f64,
            0.8,
            0.6,
            true,
            "first quote from gold",
        );
        // No issue target: the answer shows (quotes or links) a gold section the search found
        // in its top 5 for 0.93-0.99 of questions on the five books, both phases; the floor
        // keeps a margin, so answers that stop linking the section that answers fail here.
        check(
            a.gold_shown_rate() as f64,
            0.0,
            SHOWN_FLOOR,
            true,
            "gold sections shown, of those in the top 5",
        );
        if a.keyed > 0 {
            // No issue target: a floor under today's figures (0.39–0.65 on the five keyed books,
            // both phases) less a margin, so quotes that stop showing the answer fail here.
            check(
                a.key_shown_rate() as f64,
                0.0,
                KEY_SHOWN_FLOOR,
                true,
                "answers showing an answer key",
            );
        }
        if a.by_level[0] > 0 {
            // With the rankings' agreement as a condition, held-out "high" answers are right
            // 92-100 % of the time on every book (16-49 per book); the floor keeps a margin.
            let floor = if hybrid { 0.8 } else { 0.7 };
            check(
                a.reliability(0) as f64,
                0.85,
                floor,
                true,
                "\"high\" answers with a gold top source",
            );
        }
        if hybrid {
            check(m.section_r5 as f64, 0.88, 0.8, true, "section recall@5");
            check(m.page_r5 as f64, 0.95, 0.88, true, "page recall@5");
        }
        check(
            m.refusal_recall as f64,
            OUT_OF_SCOPE_TARGET as f64,
            0.65,
            true,
            "out-of-scope refused",
        );
        check(
            m.false_refusals as f64,
            0.08,
            0.12,
            false,
            "answerable refused",
        );
        // Follow-ups asked in their conversation (no issue target: floors only, today's figures
        // less a margin). Asked alone, a follow-up does not say what it is about; the conversation
        // must find its section at least as often.
        for (set, c) in CONVERSATION_SETS.iter().zip(&r.conversations) {
            if c.section_r5() < c.section_r5_alone() {
                failures.push(format!(
                    "{} ({}): follow-ups of {set} found {:.3} in their conversation, {:.3} asked alone",
                    r.name,
                    r.phase,
                    c.section_r5(),
                    c.section_r5_alone()
                ));
            }
        }
        let c = &r.conversations[0];
        let floor = |what: &str, value: f32, floor: f32| {
            (value < floor).then(|| {
                format!(
                    "{} ({}): {what} {value:.3} (floor {floor})",
                    r.name, r.phase
                )
            })
        };
        failures.extend(floor(
            "follow-ups read as follow-ups",
            c.recognised_rate(),
            CONVERSATION_FLOORS.0,
        ));
        failures.extend(floor(
            "follow-ups' section recall@5 in their conversation",
            c.section_r5(),
            CONVERSATION_FLOORS.1,
        ));
        failures.extend(floor(
            "follow-ups' first quote from gold",
            c.first_quote_rate(),
            CONVERSATION_FLOORS.2,
        ));
        failures.extend(floor(
            "follow-ups' answers showing a key",
            c.key_rate(),
            CONVERSATION_FLOORS.3,
        ));
        // "Ask about this": never the passage back.
        for ((set, _), m) in SELECTION_SETS.iter().zip(&r.selections) {
            if m.echoed > 0 {
                failures.push(format!(
                    "{} ({}): {} answers about a selection of {set} quote the selection",
                    r.name, r.phase, m.echoed
                ));
            }
        }
    }
    // "Ask about this": the answer beyond the passage, over the five books (10-12 cases a book is
    // too few for a floor of its own).
    for (i, (set, floors)) in SELECTION_SETS.into_iter().enumerate() {
        for (phase, floor) in [("before encoder", floors.0), ("with encoder", floors.1)] {
            let (shown, cases) = rows
                .iter()
                .filter(|r| r.phase == phase)
                .fold((0, 0), |(s, c), r| {
                    (s + r.selections[i].key_shown, c + r.selections[i].cases)
                });
            let rate = shown as f32 / cases.max(1) as f32;
            println!(
                "answers about a selection of {set} showing a key ({phase}): {shown} of {cases}"
            );
            if rate < floor {
                failures.push(format!(
                    "answers about a selection of {set} showing a key ({phase}): {rate:.3} (floor {floor})"
                ));
            }
        }
    }
    println!(
        "issue 11 targets missed ({}):\n{}",
        missed.len(),
        missed.join("\n")
    );
    // The held-out out-of-scope questions against the same target, listed apart: the count above
    // stays the labelled sets' (the issue's own measure), this one is never fitted on.
    let mut heldout_missed = Vec::new();
    for r in &rows {
        let rate = heldout_refused_rate(r);
        let line = format!(
            "{} ({}): held-out out-of-scope refused {rate:.3}",
            r.name, r.phase
        );
        if rate < HELDOUT_OUT_OF_SCOPE_FLOOR {
            failures.push(format!("{line} (floor {HELDOUT_OUT_OF_SCOPE_FLOOR})"));
        }
        if rate < OUT_OF_SCOPE_TARGET {
            heldout_missed.push(format!("{line} (target {OUT_OF_SCOPE_TARGET})"));
        }
    }
    println!(
        "held-out out-of-scope targets missed ({}):\n{}",
        heldout_missed.len(),
        heldout_missed.join("\n")
    );
    assert!(
        failures.is_empty(),
        "below the floor:\n{}",
        failures.join("\n")
    );
}

/// Floor of the share of keyed answers whose quotes show one of the book's answer phrases
/// (`eval/answer-keys/`), on every keyed book and in both phases.
const KEY_SHOWN_FLOOR: f64 = 0.34;

/// Floor of the share of answers showing a gold section among questions whose gold is in the
/// top 5 (today 0.93-0.99 on every book and phase).
const SHOWN_FLOOR: f64 = 0.85;

/// Floor of the follow-ups whose answer quotes first the section that offered them, on every book
/// and in both phases: today's lowest figure (0.89, the first textbook before the encoder: page
/// tops holding only a lead-in have no sentence to quote) less a margin. Before a follow-up's
/// section was ranked first, 0.68–0.84 of the books' follow-ups were answered from it.
const FOLLOW_UP_OWN_FLOOR: f64 = 0.85;

/// Floors of the follow-ups asked in their conversation, on every book and in both phases: read as
/// follow-ups, section recall@5, first quote from gold, answer showing a key
/// (`eval/answer-keys/conversations/`). Today's lowest figures (0.688, 0.625, 0.333, 0.25 of 16
/// conversations a book) less two conversations' worth.
const CONVERSATION_FLOORS: (f32, f32, f32, f32) = (0.55, 0.5, 0.2, 0.125);

/// The conversation sets: the labelled one (16 a book, with answer keys, held to
/// [`CONVERSATION_FLOORS`]), and three written by helpers who saw neither the follow-up rules nor
/// our answers (10 a book, no answer keys): the first two were read after they were measured, and
/// reading rules were changed from them (README); the third, written on 2026-11-29, has not been
/// read. All are printed, and held to "found at least as often as asked alone".
const CONVERSATION_SETS: [&str; 4] = [
    "eval/conversations/",
    "eval/conversations-heldout/",
    "eval/conversations-heldout-2/",
    "eval/conversations-heldout-3/",
];

/// The "Ask about this" case sets, each with the floors of its answers whose quotes show a key,
/// before and with the encoder (today's figures less four cases' worth): `eval/selections/` (60
/// cases; 22 and 29), and the cases written after the rule that searches a question about a
/// passage was chosen on it, `eval/selections-heldout/` (50 cases; 13 and 17).
const SELECTION_SETS: [(&str, (f32, f32)); 2] = [
    ("eval/selections/", (0.3, 0.4)),
    ("eval/selections-heldout/", (0.18, 0.26)),
];

/// Issue 11's out-of-scope target: the share of out-of-scope questions refused, on the labelled
/// sets and on [`HELDOUT_OUT_OF_SCOPE`] alike.
const OUT_OF_SCOPE_TARGET: f32 = 0.75;

/// Out-of-scope questions written on 2026-12-03 by helpers who saw neither the search nor its
/// answers, after every threshold, weight and refusal rule was chosen, and never fitted on (the
/// refusal fit reads only the labelled sets): 40 a book in two batches of 20 (ids 1-20 and
/// 21-40), each 12 near-misses (the book's subject, a thing it does not cover) then 8 off-topic.
/// Their refusal rate is the out-of-scope target measured on questions nothing was tuned for.
const HELDOUT_OUT_OF_SCOPE: &str = "eval/out-of-scope-heldout/";

/// Floor of [`HELDOUT_OUT_OF_SCOPE`]'s refusal rate on every book and in both phases: the lowest
/// at 40 a book (0.675, the first textbook before the encoder) less three questions' worth.
const HELDOUT_OUT_OF_SCOPE_FLOOR: f32 = 0.6;

/// A book's held-out out-of-scope questions, each with its kind (checked on reading;
/// `eval::evaluate` counts refusals per kind).
fn read_heldout_out_of_scope(name: &str) -> Vec<Labelled> {
    let path = repo()
        .join(HELDOUT_OUT_OF_SCOPE)
        .join(format!("{name}.jsonl"));
    eval::read_out_of_scope_with_kinds(&path).unwrap_or_else(|e| panic!("{e:#}"))
}

fn run(book: &BuiltBook, qs: &[Labelled], hybrid: bool) -> Metrics {
    eval::evaluate(book, qs, |q| search(book, q, hybrid)).0
}

/// `index-builder eval --signals` reports the cosine the search's refusal reads: every question
/// whose reported best cosine is under the book's floor is refused with the encoder. (It once
/// reported the best cosine of the top 5 hits, 0.12 for "running toilet won't stop filling" on
/// textbook 2, which the search answers: the book's best cosine is 0.27.)
fn floor_refuses_what_the_signals_put_under_it(book: &BuiltBook, qs: &[Labelled]) {
    let floor = book.index.meta.settings.min_cosine.unwrap_or(0.0);
    for (q, s) in qs.iter().zip(eval::refusal_signals(book, qs)) {
        let cosine = s["dense"].as_f64().unwrap() as f32;
        if cosine < floor {
            assert!(
                search(book, &q.question, true).refused,
                "{}: best cosine {cosine} under the floor {floor}, answered",
                q.id
            );
        }
    }
}

/// The search of `q` as the widget runs it, with the encoder (`hybrid`) or before it.
fn search(book: &BuiltBook, q: &str, hybrid: bool) -> SearchResults {
    let v = hybrid.then(|| book.encoder.encode(q));
    let mut req = SearchRequest::new(q, v.as_deref());
    if !hybrid {
        req.mode = Mode::Bm25Only;
    }
    book.index.search(&req)
}

fn print_rows(rows: &[Row]) {
    println!(
        "\n{:<24} {:<15} {:>6} {:>7} {:>8} {:>9} {:>9} {:>6} {:>8} {:>11} {:>11} {:>11} {:>7} {:>10} {:>4}",
        "book",
        "phase",
        "sec@5",
        "page@5",
        "oos-ref",
        "ans-ref",
        "1st-quote",
        "shown",
        "dead-end",
        "high(gold)",
        "med(gold)",
        "low(gold)",
        "max ms",
        "follow-ups",
        "own"
    );
    for r in rows {
        let (m, a) = (&r.retrieval, &r.answers);
        println!(
            "{:<24} {:<15} {:>6.3} {:>7.3} {:>8.3} {:>9.3} {:>9.3} {:>6.3} {:>8} {:>5}({:.2}) {:>5}({:.2}) {:>5}({:.2}) {:>7.1} {:>4}({:.2}) {:>4.2}",
            r.name,
            r.phase,
            m.section_r5,
            m.page_r5,
            m.refusal_recall,
            m.false_refusals,
            a.first_quote_rate(),
            a.gold_shown_rate(),
            a.dead_ends,
            a.by_level[0],
            a.reliability(0),
            a.by_level[1],
            a.reliability(1),
            a.by_level[2],
            a.reliability(2),
            a.max_compose_ms,
            a.follow_ups,
            a.follow_up_rate(),
            a.follow_up_own_rate(),
        );
    }
    // Whether the quotes show the answer itself, not only its section (`eval/answer-keys/`).
    println!(
        "\n{:<24} {:<15} {:>6} {:>11} {:>11} {:>16}",
        "book", "phase", "keyed", "key shown", "key first", "shown|1st gold"
    );
    for r in rows.iter().filter(|r| r.answers.keyed > 0) {
        let a = &r.answers;
        println!(
            "{:<24} {:<15} {:>6} {:>11.3} {:>11.3} {:>10.3} ({:>3})",
            r.name,
            r.phase,
            a.keyed,
            a.key_shown_rate(),
            a.key_first_rate(),
            a.key_shown_gold_first_rate(),
            a.keyed_gold_first,
        );
    }
    for (i, set) in CONVERSATION_SETS.into_iter().enumerate() {
        let conversations: Vec<(String, eval::ConversationMetrics)> = rows
            .iter()
            .map(|r| (format!("{} ({})", r.name, r.phase), r.conversations[i]))
            .collect();
        eval::print_conversation_table(set, &conversations);
    }
    for (i, (set, _)) in SELECTION_SETS.into_iter().enumerate() {
        let selections: Vec<(String, eval::SelectionMetrics)> = rows
            .iter()
            .map(|r| (format!("{} ({})", r.name, r.phase), r.selections[i]))
            .collect();
        eval::print_selection_table(set, &selections);
    }
    println!("\n{HELDOUT_OUT_OF_SCOPE}: out-of-scope questions never fitted on, refused");
    println!(
        "{:<40} {:>10} {:>10} {:>10}",
        "", "near-miss", "off-topic", "all"
    );
    for r in rows {
        let [near, off] = r.heldout_out_of_scope;
        println!(
            "{:<40} {:>4} / {:<3} {:>4} / {:<3} {:>10.3}",
            format!("{} ({})", r.name, r.phase),
            near.0,
            near.1,
            off.0,
            off.1,
            heldout_refused_rate(r)
        );
    }
}

/// The share of a book's held-out out-of-scope questions refused (near-misses and off-topic).
fn heldout_refused_rate(r: &Row) -> f32 {
    let [near, off] = r.heldout_out_of_scope;
    (near.0 + off.0) as f32 / (near.1 + off.1).max(1) as f32
}

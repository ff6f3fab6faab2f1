//! `index-builder grid`: chooses the search weights leave-one-book-out. Every book is built once
//! (embedding cache) and every question encoded once; each candidate setting (BM25 parameters,
//! fusion weight, passage weight) is then scored on every book in both phases (BM25 only, hybrid),
//! and for each book the setting best on the *other* books is reported with its figures on that
//! book, so no figure is measured on the data its weights were chosen on.

use std::collections::HashMap;

use anyhow::Result;
use book_retrieval::bm25::{Bm25, Bm25Doc, Bm25Params};
use book_retrieval::{Mode, SearchRequest, SearchSettings};

use crate::build::BuiltBook;
use crate::eval::{evaluate, Labelled, Metrics};

/// One candidate setting.
#[derive(Debug, Clone, Copy)]
pub struct Candidate {
    /// BM25 parameters (field weights are applied at build time).
    pub bm25: Bm25Params,
    /// Search settings (fusion and passage weights).
    pub settings: SearchSettings,
}

/// Figures of one candidate on one book: (BM25-only, hybrid).
pub type PhaseMetrics = (Metrics, Metrics);

/// The objective a candidate is chosen by: mean of section recall@5, page recall@5 and section
/// MRR over both phases. MRR counts because the answer quotes the best-ranked section first: a
/// setting that keeps the gold in the top 5 but moves it off the top costs the reader.
pub fn objective(m: &PhaseMetrics) -> f32 {
    let one = |x: &Metrics| (x.section_r5 + x.page_r5 + x.section_mrr) / 3.0;
    (one(&m.0) + one(&m.1)) / 2.0
}

/// The candidates tried: passages weight and fusion weight with raw cosines (the previous
/// defaults), then each BM25 parameter moved one step either way, then typo tolerance, page
/// evidence, a per-page limit, a page-top penalty and a penalty for sections that point elsewhere
/// (quizzes, objectives) one at a time, then min-max cosines with
/// fusion and passage weights, with and without typo tolerance (a full product would be ~100×
/// slower). The shipped default is one of them.
pub fn candidates() -> Vec<Candidate> {
    // The previous defaults: raw cosines, 0.7 dense, passages 0.5, no typo tolerance.
    let base = SearchSettings {
        dense_weight: 0.7,
        passage_weight: 0.5,
        normalize_dense: false,
        fuzzy_weight: 0.0,
        page_weight: 0.0,
        max_per_page: 0,
        top_penalty: 0.0,
        pointing_penalty: 0.0,
        ..SearchSettings::default()
    };
    let bm = Bm25Params::default();
    let mut out = Vec::new();
    let mut push = |bm25: Bm25Params, dense_weight: f32, passages: f32| {
        out.push(Candidate {
            bm25,
            settings: SearchSettings {
                dense_weight,
                passage_weight: passages,
                ..base
            },
        })
    };
    for passages in [0.0f32, 0.25, 0.5, 0.75, 1.0] {
        for dense_weight in [0.5f32, 0.6, 0.7, 0.8] {
            push(bm, dense_weight, passages);
        }
    }
    let variants = [
        Bm25Params { k1: 0.9, ..bm },
        Bm25Params { k1: 1.6, ..bm },
        Bm25Params { b: 0.6, ..bm },
        Bm25Params { b: 0.9, ..bm },
        Bm25Params {
            heading_weight: 2.0,
            ..bm
        },
        Bm25Params {
            heading_weight: 4.0,
            ..bm
        },
        Bm25Params {
            title_weight: 1.0,
            ..bm
        },
        Bm25Params {
            title_weight: 2.5,
            ..bm
        },
    ];
    for v in variants {
        push(v, base.dense_weight, base.passage_weight);
    }
    // Typo tolerance, page evidence, the per-page limit, normalized cosines, the page-top
    // penalty and the pointing penalty, at the default BM25 settings.
    let mut more = |f: &dyn Fn(&mut SearchSettings)| {
        let mut settings = base;
        f(&mut settings);
        out.push(Candidate { bm25: bm, settings });
    };
    for fuzzy in [0.5f32, 1.0] {
        more(&|s| s.fuzzy_weight = fuzzy);
    }
    for page in [0.05f32, 0.1, 0.2] {
        more(&|s| s.page_weight = page);
    }
    for per_page in [2u32, 3] {
        more(&|s| s.max_per_page = per_page);
    }
    for top in [0.05f32, 0.1, 0.2] {
        more(&|s| s.top_penalty = top);
    }
    for pointing in [0.1f32, 0.2, 0.3, 0.5] {
        more(&|s| s.pointing_penalty = pointing);
    }
    for fuzzy in [0.0f32, 1.0] {
        for dense in [0.3f32, 0.4, 0.5, 0.6, 0.7, 0.8] {
            for passages in [0.5f32, 1.0] {
                more(&|s| {
                    s.fuzzy_weight = fuzzy;
                    s.normalize_dense = true;
                    s.dense_weight = dense;
                    s.passage_weight = passages;
                });
            }
        }
    }
    out
}

/// Scores every candidate on one book: `result[c]` is candidate `c`'s figures.
pub fn score_book(
    book: &mut BuiltBook,
    questions: &[Labelled],
    cands: &[Candidate],
) -> Vec<PhaseMetrics> {
    let vectors: HashMap<&str, Vec<f32>> = questions
        .iter()
        .map(|q| (q.question.as_str(), book.encoder.encode(&q.question)))
        .collect();
    let mut out = Vec::with_capacity(cands.len());
    // The BM25 phase does not depend on the dense settings: scored once per BM25 setting.
    let mut bm25_phase: HashMap<[u32; 9], Metrics> = HashMap::new();
    let mut built_params: Option<Bm25Params> = None;
    for (i, c) in cands.iter().enumerate() {
        if i % 10 == 0 {
            eprintln!(
                "  {} questions: setting {i}/{}",
                questions.len(),
                cands.len()
            );
        }
        if built_params != Some(c.bm25) {
            let docs: Vec<Bm25Doc> = book
                .chunks
                .iter()
                .map(|ch| Bm25Doc {
                    body: &ch.search_text,
                    heading: &ch.heading,
                    titles: &ch.titles,
                })
                .collect();
            book.index.bm25 = Bm25::build(&docs, c.bm25);
            built_params = Some(c.bm25);
        }
        book.index.meta.settings = SearchSettings {
            // Refusal thresholds do not change ranks; keep the book's own.
            coverage_weight: book.index.meta.settings.coverage_weight,
            min_relevance: book.index.meta.settings.min_relevance,
            min_coverage: book.index.meta.settings.min_coverage,
            unseen_penalty: book.index.meta.settings.unseen_penalty,
            hybrid_min_coverage: book.index.meta.settings.hybrid_min_coverage,
            common_unseen_weight: book.index.meta.settings.common_unseen_weight,
            min_cosine: book.index.meta.settings.min_cosine,
            ..c.settings
        };
        let book = &*book;
        let run = |mode: Mode| {
            evaluate(book, questions, |q| {
                let mut req = SearchRequest::new(q, vectors.get(q).map(Vec::as_slice));
                req.mode = mode;
                book.index.search(&req)
            })
            .0
        };
        // Every setting the BM25 phase depends on.
        let st = &c.settings;
        let key = [
            c.bm25.k1.to_bits(),
            c.bm25.b.to_bits(),
            c.bm25.heading_weight.to_bits(),
            c.bm25.title_weight.to_bits(),
            st.fuzzy_weight.to_bits(),
            st.page_weight.to_bits(),
            st.max_per_page,
            st.top_penalty.to_bits(),
            st.pointing_penalty.to_bits(),
        ];
        let words = *bm25_phase.entry(key).or_insert_with(|| run(Mode::Bm25Only));
        out.push((words, run(Mode::Hybrid)));
    }
    out
}

/// For each book, the candidate best on the other books (ties: the earlier candidate).
pub fn leave_one_out(scores: &[Vec<PhaseMetrics>]) -> Vec<usize> {
    (0..scores.len())
        .map(|held| {
            let n = scores.first().map_or(0, Vec::len);
            let mean = |c: usize| {
                scores
                    .iter()
                    .enumerate()
                    .filter(|(b, _)| *b != held)
                    .map(|(_, s)| objective(&s[c]))
                    .sum::<f32>()
            };
            (0..n).fold(0, |best, c| if mean(c) > mean(best) { c } else { best })
        })
        .collect()
}

/// The candidate best on all books together (what a build ships).
pub fn best_overall(scores: &[Vec<PhaseMetrics>]) -> usize {
    let n = scores.first().map_or(0, Vec::len);
    let total = |c: usize| scores.iter().map(|s| objective(&s[c])).sum::<f32>();
    (0..n).fold(0, |best, c| if total(c) > total(best) { c } else { best })
}

/// A one-line description of a candidate.
pub fn describe(c: &Candidate) -> String {
    format!(
        "k1 {} b {} heading ×{} title ×{} dense {}{} passages {} fuzzy {} page {} per-page {} top-penalty {} pointing-penalty {}",
        c.bm25.k1,
        c.bm25.b,
        c.bm25.heading_weight,
        c.bm25.title_weight,
        c.settings.dense_weight,
        if c.settings.normalize_dense { " (min-max)" } else { "" },
        c.settings.passage_weight,
        c.settings.fuzzy_weight,
        c.settings.page_weight,
        c.settings.max_per_page,
        c.settings.top_penalty,
        c.settings.pointing_penalty
    )
}

/// Prints the leave-one-book-out table: per book, the default's figures and the held-out figures
/// of the candidate chosen on the other books.
pub fn report(names: &[String], cands: &[Candidate], scores: &[Vec<PhaseMetrics>]) -> Result<()> {
    let default = Candidate {
        bm25: Bm25Params::default(),
        settings: SearchSettings::default(),
    };
    let default_i = cands
        .iter()
        .position(|c| c.bm25 == default.bm25 && c.settings == default.settings);
    let chosen = leave_one_out(scores);
    println!("every setting, per book: section R@5 BM25/hybrid, page R@5 BM25/hybrid, section MRR BM25/hybrid (books in order: {names:?})");
    for (i, c) in cands.iter().enumerate() {
        let cells: Vec<String> = scores
            .iter()
            .map(|s| {
                format!(
                    "{:.3}/{:.3} {:.3}/{:.3} {:.2}/{:.2}",
                    s[i].0.section_r5,
                    s[i].1.section_r5,
                    s[i].0.page_r5,
                    s[i].1.page_r5,
                    s[i].0.section_mrr,
                    s[i].1.section_mrr
                )
            })
            .collect();
        println!("{:>3} {}  {}", i, cells.join(" "), describe(c));
    }
    println!(
        "{:<24} {:>37} {:>37}   chosen on the other books",
        "book (held out)", "default sec@5 / page@5", "held-out sec@5 / page@5"
    );
    let cell = |m: &PhaseMetrics| {
        format!(
            "{:.3}/{:.3} {:.3}/{:.3} {:.2}/{:.2}",
            m.0.section_r5,
            m.1.section_r5,
            m.0.page_r5,
            m.1.page_r5,
            m.0.section_mrr,
            m.1.section_mrr
        )
    };
    for (b, name) in names.iter().enumerate() {
        let d = default_i.map_or("-".to_string(), |i| cell(&scores[b][i]));
        println!(
            "{:<24} {:>37} {:>37}   {}",
            name,
            d,
            cell(&scores[b][chosen[b]]),
            describe(&cands[chosen[b]])
        );
    }
    println!("(cells: section R@5 BM25/hybrid, page R@5 BM25/hybrid, section MRR BM25/hybrid)");
    println!(
        "best on all books: {}",
        describe(&cands[best_overall(scores)])
    );
    Ok(())
}

/// Where the gold section ranks (first 50 results, one per section) under the book's current
/// settings, per phase: counts of ranks 1-5, 6-10, 11-20, 21-50 and not found. For telling
/// "a reranking could fix it" from "the representation misses it".
pub fn rank_histogram(book: &BuiltBook, questions: &[Labelled]) -> [[usize; 5]; 2] {
    let mut out = [[0usize; 5]; 2];
    for q in questions.iter().filter(|q| !q.out_of_scope) {
        let v = book.encoder.encode(&q.question);
        for (p, mode) in [Mode::Bm25Only, Mode::Hybrid].into_iter().enumerate() {
            let mut req = SearchRequest::new(&q.question, Some(&v));
            req.mode = mode;
            req.k = 20;
            let r = book.index.search(&req);
            let rank = r.hits.iter().position(|h| {
                book.index.chunk(h.chunk).is_some_and(|c| {
                    crate::eval::section_matches(q, book, &c.path, c.section.as_deref())
                })
            });
            let bucket = match rank {
                Some(r) if r < 5 => 0,
                Some(r) if r < 10 => 1,
                Some(r) if r < 20 => 2,
                Some(_) => 3,
                None => 4,
            };
            out[p][bucket] += 1;
        }
    }
    out
}

/// The answerable questions whose gold section is not in the top 5 under the book's current
/// settings, in one phase, with the five sections found (and their fused, cosine and BM25
/// scores) and the gold's rank in the first 20: for classifying misses by hand.
pub fn misses(book: &BuiltBook, questions: &[Labelled], mode: Mode) -> Vec<String> {
    let mut out = Vec::new();
    for q in questions.iter().filter(|q| !q.out_of_scope) {
        let v = book.encoder.encode(&q.question);
        let mut req = SearchRequest::new(&q.question, Some(&v));
        req.mode = mode;
        req.k = 20;
        let r = book.index.search(&req);
        let found = crate::eval::found_sections(book, &r);
        let gold = found
            .iter()
            .position(|(p, h)| crate::eval::section_matches(q, book, p, h.as_deref()));
        if gold.is_some_and(|g| g < 5) {
            continue;
        }
        let show = |i: usize| {
            let h = &r.hits[i];
            format!(
                "[{:.3} d {:.3} b {:.2}]",
                h.score,
                h.dense.unwrap_or(0.0),
                h.bm25
            )
        };
        let page_hit = found
            .iter()
            .take(5)
            .any(|(p, _)| q.path.as_deref() == Some(p) || q.also.iter().any(|t| &t.path == p));
        let mut line = format!(
            "{} {:?}\n    gold {} › {}{}",
            q.id,
            q.question,
            q.path.as_deref().unwrap_or(""),
            q.heading.as_deref().unwrap_or("(top)"),
            if page_hit {
                "  [page in the top 5]"
            } else {
                ""
            }
        );
        for t in &q.also {
            line.push_str(&format!(
                "\n    also {} › {}",
                t.path,
                t.heading.as_deref().unwrap_or("(top)")
            ));
        }
        for (i, (p, h)) in found.iter().enumerate().take(5) {
            line.push_str(&format!(
                "\n    {}. {p} › {} {}",
                i + 1,
                h.as_deref().unwrap_or("(top)"),
                show(i)
            ));
        }
        match gold {
            Some(g) => line.push_str(&format!("\n    gold at {} {}", g + 1, show(g))),
            None => line.push_str("\n    gold not in the first 20"),
        }
        out.push(line);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(r5: f32) -> PhaseMetrics {
        let x = Metrics {
            section_r5: r5,
            page_r5: r5,
            ..Metrics::default()
        };
        (x, x)
    }

    #[test]
    fn each_book_gets_the_setting_best_on_the_others() {
        // Setting 1 is best on books 0 and 1, setting 0 on book 2 by far: holding out book 0 or 1
        // leaves book 2 to tip the choice to setting 0; over all books setting 1 wins.
        let scores = vec![
            vec![m(0.5), m(0.9)],
            vec![m(0.5), m(0.8)],
            vec![m(0.9), m(0.3)],
        ];
        assert_eq!(leave_one_out(&scores), vec![0, 0, 1]);
        assert_eq!(best_overall(&scores), 1);
    }

    #[test]
    fn the_grid_holds_the_shipped_default() {
        let d = SearchSettings::default();
        assert!(candidates()
            .iter()
            .any(|c| c.bm25 == Bm25Params::default() && c.settings == d));
    }
}

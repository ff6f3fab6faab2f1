//! Pruned tokens read a kept row near their own embedding instead of `[UNK]`'s.
//!
//! The shipped word table keeps only the rows of the book's tokens and of common words; a question
//! using another word would otherwise embed it as `[UNK]`, losing its meaning entirely. `row_of`
//! may point any id at any stored row (the loader only checks the range), so each pruned token the
//! tokenizer can emit is pointed at the kept row most like its own f32 embedding: an approximate
//! meaning at the cost of one index, and no new file version.

use super::linear::gemm;
use super::{Encoder, WordEmbeddings, NO_ROW};
use crate::tokenizer::WordPiece;

/// How a pruned token's stand-in row is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrunedWords {
    /// Every pruned token reads `[UNK]`'s row (`row_of` = [`NO_ROW`]), as before.
    Unk,
    /// The kept row of largest cosine to the token's embedding, when that cosine reaches
    /// `min_percent` / 100 (otherwise `[UNK]`'s row).
    NearestCosine {
        /// The least cosine, in hundredths, for a kept row to stand in for a pruned token.
        min_percent: u8,
    },
    /// The kept row of least squared distance to the token's embedding.
    NearestSquared,
}

/// The library's default is [`PrunedWords::Unk`], what every file before the remap holds; the
/// index builder's default build uses [`PrunedWords::NearestCosine`] with a smaller common
/// vocabulary (`index_builder::build::DEFAULT_PRUNED_WORDS`, retrieval/FORMAT.md).
impl Default for PrunedWords {
    fn default() -> Self {
        PrunedWords::Unk
    }
}

/// Query rows compared against every kept row in one matrix product.
const BLOCK: usize = 512;

/// For each row of `queries` (`h` wide), the index of the row of `targets` nearest to it under
/// `metric` (ties to the lower index) and its score: the cosine for [`PrunedWords::NearestCosine`],
/// `q·t − |t|²/2` for [`PrunedWords::NearestSquared`]. No targets: index 0, score −∞.
pub fn nearest_rows(
    targets: &[f32],
    queries: &[f32],
    h: usize,
    metric: PrunedWords,
) -> Vec<(u32, f32)> {
    let n_t = targets.len() / h.max(1);
    if n_t == 0 || h == 0 {
        return vec![(0, f32::NEG_INFINITY); queries.len() / h.max(1)];
    }
    let unit = |rows: &[f32]| -> Vec<f32> {
        let mut out = rows.to_vec();
        for r in out.chunks_exact_mut(h) {
            super::normalize(r);
        }
        out
    };
    // Cosine: unit rows, largest dot product. Squared error: |q − t|² = |q|² − 2 q·t + |t|², so
    // the largest q·t − |t|²/2.
    let (t, bias): (Vec<f32>, Vec<f32>) = match metric {
        PrunedWords::NearestSquared => (
            targets.to_vec(),
            targets
                .chunks_exact(h)
                .map(|r| -0.5 * r.iter().map(|v| v * v).sum::<f32>())
                .collect(),
        ),
        _ => (unit(targets), vec![0.0; n_t]),
    };
    let q = match metric {
        PrunedWords::NearestSquared => queries.to_vec(),
        _ => unit(queries),
    };
    let block = |qb: &[f32]| -> Vec<(u32, f32)> {
        let m = qb.len() / h;
        let mut scores = vec![0f32; m * n_t];
        // scores (m × n_t) = Q (m × h) · Tᵀ (h × n_t)
        gemm(
            (m, h, n_t),
            1.0,
            (qb, h as isize, 1),
            (&t, 1, h as isize),
            0.0,
            (&mut scores, n_t as isize, 1),
        );
        scores
            .chunks_exact(n_t)
            .map(|row| {
                let mut best = (0usize, f32::NEG_INFINITY);
                for (j, (s, b)) in row.iter().zip(&bias).enumerate() {
                    if s + b > best.1 {
                        best = (j, s + b);
                    }
                }
                (best.0 as u32, best.1)
            })
            .collect()
    };
    let blocks: Vec<&[f32]> = q.chunks(BLOCK * h).collect();
    #[cfg(feature = "parallel")]
    let done: Vec<Vec<(u32, f32)>> = {
        use rayon::prelude::*;
        blocks.par_iter().map(|b| block(b)).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let done: Vec<Vec<(u32, f32)>> = blocks.iter().map(|b| block(b)).collect();
    done.concat()
}

impl Encoder {
    /// Points every pruned token of `words` that the tokenizer can emit ([`WordPiece::can_emit`])
    /// at the stored row nearest its embedding in this (f32) encoder's table, under `pruned`
    /// (tokens with no kept row near enough keep [`NO_ROW`]); the rows themselves are unchanged. Only ordinary tokens' rows are candidates (never `[UNK]`,
    /// `[CLS]`, `[SEP]`); tokens that cannot be emitted keep [`NO_ROW`]. No effect when this
    /// encoder's table is not f32, `words` is not pruned, or `pruned` is [`PrunedWords::Unk`].
    pub fn remap_pruned(&self, words: &mut WordEmbeddings, pruned: PrunedWords) {
        let h = self.config.hidden;
        let (WordEmbeddings::F32(table), Some(row_of)) = (&self.words, row_of_mut(words)) else {
            return;
        };
        if pruned == PrunedWords::Unk {
            return;
        }
        let tokens: Vec<&str> = self.vocab_text.lines().collect();
        let row_in_table = |id: usize| table.get(id * h..(id + 1) * h);
        let mut target_rows = Vec::new();
        let mut target_ids = Vec::new();
        let mut query_rows = Vec::new();
        let mut query_ids = Vec::new();
        for (id, &r) in row_of.iter().enumerate() {
            let (Some(t), Some(row)) = (tokens.get(id), row_in_table(id)) else {
                continue;
            };
            let ordinary = WordPiece::can_emit(t);
            if r != NO_ROW && ordinary {
                target_ids.push(r);
                target_rows.extend_from_slice(row);
            } else if r == NO_ROW && ordinary {
                query_ids.push(id);
                query_rows.extend_from_slice(row);
            }
        }
        if target_ids.is_empty() {
            return;
        }
        let min = match pruned {
            PrunedWords::NearestCosine { min_percent } => min_percent as f32 / 100.0,
            _ => f32::NEG_INFINITY,
        };
        let nearest = nearest_rows(&target_rows, &query_rows, h, pruned);
        for (id, (n, score)) in query_ids.into_iter().zip(nearest) {
            if score < min {
                continue;
            }
            if let (Some(slot), Some(&r)) = (row_of.get_mut(id), target_ids.get(n as usize)) {
                *slot = r;
            }
        }
    }
}

/// The `row_of` map of a pruned table, if it is one.
fn row_of_mut(words: &mut WordEmbeddings) -> Option<&mut Vec<u16>> {
    match words {
        WordEmbeddings::F32(_) => None,
        WordEmbeddings::Q4 { row_of, .. } | WordEmbeddings::Grouped { row_of, .. } => Some(row_of),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COSINE: PrunedWords = PrunedWords::NearestCosine { min_percent: 0 };

    fn ids(found: Vec<(u32, f32)>) -> Vec<u32> {
        found.into_iter().map(|(i, _)| i).collect()
    }

    #[test]
    fn each_query_gets_its_nearest_target() {
        let h = 2;
        // Targets: east (long), north, west.
        let targets = [3.0, 0.0, 0.0, 1.0, -1.0, 0.0];
        let queries = [0.5, 0.1, 0.1, 0.9, -0.2, -0.05, 0.9, 0.0];
        assert_eq!(
            ids(nearest_rows(&targets, &queries, h, COSINE)),
            vec![0, 1, 2, 0]
        );
        // Squared error prefers the short north row for a short query that points east-ish.
        assert_eq!(
            ids(nearest_rows(
                &targets,
                &queries,
                h,
                PrunedWords::NearestSquared
            )),
            vec![1, 1, 2, 1]
        );
    }

    #[test]
    fn blocks_give_the_same_answer_as_one_pass() {
        let h = 3;
        let val = |i: usize, m: usize| ((i * m % 97) as f32 - 48.0) / 40.0;
        let targets: Vec<f32> = (0..40 * h).map(|i| val(i, 31)).collect();
        let queries: Vec<f32> = (0..(BLOCK + 7) * h).map(|i| val(i, 17)).collect();
        for metric in [COSINE, PrunedWords::NearestSquared] {
            let all = ids(nearest_rows(&targets, &queries, h, metric));
            assert_eq!(all.len(), BLOCK + 7);
            for (qi, &got) in all.iter().enumerate() {
                let q = &queries[qi * h..(qi + 1) * h];
                let score = |t: &[f32]| match metric {
                    PrunedWords::NearestSquared => {
                        -q.iter().zip(t).map(|(a, b)| (a - b) * (a - b)).sum::<f32>()
                    }
                    _ => {
                        let n = |v: &[f32]| v.iter().map(|x| x * x).sum::<f32>().sqrt();
                        q.iter().zip(t).map(|(a, b)| a * b).sum::<f32>() / (n(q) * n(t))
                    }
                };
                let best = targets
                    .chunks_exact(h)
                    .map(score)
                    .fold(f32::NEG_INFINITY, f32::max);
                let s = score(&targets[got as usize * h..(got as usize + 1) * h]);
                assert!(s >= best - 1e-5, "query {qi}: {s} < {best}");
            }
        }
    }
}

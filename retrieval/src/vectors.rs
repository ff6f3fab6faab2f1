//! Chunk vectors quantized to int8 with one scale per vector (1.01 bytes per dimension), searched by
//! a brute-force integer scan followed by exact rescoring of the best candidates.

use crate::encoder::{dot_i8, quantize_into};

/// Candidates kept from the integer scan for exact rescoring, per result asked for.
const RESCORE_FACTOR: usize = 8;
/// At least this many candidates are rescored, however few results are asked for.
const RESCORE_MIN: usize = 64;

/// The quantized vectors of all chunks.
#[derive(Debug, Clone, PartialEq)]
pub struct QuantizedVectors {
    /// Values per vector.
    pub dim: usize,
    /// `len × dim` int8 values, row-major.
    pub codes: Vec<i8>,
    /// One scale per vector: `v ≈ codes * scale`.
    pub scales: Vec<f32>,
    /// The chunks' passage vectors (index format 2), which can lift a chunk's dense score; only
    /// the chunk vectors of an index have them.
    pub passages: Option<Box<crate::index::PassageVectors>>,
}

impl QuantizedVectors {
    /// Quantizes unit-length f32 vectors (`rows × dim`).
    pub fn quantize(vectors: &[f32], dim: usize) -> Self {
        let (codes, scales) = crate::encoder::quantize_rows(vectors, dim);
        Self {
            dim,
            codes,
            scales,
            passages: None,
        }
    }

    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.scales.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.scales.is_empty()
    }

    /// Cosine of the (unit) query with every vector, from the integer scan alone.
    pub fn scan(&self, query: &[f32]) -> Vec<f32> {
        let mut q = vec![0i8; self.dim];
        let qs = quantize_into(query, &mut q);
        self.codes
            .chunks_exact(self.dim)
            .zip(&self.scales)
            .map(|(row, s)| dot_i8(&q, row) as f32 * qs * s)
            .collect()
    }

    /// Exact cosine of the f32 query with stored vector `i` (dequantized).
    pub fn exact(&self, query: &[f32], i: usize) -> f32 {
        let row = &self.codes[i * self.dim..(i + 1) * self.dim];
        let s = self.scales[i];
        row.iter()
            .zip(query)
            .map(|(&c, q)| c as f32 * q)
            .sum::<f32>()
            * s
    }

    /// Top `k` vectors by cosine: integer scan over all, exact rescoring of the best candidates.
    /// Returns `(index, cosine)` best first.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(u32, f32)> {
        let approx = self.scan(query);
        let keep = (k * RESCORE_FACTOR).max(RESCORE_MIN).min(approx.len());
        let mut cand: Vec<u32> = (0..approx.len() as u32).collect();
        if keep < cand.len() && keep > 0 {
            cand.select_nth_unstable_by(keep - 1, |&a, &b| {
                approx[b as usize].total_cmp(&approx[a as usize])
            });
            cand.truncate(keep);
        }
        let mut scored: Vec<(u32, f32)> = cand
            .into_iter()
            .map(|i| (i, self.exact(query, i as usize)))
            .collect();
        scored.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        scored
    }
}

/// Exact f32 brute force, the reference the quantized search is measured against.
pub fn exact_search(vectors: &[f32], dim: usize, query: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut scored: Vec<(u32, f32)> = vectors
        .chunks_exact(dim)
        .enumerate()
        .map(|(i, v)| (i as u32, v.iter().zip(query).map(|(a, b)| a * b).sum()))
        .collect();
    scored.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.truncate(k);
    scored
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::encoder::normalize;
    use proptest::prelude::*;

    /// Deterministic pseudo-random unit vectors (`n × dim`) for tests of this crate.
    pub(crate) fn unit_vectors(seed: u64, n: usize, dim: usize) -> Vec<f32> {
        // xorshift: deterministic pseudo-random vectors without a rand dependency.
        let mut s = seed | 1;
        let mut v: Vec<f32> = (0..n * dim)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                (s % 2000) as f32 / 1000.0 - 1.0
            })
            .collect();
        for row in v.chunks_exact_mut(dim) {
            normalize(row);
        }
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn quantized_search_matches_exact(seed in any::<u64>(), n in 1usize..300, k in 1usize..12) {
            let dim = 64;
            let data = unit_vectors(seed, n, dim);
            let query = unit_vectors(seed.wrapping_add(7), 1, dim);
            let q = QuantizedVectors::quantize(&data, dim);
            let got = q.search(&query, k);
            let want = exact_search(&data, dim, &query, k);
            prop_assert_eq!(got.len(), want.len());
            // Scores agree within quantization error, so the k-th best exact score bounds every hit.
            for ((_, g), (_, w)) in got.iter().zip(&want) {
                prop_assert!((g - w).abs() < 0.03, "{} vs {}", g, w);
            }
            for (i, g) in &got {
                let exact: f32 = data[*i as usize * dim..(*i as usize + 1) * dim].iter().zip(&query).map(|(a, b)| a * b).sum();
                prop_assert!((exact - g).abs() < 0.03);
            }
        }
    }
}

//! Approximate nearest neighbours (HNSW, `instant-distance`) over the chunk vectors, for books above
//! the size where the brute-force int8 scan of [`crate::vectors`] stops being fast enough.
//!
//! The graph is built over the same int8 rows as the index file (`quantize_rows`), so its bytes (an
//! envelope of their own, stored as the last section of the index body; see `FORMAT.md`) hold only
//! the graph: the rows are taken from the index's [`QuantizedVectors`] when it is loaded, and a
//! reader never downloads the vectors twice.
//! Candidates found in the graph are rescored exactly (f32 query · dequantized row), as the scan does.
//!
//! `instant-distance` keeps its graph in private fields; the only way in and out is its serde
//! derive. We move it through bincode with mirror structs of the same shape ([`MapOut`], [`MapIn`]),
//! and validate every id in our own file before anything reaches the library, whose search indexes
//! its arrays without bounds checks of its own (a bad id would panic there).

use std::sync::Mutex;

use instant_distance::{Builder, HnswMap, Point, Search};
use serde::{Deserialize, Serialize};

use crate::binio::{envelope, open_envelope, Reader, Writer};
use crate::encoder::{dot_i8, quantize_into, quantize_rows};
use crate::error::AssetError;
use crate::vectors::QuantizedVectors;

/// First bytes of an ANN graph file.
pub const ANN_MAGIC: &[u8; 8] = b"BKCHANN\0";
/// The ANN file format version this build reads and writes.
pub const ANN_VERSION: u32 = 1;
/// Candidates kept by the graph search (`ef` of the HNSW paper); the best are rescored exactly.
/// Measured on 10k uniform random 384-d unit vectors (the hard case for HNSW): recall@10 against
/// f32 exact is 0.74 at ef 100, 0.94 at 300, 0.99 at 1000, for about the same search time.
pub const EF_SEARCH: usize = 300;
/// `efConstruction`: candidates considered when linking a new node while building. Neighbours are
/// kept by plain distance (instant-distance's pruning heuristic is off): building is ten times
/// faster (10k × 384: 7 s instead of 68 s on 2 cores) and the larger `EF_SEARCH` makes up the recall.
pub const EF_CONSTRUCTION: usize = 100;
/// Largest `ef` a file may ask for (more would only make the search slow).
const MAX_EF: u32 = 4096;
/// Largest number of graph layers a file may declare (log base 32 of 2^32 is 6.4).
const MAX_LAYERS: u32 = 16;
/// instant-distance's `M`: links per node on the upper layers (twice as many on layer zero).
const M: usize = 32;
const WHAT: &str = "ANN graph file";

/// One stored vector as the graph sees it: int8 codes and their scale (`v ≈ codes × scale`).
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Row {
    codes: Vec<i8>,
    scale: f32,
}

impl Point for Row {
    /// Cosine distance from the int8 dot product (the rows are unit vectors).
    fn distance(&self, other: &Self) -> f32 {
        1.0 - dot_i8(&self.codes, &other.codes) as f32 * self.scale * other.scale
    }
}

/// An HNSW graph over a book's chunk vectors, searched by cosine.
pub struct Ann {
    dim: usize,
    len: usize,
    ef: usize,
    /// Points in graph order; `values[pid]` is the chunk index of graph point `pid`.
    map: HnswMap<Row, u32>,
    /// Reused search state (its visited set is one byte per point); a busy lock gets a fresh one.
    scratch: Mutex<Search>,
}

impl std::fmt::Debug for Ann {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ann")
            .field("dim", &self.dim)
            .field("len", &self.len)
            .field("ef", &self.ef)
            .finish_non_exhaustive()
    }
}

impl Ann {
    /// Builds the graph over unit f32 vectors (`rows × dim`, row-major), quantized exactly as the
    /// index file quantizes them. The same `seed` gives the same graph. A `dim` of 0 or a length
    /// that is not a multiple of `dim` gives an empty graph (nothing to search), never a panic.
    pub fn build(vectors: &[f32], dim: usize, seed: u64) -> Ann {
        if dim == 0 || vectors.len() % dim != 0 {
            return Self::build_rows(Vec::new(), dim, seed);
        }
        let (codes, scales) = quantize_rows(vectors, dim);
        Self::from_quantized(
            &QuantizedVectors {
                dim,
                codes,
                scales,
                passages: None,
            },
            seed,
        )
    }

    /// Builds the graph over an index's quantized vectors.
    pub fn from_quantized(vectors: &QuantizedVectors, seed: u64) -> Ann {
        Self::build_rows(rows_of(vectors), vectors.dim, seed)
    }

    fn build_rows(rows: Vec<Row>, dim: usize, seed: u64) -> Ann {
        let len = rows.len();
        let ids: Vec<u32> = (0..len as u32).collect();
        let build = move || {
            Builder::default()
                .seed(seed)
                .ef_construction(EF_CONSTRUCTION)
                .ef_search(EF_SEARCH)
                .select_heuristic(None)
                .build(rows, ids)
        };
        // instant-distance inserts in parallel, and the graph then depends on thread timing. One
        // thread makes the same seed give the same graph (reproducible, content-hashed assets). On
        // wasm32 no thread can be spawned: the pool fails to build and rayon runs on this thread.
        let map = match rayon::ThreadPoolBuilder::new().num_threads(1).build() {
            Ok(pool) => pool.install(build),
            Err(_) => build(),
        };
        Ann {
            dim,
            len,
            ef: EF_SEARCH,
            map,
            scratch: Mutex::new(Search::default()),
        }
    }

    /// Number of vectors in the graph.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the graph is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Top `k` vectors by cosine with the unit `query`, best first, as `(chunk index, cosine)`.
    /// At most [`EF_SEARCH`] results. A query of the wrong length or with NaN/infinite values
    /// returns no results (the caller falls back to BM25), never a panic.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(u32, f32)> {
        if k == 0
            || self.len == 0
            || query.len() != self.dim
            || !query.iter().all(|v| v.is_finite())
        {
            return Vec::new();
        }
        let mut codes = vec![0i8; self.dim];
        let scale = quantize_into(query, &mut codes);
        let q = Row { codes, scale };
        let mut fresh;
        let mut guard = self.scratch.try_lock().ok();
        let search: &mut Search = match guard.as_deref_mut() {
            Some(s) => s,
            None => {
                fresh = Search::default();
                &mut fresh
            }
        };
        let mut scored: Vec<(u32, f32)> = self
            .map
            .search(&q, search)
            .map(|item| (*item.value, exact(query, item.point)))
            .collect();
        scored.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        scored.truncate(k);
        scored
    }

    /// Serializes the graph (not the vectors: those live in the index file). See `FORMAT.md`.
    pub fn to_bytes(&self) -> Result<Vec<u8>, AssetError> {
        let raw = bincode::serialize(&self.map).map_err(|e| corrupt(format!("serialize: {e}")))?;
        let map: MapGraph =
            bincode::deserialize(&raw).map_err(|e| corrupt(format!("graph: {e}")))?;
        let mut body = Writer::default();
        body.u32(
            u32::try_from(map.hnsw.ef_search)
                .unwrap_or(MAX_EF)
                .min(MAX_EF),
        );
        body.u32s(&map.values);
        let zero: Vec<u32> = map
            .hnsw
            .zero
            .iter()
            .flat_map(|z| z.0.iter().chain(z.1.iter()))
            .copied()
            .collect();
        body.u32s(&zero);
        body.u32(map.hnsw.layers.len() as u32);
        for layer in &map.hnsw.layers {
            let flat: Vec<u32> = layer.iter().flatten().copied().collect();
            body.u32s(&flat);
        }
        let mut out = envelope(ANN_MAGIC, ANN_VERSION);
        out.u32(self.dim as u32);
        out.u32(self.len as u32);
        out.hashed_body(&body.buf);
        Ok(out.finish())
    }

    /// Loads a graph file over the index's `vectors`, validating magic, version, hash, counts and
    /// every node id before the graph reaches `instant-distance`.
    pub fn from_bytes(data: &[u8], vectors: &QuantizedVectors) -> Result<Ann, AssetError> {
        let (_, mut r) = open_envelope(data, ANN_MAGIC, &[ANN_VERSION], WHAT)?;
        let dim = r.u32()? as usize;
        let len = r.u32()? as usize;
        let (_, body) = r.hashed_body()?;
        if dim != vectors.dim {
            return Err(AssetError::DimensionMismatch {
                what: WHAT,
                expected: vectors.dim,
                found: dim,
            });
        }
        if len != vectors.len() || vectors.codes.len() != len.saturating_mul(dim) {
            return Err(AssetError::Mismatch {
                what: WHAT,
                reason: format!("graph has {len} points, the index {}", vectors.len()),
            });
        }
        let mut r = Reader::new(body, WHAT);
        let ef = r.u32()?;
        if ef == 0 || ef > MAX_EF {
            return Err(corrupt(format!("ef {ef} out of range")));
        }
        let values = r.u32s()?;
        if values.len() != len {
            return Err(corrupt("point order has the wrong length".into()));
        }
        let mut seen = vec![false; len];
        for &v in &values {
            match seen.get_mut(v as usize) {
                Some(s) if !*s => *s = true,
                _ => return Err(corrupt("point order is not a permutation".into())),
            }
        }
        let zero = r.u32s()?;
        if zero.len() != len * 2 * M {
            return Err(corrupt("layer zero has the wrong size".into()));
        }
        check_links(&zero, len)?;
        let layer_count = r.u32()?;
        if layer_count > MAX_LAYERS || (len == 0 && layer_count > 0) {
            return Err(corrupt(format!("{layer_count} layers")));
        }
        let mut layers = Vec::with_capacity(layer_count as usize);
        let mut below = len;
        for _ in 0..layer_count {
            let flat = r.u32s()?;
            let nodes = flat.len() / M;
            // Layers shrink upwards and are never empty: the search enters every layer at point 0.
            if flat.len() % M != 0 || nodes == 0 || nodes > below {
                return Err(corrupt("upper layer has a bad size".into()));
            }
            check_links(&flat, nodes)?;
            below = nodes;
            layers.push(flat);
        }
        if !r.is_empty() {
            return Err(corrupt("trailing bytes".into()));
        }

        // Rows in graph order, borrowed from the index; then through bincode into the library.
        let rows: Vec<RowRef> = values
            .iter()
            .map(|&v| {
                let i = v as usize;
                RowRef {
                    codes: &vectors.codes[i * dim..(i + 1) * dim],
                    scale: vectors.scales[i],
                }
            })
            .collect();
        let zero_nodes: Vec<NodeOut> = zero
            .chunks_exact(2 * M)
            .map(|c| NodeOut(&c[..M], &c[M..]))
            .collect();
        let layer_nodes: Vec<Vec<UpperOut>> = layers
            .iter()
            .map(|l| l.chunks_exact(M).map(UpperOut).collect())
            .collect();
        let out = MapOut {
            hnsw: HnswOut {
                ef_search: ef as u64,
                points: rows,
                zero: zero_nodes,
                layers: layer_nodes,
            },
            values: &values,
        };
        let raw = bincode::serialize(&out).map_err(|e| corrupt(format!("graph: {e}")))?;
        drop(out);
        let map: HnswMap<Row, u32> =
            bincode::deserialize(&raw).map_err(|e| corrupt(format!("graph: {e}")))?;
        Ok(Ann {
            dim,
            len,
            ef: ef as usize,
            map,
            scratch: Mutex::new(Search::default()),
        })
    }
}

/// Every link is either the "no link" marker or a node of the layer.
fn check_links(links: &[u32], nodes: usize) -> Result<(), AssetError> {
    if links.iter().any(|&l| l != u32::MAX && l as usize >= nodes) {
        return Err(corrupt("a link points outside its layer".into()));
    }
    Ok(())
}

fn rows_of(vectors: &QuantizedVectors) -> Vec<Row> {
    if vectors.dim == 0 || vectors.codes.len() != vectors.len() * vectors.dim {
        return Vec::new();
    }
    vectors
        .codes
        .chunks_exact(vectors.dim)
        .zip(&vectors.scales)
        .map(|(c, &s)| Row {
            codes: c.to_vec(),
            scale: s,
        })
        .collect()
}

/// Exact cosine of the f32 query with a dequantized row (as `QuantizedVectors::exact`).
fn exact(query: &[f32], row: &Row) -> f32 {
    row.codes
        .iter()
        .zip(query)
        .map(|(&c, q)| c as f32 * q)
        .sum::<f32>()
        * row.scale
}

fn corrupt(reason: String) -> AssetError {
    AssetError::Corrupt { what: WHAT, reason }
}

// Mirrors of instant-distance's serde shapes (`HnswMap { hnsw: Hnsw { ef_search, points, zero,
// layers }, values }`, `ZeroNode([PointId; 64])`, `UpperNode([PointId; 32])`, `PointId(u32)`):
// bincode writes no field names or array lengths, so the same field order and types give the same
// bytes. The round-trip tests below fail if a future instant-distance changes the shape.

/// Read side (from the library, to write our file): points are skipped by reading them as rows.
#[derive(Deserialize)]
struct MapGraph {
    hnsw: HnswGraph,
    values: Vec<u32>,
}

#[derive(Deserialize)]
struct HnswGraph {
    ef_search: u64,
    #[allow(dead_code)] // read to keep the field order; the rows come from the index
    points: Vec<Row>,
    zero: Vec<NodeIn>,
    layers: Vec<Vec<[u32; M]>>,
}

/// A layer-zero node: 64 links, read as two arrays of 32 (serde derives arrays up to 32).
#[derive(Deserialize)]
struct NodeIn([u32; M], [u32; M]);

/// Write side (from our file, into the library), borrowing the validated data.
#[derive(Serialize)]
struct MapOut<'a> {
    hnsw: HnswOut<'a>,
    values: &'a [u32],
}

#[derive(Serialize)]
struct HnswOut<'a> {
    ef_search: u64,
    points: Vec<RowRef<'a>>,
    zero: Vec<NodeOut<'a>>,
    layers: Vec<Vec<UpperOut<'a>>>,
}

/// Same bytes as [`Row`]: a length-prefixed i8 sequence, then the scale.
#[derive(Serialize)]
struct RowRef<'a> {
    codes: &'a [i8],
    scale: f32,
}

/// 64 links written as a fixed-size tuple (no length), like `[PointId; 64]` under `BigArray`.
struct NodeOut<'a>(&'a [u32], &'a [u32]);

impl Serialize for NodeOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(2 * M)?;
        for v in self.0.iter().chain(self.1) {
            t.serialize_element(v)?;
        }
        t.end()
    }
}

/// 32 links written as a fixed-size tuple, like `[PointId; 32]`.
struct UpperOut<'a>(&'a [u32]);

impl Serialize for UpperOut<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeTuple;
        let mut t = s.serialize_tuple(M)?;
        for v in self.0 {
            t.serialize_element(v)?;
        }
        t.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vectors::exact_search;
    use crate::vectors::tests::unit_vectors;

    fn recall_at_10(ann: &Ann, data: &[f32], dim: usize, queries: &[f32]) -> f64 {
        let mut hits = 0;
        let mut total = 0;
        for q in queries.chunks_exact(dim) {
            let want: Vec<u32> = exact_search(data, dim, q, 10).iter().map(|h| h.0).collect();
            let got: Vec<u32> = ann.search(q, 10).iter().map(|h| h.0).collect();
            hits += want.iter().filter(|w| got.contains(w)).count();
            total += want.len();
        }
        hits as f64 / total as f64
    }

    #[test]
    fn recall_at_10_against_exact_on_random_unit_vectors() {
        let dim = 384;
        let data = unit_vectors(1, 3000, dim);
        let queries = unit_vectors(99, 50, dim);
        let ann = Ann::build(&data, dim, 7);
        let recall = recall_at_10(&ann, &data, dim, &queries);
        assert!(recall >= 0.9, "recall@10 {recall}");
    }

    #[test]
    fn finds_each_stored_vector_first() {
        let dim = 32;
        let data = unit_vectors(3, 500, dim);
        let ann = Ann::build(&data, dim, 1);
        for i in (0..500).step_by(37) {
            let hits = ann.search(&data[i * dim..(i + 1) * dim], 3);
            assert_eq!(hits[0].0, i as u32);
            assert!((hits[0].1 - 1.0).abs() < 0.02, "{}", hits[0].1);
        }
    }

    #[test]
    fn round_trip_gives_the_same_results() {
        let dim = 48;
        let data = unit_vectors(5, 800, dim);
        let q = QuantizedVectors::quantize(&data, dim);
        let ann = Ann::from_quantized(&q, 11);
        let bytes = ann.to_bytes().unwrap();
        let back = Ann::from_bytes(&bytes, &q).unwrap();
        assert_eq!(back.len(), 800);
        assert_eq!(back.to_bytes().unwrap(), bytes);
        for query in unit_vectors(8, 20, dim).chunks_exact(dim) {
            assert_eq!(ann.search(query, 10), back.search(query, 10));
        }
    }

    #[test]
    fn same_seed_same_graph() {
        let dim = 16;
        let data = unit_vectors(9, 300, dim);
        let a = Ann::build(&data, dim, 42).to_bytes().unwrap();
        let b = Ann::build(&data, dim, 42).to_bytes().unwrap();
        assert!(a == b, "two builds with one seed differ");
    }

    #[test]
    fn empty_and_degenerate_inputs() {
        let empty = Ann::build(&[], 8, 0);
        assert!(empty.is_empty());
        assert!(empty.search(&[0.0; 8], 5).is_empty());
        let q = QuantizedVectors::quantize(&[], 8);
        let back = Ann::from_bytes(&empty.to_bytes().unwrap(), &q).unwrap();
        assert!(back.is_empty());
        assert!(Ann::build(&[1.0; 7], 3, 0).is_empty());
        assert!(Ann::build(&[1.0; 6], 0, 0).is_empty());
        // One point, and fewer points than M.
        let one = Ann::build(&[1.0, 0.0], 2, 0);
        assert_eq!(one.search(&[1.0, 0.0], 3), vec![(0, 1.0)]);
        let data = unit_vectors(2, 5, 4);
        assert_eq!(Ann::build(&data, 4, 0).search(&data[..4], 10).len(), 5);
    }

    #[test]
    fn bad_queries_give_no_results() {
        let data = unit_vectors(4, 100, 8);
        let ann = Ann::build(&data, 8, 0);
        assert!(ann.search(&[0.5; 7], 5).is_empty());
        assert!(ann.search(&[f32::NAN; 8], 5).is_empty());
        assert!(ann.search(&[f32::INFINITY; 8], 5).is_empty());
        assert!(ann.search(&data[..8], 0).is_empty());
        // A zero query is valid input: every cosine is 0.
        assert_eq!(ann.search(&[0.0; 8], 3).len(), 3);
    }

    fn sample() -> (Vec<u8>, QuantizedVectors) {
        let dim = 8;
        let data = unit_vectors(6, 120, dim);
        let q = QuantizedVectors::quantize(&data, dim);
        (Ann::from_quantized(&q, 3).to_bytes().unwrap(), q)
    }

    #[test]
    fn every_truncation_is_an_error() {
        let (bytes, q) = sample();
        for len in 0..bytes.len() {
            assert!(Ann::from_bytes(&bytes[..len], &q).is_err(), "{len}");
        }
        assert!(matches!(
            Ann::from_bytes(&[], &q),
            Err(AssetError::BadMagic { .. })
        ));
    }

    #[test]
    fn header_errors_are_typed() {
        let (bytes, q) = sample();
        let mut b = bytes.clone();
        b[8..12].copy_from_slice(&2u32.to_le_bytes());
        assert!(matches!(
            Ann::from_bytes(&b, &q),
            Err(AssetError::UnsupportedVersion { found: 2, .. })
        ));
        let other_dim = QuantizedVectors::quantize(&unit_vectors(6, 120, 16), 16);
        assert!(matches!(
            Ann::from_bytes(&bytes, &other_dim),
            Err(AssetError::DimensionMismatch { .. })
        ));
        let fewer = QuantizedVectors::quantize(&unit_vectors(6, 100, 8), 8);
        assert!(matches!(
            Ann::from_bytes(&bytes, &fewer),
            Err(AssetError::Mismatch { .. })
        ));
        let mut b = bytes.clone();
        let last = b.len() - 1;
        b[last] ^= 0x10;
        assert!(matches!(
            Ann::from_bytes(&b, &q),
            Err(AssetError::HashMismatch { .. })
        ));
    }

    /// Rewrites the body of a good file and fixes its hash, as a crafted file would.
    fn with_body(bytes: &[u8], mut edit: impl FnMut(&mut Vec<u8>)) -> Vec<u8> {
        let mut r = Reader::new(bytes, WHAT);
        r.take(8).unwrap();
        let (v, d, n) = (r.u32().unwrap(), r.u32().unwrap(), r.u32().unwrap());
        r.str().unwrap();
        let mut body = r.bytes().unwrap().to_vec();
        edit(&mut body);
        let mut w = envelope(ANN_MAGIC, v);
        w.u32(d);
        w.u32(n);
        w.hashed_body(&body);
        w.finish()
    }

    #[test]
    fn crafted_links_with_a_valid_hash_are_rejected() {
        let (bytes, q) = sample();
        assert!(Ann::from_bytes(&with_body(&bytes, |_| {}), &q).is_ok());
        // ef = 0.
        let b = with_body(&bytes, |body| {
            body[..4].copy_from_slice(&0u32.to_le_bytes())
        });
        assert!(matches!(
            Ann::from_bytes(&b, &q),
            Err(AssetError::Corrupt { .. })
        ));
        // A duplicated point id in the order.
        let b = with_body(&bytes, |body| {
            let first = body[12..16].to_vec();
            body[16..20].copy_from_slice(&first);
        });
        assert!(matches!(
            Ann::from_bytes(&b, &q),
            Err(AssetError::Corrupt { .. })
        ));
        // A layer-zero link past the last point.
        let zero_at = 4 + 8 + 120 * 4 + 8;
        let b = with_body(&bytes, |body| {
            body[zero_at..zero_at + 4].copy_from_slice(&120u32.to_le_bytes())
        });
        assert!(matches!(
            Ann::from_bytes(&b, &q),
            Err(AssetError::Corrupt { .. })
        ));
        // Trailing garbage.
        let b = with_body(&bytes, |body| body.push(0));
        assert!(matches!(
            Ann::from_bytes(&b, &q),
            Err(AssetError::Corrupt { .. })
        ));
    }

    #[test]
    fn random_bodies_with_valid_hashes_never_panic() {
        let (bytes, q) = sample();
        let mut s = 0x9e3779b97f4a7c15u64;
        for _ in 0..300 {
            let b = with_body(&bytes, |body| {
                for _ in 0..4 {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    let i = (s as usize) % body.len();
                    body[i] = (s >> 32) as u8;
                }
            });
            if let Ok(ann) = Ann::from_bytes(&b, &q) {
                let _ = ann.search(&unit_vectors(s, 1, 8), 5);
            }
        }
    }
}

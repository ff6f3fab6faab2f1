//! Functions the browser benchmark (`run.mjs`) calls: synthetic vector sets timed with each search
//! method against f32 exact, a memory floor, and question encode + search on real book assets.
//!
//! Timing happens here, in wasm, with `performance.now()`, so the JS boundary is not measured.
//! Everything returns JSON strings: the harness only forwards them to `browser.json`.

use book_retrieval::ann::Ann;
use book_retrieval::encoder::normalize;
use book_retrieval::vectors::{exact_search, QuantizedVectors};
use book_retrieval::{ChunkTexts, Encoder, Index, Mode, SearchRequest};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

#[cfg(target_arch = "wasm32")]
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = performance)]
    fn now() -> f64;
}

#[cfg(not(target_arch = "wasm32"))]
fn now() -> f64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64() * 1e3)
        .unwrap_or(0.0)
}

/// all-MiniLM-L6-v2's dimension: the synthetic sets use the real one.
pub const DIM: usize = 384;

/// Deterministic pseudo-random unit vectors (xorshift; the same in every run and on every host).
/// `clusters > 0` draws points around that many random centres (noise 0.6 of the centre's norm),
/// closer to how real sentence embeddings crowd together than uniform directions are.
pub fn synthetic(seed: u64, n: usize, dim: usize, clusters: usize) -> Vec<f32> {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % 2_000_001) as f32 / 1_000_000.0 - 1.0
    };
    let centres: Vec<f32> = (0..clusters * dim).map(|_| next()).collect();
    let mut v = Vec::with_capacity(n * dim);
    for i in 0..n {
        if clusters > 0 {
            let c = &centres[(i % clusters) * dim..(i % clusters + 1) * dim];
            for x in c {
                v.push(x + 0.6 * next());
            }
        } else {
            for _ in 0..dim {
                v.push(next());
            }
        }
    }
    for row in v.chunks_exact_mut(dim) {
        normalize(row);
    }
    v
}

/// p50, p99 and mean of a list of milliseconds.
fn stats(mut ms: Vec<f64>) -> Value {
    if ms.is_empty() {
        return json!(null);
    }
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    json!({ "p50": at(0.5), "p99": at(0.99), "mean": ms.iter().sum::<f64>() / ms.len() as f64, "n": ms.len() })
}

/// One plain SIMD pass summing every byte: the memory-bandwidth floor of any scan over these bytes.
fn byte_sum(bytes: &[i8]) -> i32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    {
        use core::arch::wasm32::*;
        let blocks = bytes.len() / 16;
        let mut acc = i32x4_splat(0);
        for i in 0..blocks {
            // SAFETY: i*16+16 <= len; v128_load has no alignment requirement.
            let v = unsafe { v128_load(bytes.as_ptr().add(i * 16) as *const v128) };
            acc = i32x4_add(
                acc,
                i32x4_extadd_pairwise_i16x8(i16x8_extadd_pairwise_i8x16(v)),
            );
        }
        let mut sum = i32x4_extract_lane::<0>(acc)
            + i32x4_extract_lane::<1>(acc)
            + i32x4_extract_lane::<2>(acc)
            + i32x4_extract_lane::<3>(acc);
        for &b in &bytes[blocks * 16..] {
            sum += b as i32;
        }
        sum
    }
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    {
        bytes.iter().map(|&b| b as i32).sum()
    }
}

/// A synthetic vector set with its quantized copy, an optional HNSW graph and fixed queries.
#[wasm_bindgen]
pub struct Synth {
    dim: usize,
    data: Vec<f32>,
    quantized: QuantizedVectors,
    ann: Option<Ann>,
    queries: Vec<f32>,
    /// f32 exact top 10 of every query: the reference for recall.
    truth: Vec<Vec<u32>>,
}

#[wasm_bindgen]
impl Synth {
    /// `n` unit vectors of `dim` and `queries` query vectors (drawn like the data, another seed).
    #[wasm_bindgen(constructor)]
    pub fn new(n: usize, dim: usize, queries: usize, clusters: usize) -> Synth {
        let data = synthetic(1, n, dim, clusters);
        // Queries come from the same centres (same seed for the centres), other noise.
        let queries_v = if clusters > 0 {
            let all = synthetic(1, n + queries, dim, clusters);
            // Skip the n data points; the remaining rows share the centres but not the noise.
            all[n * dim..].to_vec()
        } else {
            synthetic(2, queries, dim, 0)
        };
        let quantized = QuantizedVectors::quantize(&data, dim);
        let truth = queries_v
            .chunks_exact(dim)
            .map(|q| {
                exact_search(&data, dim, q, 10)
                    .into_iter()
                    .map(|h| h.0)
                    .collect()
            })
            .collect();
        Synth {
            dim,
            data,
            quantized,
            ann: None,
            queries: queries_v,
            truth,
        }
    }

    /// A set too large to keep in f32 (1M × 384 would be 1.5 GB): rows are generated and quantized
    /// one at a time, so only the int8 codes stay. Scan and floor only; no f32 reference, no recall.
    pub fn quantized_only(n: usize, dim: usize, queries: usize) -> Synth {
        let mut codes = Vec::with_capacity(n * dim);
        let mut scales = Vec::with_capacity(n);
        let mut row = vec![0i8; dim];
        for i in 0..n {
            let v = synthetic(1000 + i as u64, 1, dim, 0);
            scales.push(book_retrieval::encoder::quantize_into(&v, &mut row));
            codes.extend_from_slice(&row);
        }
        Synth {
            dim,
            data: Vec::new(),
            quantized: QuantizedVectors {
                dim,
                codes,
                scales,
                passages: None,
            },
            ann: None,
            queries: synthetic(2, queries, dim, 0),
            truth: Vec::new(),
        }
    }

    /// Builds the HNSW graph here (single thread in wasm); returns milliseconds.
    pub fn build_ann(&mut self, seed: u64) -> f64 {
        let t = now();
        self.ann = Some(Ann::from_quantized(&self.quantized, seed));
        now() - t
    }

    /// Loads a graph built elsewhere (native, `ann.bin` of the same vectors); returns milliseconds.
    pub fn load_ann(&mut self, bytes: &[u8]) -> Result<f64, JsError> {
        let t = now();
        self.ann = Some(Ann::from_bytes(bytes, &self.quantized)?);
        Ok(now() - t)
    }

    /// The graph file of the current graph.
    pub fn ann_bytes(&self) -> Result<Vec<u8>, JsError> {
        match &self.ann {
            Some(a) => Ok(a.to_bytes()?),
            None => Err(JsError::new("no graph built")),
        }
    }

    /// Times `method` ("scan" = int8 scan + rescoring, "hnsw", "exact" = f32 brute force) over every
    /// query, `rounds` times; JSON with latency stats and recall@10 against f32 exact.
    pub fn run(&self, method: &str, rounds: usize) -> Result<String, JsError> {
        let mut ms = Vec::new();
        let mut hits = 0usize;
        let mut total = 0usize;
        let no_truth = vec![Vec::new(); self.queries.len() / self.dim.max(1)];
        let truths = if self.truth.is_empty() {
            &no_truth
        } else {
            &self.truth
        };
        for round in 0..rounds.max(1) {
            for (q, truth) in self.queries.chunks_exact(self.dim).zip(truths) {
                let t = now();
                let got: Vec<(u32, f32)> = match method {
                    "scan" => self.quantized.search(q, 10),
                    "exact" => exact_search(&self.data, self.dim, q, 10),
                    "hnsw" => match &self.ann {
                        Some(a) => a.search(q, 10),
                        None => return Err(JsError::new("no graph built")),
                    },
                    other => return Err(JsError::new(&format!("unknown method {other}"))),
                };
                ms.push(now() - t);
                if round == 0 && !truth.is_empty() {
                    hits += truth
                        .iter()
                        .filter(|t| got.iter().any(|g| g.0 == **t))
                        .count();
                    total += truth.len();
                }
            }
        }
        Ok(json!({
            "method": method,
            "latency_ms": stats(ms),
            "recall_at_10": if total == 0 { None } else { Some(hits as f64 / total as f64) },
        })
        .to_string())
    }

    /// The floor: one SIMD pass summing the int8 bytes the scan reads, timed `reps` times.
    pub fn floor(&self, reps: usize) -> String {
        let mut ms = Vec::new();
        let mut sink = 0i32;
        for _ in 0..reps.max(1) {
            let t = now();
            sink = sink.wrapping_add(byte_sum(&self.quantized.codes));
            ms.push(now() - t);
        }
        json!({ "latency_ms": stats(ms), "bytes": self.quantized.codes.len(), "sink": sink })
            .to_string()
    }
}

/// A real book asset loaded as the widget loads it.
#[wasm_bindgen]
pub struct Book {
    index: Index,
    texts: ChunkTexts,
    encoder: Encoder,
}

#[wasm_bindgen]
impl Book {
    /// Loads the index, chunk-text and encoder files; JSON timings come from `load_ms`.
    #[wasm_bindgen(constructor)]
    pub fn new(index: &[u8], chunks: &[u8], encoder: &[u8]) -> Result<Book, JsError> {
        let encoder = Encoder::from_bytes(encoder)?;
        let index = Index::from_bytes(index, Some(encoder.dim()))?;
        let texts = ChunkTexts::from_bytes(chunks, &index.content_hash, index.len())?;
        Ok(Book {
            index,
            texts,
            encoder,
        })
    }

    /// Times loading the three files (parse + validation), milliseconds.
    pub fn load_ms(index: &[u8], chunks: &[u8], encoder: &[u8]) -> f64 {
        let t = now();
        let ok = Book::new(index, chunks, encoder).is_ok();
        let dt = now() - t;
        if ok {
            dt
        } else {
            -1.0
        }
    }

    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the book has no chunks.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Every chunk as JSON (`path`, `heading`, `url`, `title`, `text`, `vector` dequantized to f32),
    /// for the peer (Orama) to index exactly the same content and vectors.
    pub fn chunks_json(&self) -> String {
        let v = &self.index.vectors;
        let chunks: Vec<Value> = self
            .index
            .meta
            .chunks
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let row = &v.codes[i * v.dim..(i + 1) * v.dim];
                let s = v.scales[i];
                let vector: Vec<f32> = row.iter().map(|&x| x as f32 * s).collect();
                json!({
                    "path": c.path, "heading": c.section, "url": c.url, "title": c.chapter,
                    "headings": c.headings.join(" > "),
                    "text": self.texts.get(i as u32).unwrap_or(""), "vector": vector,
                })
            })
            .collect();
        Value::Array(chunks).to_string()
    }

    /// Pages as JSON (`path`, `title`): the evaluation matches a label naming a page title.
    pub fn pages_json(&self) -> String {
        let pages: Vec<Value> = self
            .index
            .meta
            .pages
            .iter()
            .map(|p| json!({ "path": p.path, "title": p.title }))
            .collect();
        Value::Array(pages).to_string()
    }

    /// Encodes a question (unit f32 vector), for the peer's vector search.
    pub fn encode(&self, question: &str) -> Vec<f32> {
        self.encoder.encode(question)
    }

    /// Answers every question (JSON array of strings) `rounds` times in `mode` ("hybrid",
    /// "bm25", "dense"): encode and search timed separately; top 5 (path, heading) per question.
    /// In "hybrid" and "bm25" the widget's excerpt answer (`book_answer::compose`, default
    /// preferences, sentence embeddings with this encoder in "hybrid") is timed as `answer_ms`, and
    /// the same answer with the best section's text selected ("Ask about this") as `answer_read_ms`.
    pub fn ask_all(&self, questions: &str, mode: &str, rounds: usize) -> Result<String, JsError> {
        let qs: Vec<String> = serde_json::from_str(questions)?;
        let mode = match mode {
            "hybrid" => Mode::Hybrid,
            "bm25" => Mode::Bm25Only,
            "dense" => Mode::DenseOnly,
            other => return Err(JsError::new(&format!("unknown mode {other}"))),
        };
        let (mut enc, mut search, mut total) = (Vec::new(), Vec::new(), Vec::new());
        let mut answer = Vec::new();
        let mut answer_read = Vec::new();
        let prefs = book_answer::Preferences::default();
        let words = book_answer::Words::default();
        let embed = |t: &str, max_tokens: usize| Some(self.encoder.encode_opening(t, max_tokens));
        let mut results = Vec::new();
        for round in 0..rounds.max(1) {
            for q in &qs {
                let t0 = now();
                let v = if mode == Mode::Bm25Only {
                    None
                } else {
                    Some(self.encoder.encode(q))
                };
                let t1 = now();
                let mut req = SearchRequest::new(q, v.as_deref());
                req.mode = mode;
                let r = self.index.search(&req);
                let t2 = now();
                enc.push(t1 - t0);
                search.push(t2 - t1);
                total.push(t2 - t0);
                if mode != Mode::DenseOnly {
                    let t3 = now();
                    let found =
                        book_answer::found::collect(&self.index, &self.texts, &r, v.clone());
                    let with_encoder: Option<book_answer::Embed> =
                        (mode == Mode::Hybrid).then_some(&embed);
                    let composed = book_answer::compose(q, &found, with_encoder, &prefs, &words, None);
                    answer.push(now() - t3);
                    std::hint::black_box(composed);
                    // The same question asked about a selected passage, the whole best section
                    // (the longest text a reader reads before asking): every line is checked
                    // against it (`book_answer::read`).
                    let selected = r.hits.first().and_then(|h| self.texts.get(h.chunk));
                    if let Some(selection) = selected {
                        let t4 = now();
                        let about = book_answer::followup::Leaning::of(q, Some(selection), &[]);
                        let read = book_answer::read::AlreadyRead::of(q, about);
                        let composed = book_answer::compose(
                            q,
                            &found,
                            with_encoder,
                            &prefs,
                            &words,
                            read.as_ref(),
                        );
                        answer_read.push(now() - t4);
                        std::hint::black_box(composed);
                    }
                }
                if round == 0 {
                    let top: Vec<Value> = r
                        .hits
                        .iter()
                        .filter_map(|h| self.index.chunk(h.chunk))
                        .map(|c| json!({ "path": c.path, "heading": c.section }))
                        .collect();
                    results.push(json!({ "refused": r.refused, "top": top }));
                }
            }
        }
        Ok(json!({
            "encode_ms": stats(enc), "search_ms": stats(search), "total_ms": stats(total),
            "answer_ms": stats(answer),
            "answer_read_ms": stats(answer_read),
            "results": results,
        })
        .to_string())
    }
}

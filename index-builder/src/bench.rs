//! `index-builder bench`: speed and size figures of a built asset, measured on the code the browser
//! runs (int8 encoder, quantized scan, hybrid fusion). Prints figures; asserts nothing.

use std::path::Path;
use std::time::Instant;

use anyhow::{Context, Result};
use book_retrieval::{Mode, SearchRequest};

use crate::build::LoadedAsset;

/// p50 and p99 of durations in milliseconds.
fn percentiles(mut ms: Vec<f64>) -> (f64, f64) {
    if ms.is_empty() {
        return (0.0, 0.0);
    }
    ms.sort_by(f64::total_cmp);
    let at = |p: f64| ms[((ms.len() - 1) as f64 * p).round() as usize];
    (at(0.5), at(0.99))
}

fn gzip_len(bytes: &[u8]) -> usize {
    // miniz at level 9 compresses like gzip -9 (same DEFLATE; gzip adds an 18-byte frame).
    miniz_oxide::deflate::compress_to_vec(bytes, 9).len() + 18
}

/// Prints encode and search latency over `questions` (plain lines or JSON lines with "question"),
/// and the asset's sizes raw and gzipped.
pub fn run(asset: &LoadedAsset, dir: &Path, questions: &Path, rounds: usize) -> Result<()> {
    let text = std::fs::read_to_string(questions)
        .with_context(|| format!("cannot read {}", questions.display()))?;
    let qs: Vec<String> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l)
                .ok()
                .and_then(|v| {
                    v.get("question")
                        .and_then(|q| q.as_str())
                        .map(str::to_string)
                })
                .unwrap_or_else(|| l.to_string())
        })
        .collect();
    let encoder = asset.encoder.as_ref().context("the asset has no encoder")?;
    let (mut enc_ms, mut search_ms, mut bm25_ms) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..rounds.max(1) {
        for q in &qs {
            let t = Instant::now();
            let v = encoder.encode(q);
            enc_ms.push(t.elapsed().as_secs_f64() * 1e3);
            let t = Instant::now();
            let r = asset.index.search(&SearchRequest::new(q, Some(&v)));
            search_ms.push(t.elapsed().as_secs_f64() * 1e3);
            std::hint::black_box(r);
            let mut req = SearchRequest::new(q, None);
            req.mode = Mode::Bm25Only;
            let t = Instant::now();
            std::hint::black_box(asset.index.search(&req));
            bm25_ms.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let (e50, e99) = percentiles(enc_ms);
    let (s50, s99) = percentiles(search_ms);
    let (b50, b99) = percentiles(bm25_ms);
    println!(
        "chunks: {}  questions: {} x {} rounds",
        asset.index.len(),
        qs.len(),
        rounds.max(1)
    );
    println!("question encoding (int8, native):   p50 {e50:.2} ms   p99 {e99:.2} ms");
    println!("hybrid search after encoding:       p50 {s50:.3} ms   p99 {s99:.3} ms");
    println!("BM25-only search:                   p50 {b50:.3} ms   p99 {b99:.3} ms");
    let mut rest = (0usize, 0usize);
    for entry in std::fs::read_dir(dir)?.flatten() {
        let name = entry.file_name().to_string_lossy().to_string();
        let bytes = std::fs::read(entry.path())?;
        let (raw, gz) = (bytes.len(), gzip_len(&bytes));
        println!("{name:<32} {:>10} bytes raw {:>10} bytes gzipped", raw, gz);
        if name.starts_with("encoder.") {
            // What a reader pays once the file is downloaded: checks, inflating, unpacking.
            let t = Instant::now();
            std::hint::black_box(book_retrieval::Encoder::from_bytes(&bytes)?);
            println!(
                "encoder load (from bytes, native): {:.1} ms",
                t.elapsed().as_secs_f64() * 1e3
            );
        }
        if !name.starts_with("encoder.") {
            rest.0 += raw;
            rest.1 += gz;
        }
    }
    println!(
        "{:<32} {:>10} bytes raw {:>10} bytes gzipped",
        "all but the encoder", rest.0, rest.1
    );
    println!(
        "vectors: {:.3} bytes per dimension",
        (asset.index.vectors.codes.len() + 4 * asset.index.vectors.scales.len()) as f64
            / (asset.index.len() * asset.index.dim()).max(1) as f64
    );
    Ok(())
}

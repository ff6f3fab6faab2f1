//! Build-time embedding throughput on the chunk texts of a built asset: the texts the index
//! stores, embedded with the exact f32 model exactly as `index-builder build` embeds chunks
//! (batched, on rayon's threads; set `RAYON_NUM_THREADS`). `scripts/bench.sh` runs it beside
//! `bench/torch_throughput.py` (sentence-transformers on PyTorch) on the same texts.
//!
//! `embed_throughput ASSET_DIR [MODEL_DIR]` prints one JSON line.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{Context, Result};
use book_retrieval::{ChunkTexts, Index};
use index_builder::{embed, model};

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let dir = PathBuf::from(
        args.next()
            .context("usage: embed_throughput ASSET_DIR [MODEL_DIR]")?,
    );
    let model_dir = model::resolve_model_dir(args.next().map(PathBuf::from).as_deref());
    let manifest = index_builder::build::read_manifest(&dir)?;
    let index = Index::from_bytes(&std::fs::read(dir.join(&manifest.files.index))?, None)?;
    let texts = ChunkTexts::from_bytes(
        &std::fs::read(dir.join(&manifest.files.chunks))?,
        &index.content_hash,
        index.len(),
    )?;
    let texts: Vec<String> = (0..texts.len() as u32)
        .filter_map(|i| texts.get(i).map(str::to_string))
        .collect();
    let encoder = model::load_f32_encoder(&model_dir)?;
    // One warm-up text, as the PyTorch side warms up once.
    let _ = encoder.encode("warm up");
    let t0 = Instant::now();
    let vectors = embed::embed_texts(&encoder, &texts, false);
    let secs = t0.elapsed().as_secs_f64();
    anyhow::ensure!(
        vectors.len() == texts.len() * encoder.dim(),
        "missing vectors"
    );
    println!(
        "{}",
        serde_json::json!({
            "engine": "book-chat (Rust)",
            "texts": texts.len(),
            "threads": rayon::current_num_threads(),
            "seconds": secs,
            "per_second": texts.len() as f64 / secs,
        })
    );
    Ok(())
}

//! Dumps what the docs reader and the chunker make of a docs folder, one JSON line per page
//! (route, title, warnings, sections with anchors and texts, chunk texts), so that two versions of
//! the reader can be compared on real books with `diff`:
//!
//! `cargo run --release -p index-builder --example dump_pages -- <docs dir> > pages.jsonl`

use std::path::PathBuf;

use anyhow::Context;
use index_builder::chunker::{chunk_page, ChunkLimits};
use index_builder::docs::{read_book, ReadOptions};
use serde_json::json;

fn main() -> anyhow::Result<()> {
    let dir = PathBuf::from(
        std::env::args_os()
            .nth(1)
            .context("usage: dump_pages <docs dir>")?,
    );
    let book = read_book(&dir, &ReadOptions::default())
        .with_context(|| format!("cannot read {}", dir.display()))?;
    for w in &book.warnings {
        println!("{}", json!({ "warning": w.to_string() }));
    }
    for (n, page) in book.pages.iter().enumerate() {
        let sections: Vec<_> = page
            .sections
            .iter()
            .map(|s| {
                json!({
                    "heading": s.heading,
                    "anchor": s.anchor,
                    "level": s.level,
                    "hierarchy": s.hierarchy,
                    "has_code": s.has_code,
                    "text": s.text,
                })
            })
            .collect();
        let chunks: Vec<_> = chunk_page(page, n as u32, ChunkLimits::default())
            .into_iter()
            .map(|c| json!({ "url": c.chunk.meta.url, "text": c.chunk.text }))
            .collect();
        println!(
            "{}",
            json!({
                "path": page.path,
                "url": page.url,
                "title": page.title,
                "sections": sections,
                "chunks": chunks,
            })
        );
    }
    Ok(())
}

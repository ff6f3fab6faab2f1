//! Builds the HNSW graph of a synthetic vector set natively (as `index-builder` would for a large
//! book) and writes its file, so the browser benchmark loads the graph instead of building 100k
//! points single-threaded in wasm. Usage: make_ann N CLUSTERS OUT_FILE
use std::time::Instant;

use book_retrieval::ann::Ann;
use book_retrieval::vectors::QuantizedVectors;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, n, clusters, out] = args.as_slice() else {
        return Err("usage: make_ann N CLUSTERS OUT_FILE".into());
    };
    let (n, clusters): (usize, usize) = (n.parse()?, clusters.parse()?);
    let data = book_bench::synthetic(1, n, book_bench::DIM, clusters);
    let q = QuantizedVectors::quantize(&data, book_bench::DIM);
    let t = Instant::now();
    let ann = Ann::from_quantized(&q, 7);
    let secs = t.elapsed().as_secs_f64();
    let bytes = ann.to_bytes()?;
    std::fs::write(out, &bytes)?;
    println!(
        "{{\"n\":{n},\"clusters\":{clusters},\"native_build_s\":{secs:.3},\"bytes\":{}}}",
        bytes.len()
    );
    Ok(())
}

//! The build's batched forward pass (tokens of many chunks stacked, attention per chunk) gives the
//! vectors of the exact model: cosine ≥ 0.9999 to the independent numpy reference, and the same
//! vector a chunk gets when embedded alone.

use book_retrieval::encoder::MAX_TOKENS;
use index_builder::{embed, model};

#[derive(serde::Deserialize)]
struct Reference {
    text: String,
    embedding: Vec<f32>,
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
#[ignore = "needs the model weights (scripts/setup.sh)"]
fn batched_build_vectors_match_the_reference_and_single_encoding() {
    let encoder = model::load_f32_encoder(&model::resolve_model_dir(None)).unwrap();
    let refs: Vec<Reference> = serde_json::from_str(include_str!(
        "../../retrieval/tests/fixtures/reference.json"
    ))
    .unwrap();
    let mut texts: Vec<String> = refs.iter().map(|r| r.text.clone()).collect();
    // Chunks of every length up to the 256-token cut, so batches mix short and truncated ones.
    let long = refs
        .iter()
        .map(|r| r.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    for words in [5, 40, 120, 400] {
        texts.push(long.split(' ').take(words).collect::<Vec<_>>().join(" "));
    }
    let dim = encoder.dim();
    let batched = embed::embed_texts(&encoder, &texts, false);
    assert_eq!(batched.len(), texts.len() * dim);
    for (i, (text, v)) in texts.iter().zip(batched.chunks_exact(dim)).enumerate() {
        let alone = encoder.encode_ids(&encoder.tokenizer.encode(text, MAX_TOKENS));
        let c = cosine(v, &alone);
        assert!(c > 0.99999, "batched vs alone cosine {c} for {text:?}");
        if let Some(r) = refs.get(i) {
            let c = cosine(v, &r.embedding);
            assert!(c > 0.9999, "batched vs reference cosine {c} for {text:?}");
        }
    }
}

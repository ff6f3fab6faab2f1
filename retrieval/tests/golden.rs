//! Compatibility fixtures: every loader of this crate must still read the asset files committed
//! under `tests/golden/v<N>/` (written by `examples/make_golden.rs` with that version's writer) and
//! get exactly the recorded results. A format change adds a folder; it never edits one.

use book_retrieval::{ChunkTexts, Encoder, Index, SearchRequest};
use serde_json::Value;

struct Golden {
    index: &'static [u8],
    chunks: &'static [u8],
    encoder: &'static [u8],
    expected: &'static str,
}

const V1: Golden = Golden {
    index: include_bytes!("golden/v1/index.bin"),
    chunks: include_bytes!("golden/v1/chunks.bin"),
    encoder: include_bytes!("golden/v1/encoder.bin"),
    expected: include_str!("golden/v1/expected.json"),
};

const V2: Golden = Golden {
    index: include_bytes!("golden/v2/index.bin"),
    chunks: include_bytes!("golden/v2/chunks.bin"),
    encoder: include_bytes!("golden/v2/encoder.bin"),
    expected: include_str!("golden/v2/expected.json"),
};

const V3: Golden = Golden {
    index: include_bytes!("golden/v3/index.bin"),
    chunks: include_bytes!("golden/v3/chunks.bin"),
    encoder: include_bytes!("golden/v3/encoder.bin"),
    expected: include_str!("golden/v3/expected.json"),
};

const V4: Golden = Golden {
    index: include_bytes!("golden/v4/index.bin"),
    chunks: include_bytes!("golden/v4/chunks.bin"),
    encoder: include_bytes!("golden/v4/encoder.bin"),
    expected: include_str!("golden/v4/expected.json"),
};

const V5: Golden = Golden {
    index: include_bytes!("golden/v5/index.bin"),
    chunks: include_bytes!("golden/v5/chunks.bin"),
    encoder: include_bytes!("golden/v5/encoder.bin"),
    expected: include_str!("golden/v5/expected.json"),
};

const V6: Golden = Golden {
    index: include_bytes!("golden/v6/index.bin"),
    chunks: include_bytes!("golden/v6/chunks.bin"),
    encoder: include_bytes!("golden/v6/encoder.bin"),
    expected: include_str!("golden/v6/expected.json"),
};

const INDEX_V2: Golden = Golden {
    index: include_bytes!("golden/index-v2/index.bin"),
    chunks: include_bytes!("golden/index-v2/chunks.bin"),
    encoder: include_bytes!("golden/index-v2/encoder.bin"),
    expected: include_str!("golden/index-v2/expected.json"),
};

fn check(g: &Golden) {
    let expected: Value = serde_json::from_str(g.expected).unwrap();
    let dim = expected["dim"].as_u64().unwrap() as usize;
    let count = expected["chunks"].as_u64().unwrap() as usize;
    let encoder = Encoder::from_bytes(g.encoder).unwrap();
    assert_eq!(encoder.dim(), dim);
    let index = Index::from_bytes(g.index, Some(dim)).unwrap();
    assert_eq!(index.len(), count);
    assert_eq!(index.content_hash, expected["index_hash"].as_str().unwrap());
    let texts = ChunkTexts::from_bytes(g.chunks, &index.content_hash, count).unwrap();
    for (i, t) in expected["texts"].as_array().unwrap().iter().enumerate() {
        assert_eq!(texts.get(i as u32), t.as_str());
    }
    for q in expected["queries"].as_array().unwrap() {
        let query = q["query"].as_str().unwrap();
        let ids: Vec<u32> = serde_json::from_value(q["ids"].clone()).unwrap();
        assert_eq!(encoder.tokenizer.encode(query, 32), ids, "{query}");
        let want: Vec<f32> = serde_json::from_value(q["vector"].clone()).unwrap();
        let got = encoder.encode(query);
        assert_eq!(got.len(), want.len());
        for (a, b) in got.iter().zip(&want) {
            assert!((a - b).abs() < 1e-5, "{query}: {got:?} vs {want:?}");
        }
        let hits = |r: book_retrieval::SearchResults| -> Vec<u32> {
            r.hits.iter().map(|h| h.chunk).collect()
        };
        let hybrid: Vec<u32> = serde_json::from_value(q["hybrid_hits"].clone()).unwrap();
        let found = index.search(&SearchRequest::new(query, Some(&got)));
        // Folders from index-v2 on record the fused scores too (the passage vectors move them).
        if let Some(scores) = q.get("hybrid_scores") {
            let want: Vec<f32> = serde_json::from_value(scores.clone()).unwrap();
            let got: Vec<f32> = found.hits.iter().map(|h| h.score).collect();
            assert_eq!(got.len(), want.len(), "{query}");
            for (a, b) in got.iter().zip(&want) {
                assert!((a - b).abs() < 1e-5, "{query}: {got:?} vs {want:?}");
            }
        }
        assert_eq!(hits(found), hybrid, "{query}");
        let bm25: Vec<u32> = serde_json::from_value(q["bm25_hits"].clone()).unwrap();
        assert_eq!(
            hits(index.search(&SearchRequest::new(query, None))),
            bm25,
            "{query}"
        );
    }
}

#[test]
fn version_1_assets_still_load_and_give_the_recorded_results() {
    check(&V1);
}

#[test]
fn version_2_assets_load_and_give_the_recorded_results() {
    // Version 2 changed the encoder file only (grouped low-bit layers); index and texts are v1.
    assert_eq!(u32::from_le_bytes(V2.encoder[8..12].try_into().unwrap()), 2);
    check(&V2);
}

#[test]
fn version_3_assets_load_and_give_the_recorded_results() {
    // Encoder file version 3: each matrix's codes one a byte, entropy-coded; index and texts are
    // version 1 as the writers of the day wrote them (the tiny book has no passage vectors).
    assert_eq!(u32::from_le_bytes(V3.encoder[8..12].try_into().unwrap()), 3);
    // Without fitted codebooks, today's writer still writes version 3, byte for byte.
    let encoder = Encoder::from_bytes(V3.encoder).unwrap();
    assert_eq!(encoder.to_bytes().unwrap(), V3.encoder);
    check(&V3);
}

#[test]
fn version_4_assets_load_and_give_the_recorded_results() {
    // Encoder file version 4: every matrix of this tiny encoder has a fitted codebook (a level
    // table); index and texts are as the writers of the day wrote them.
    assert_eq!(u32::from_le_bytes(V4.encoder[8..12].try_into().unwrap()), 4);
    let encoder = Encoder::from_bytes(V4.encoder).unwrap();
    assert!(
        matches!(&encoder.words, book_retrieval::encoder::WordEmbeddings::Grouped { table, .. } if !table.levels.is_empty())
    );
    // Written again, it is the same file.
    assert_eq!(encoder.to_bytes().unwrap(), V4.encoder);
    check(&V4);
}

#[test]
fn version_5_assets_load_and_give_the_recorded_results() {
    // Encoder file version 5: positions as 8-bit codes with one step a row, biases, norms and the
    // token type as bf16 values; index and texts as the writers of the day wrote them.
    assert_eq!(u32::from_le_bytes(V5.encoder[8..12].try_into().unwrap()), 5);
    let encoder = Encoder::from_bytes(V5.encoder).unwrap();
    assert!(encoder.position_codes.is_some());
    // Written again, it is a version-6 file (no writer of version 5 is kept) that gives the same
    // results.
    let again = encoder.to_bytes().unwrap();
    assert_eq!(u32::from_le_bytes(again[8..12].try_into().unwrap()), 6);
    check(&Golden {
        encoder: Box::leak(again.into_boxed_slice()),
        ..V5
    });
    check(&V5);
}

#[test]
fn version_6_assets_load_and_give_the_recorded_results() {
    // Encoder file version 6: each matrix's codes column by column, columns of like spread in one
    // class with Huffman tables of its own; index and texts as the writers of the day wrote them.
    assert_eq!(u32::from_le_bytes(V6.encoder[8..12].try_into().unwrap()), 6);
    let encoder = Encoder::from_bytes(V6.encoder).unwrap();
    // Written again, it is the same file.
    assert_eq!(encoder.to_bytes().unwrap(), V6.encoder);
    check(&V6);
}

#[test]
fn index_version_2_assets_load_and_give_the_recorded_results() {
    // Index version 2, the one every build writes: passage vectors after the chunk vectors (each
    // fixture chunk's two halves), which move the fused scores recorded here; texts version 1 and
    // an encoder of version 6, as the writers of the day wrote them.
    assert_eq!(
        u32::from_le_bytes(INDEX_V2.index[8..12].try_into().unwrap()),
        2
    );
    let expected: Value = serde_json::from_str(INDEX_V2.expected).unwrap();
    let index =
        Index::from_bytes(INDEX_V2.index, expected["dim"].as_u64().map(|d| d as usize)).unwrap();
    let passages = index.vectors.passages.as_ref().expect("passage vectors");
    assert_eq!(passages.chunk_of, [0, 0, 1, 1, 2, 2, 3, 3]);
    // Written again, it is the same file.
    assert_eq!(index.to_bytes().unwrap(), INDEX_V2.index);
    check(&INDEX_V2);
}

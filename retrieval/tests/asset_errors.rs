//! Every kind of bad asset gets a typed error, never a panic: truncated, bit-flipped, empty,
//! wrong-magic, wrong-version, dimension-mismatched, NaN-bearing and mismatched files.

use book_retrieval::index::INDEX_VERSION;
use book_retrieval::testing::{self, CHUNK_COUNT, DIM};
use book_retrieval::{AssetError, ChunkTexts, Encoder, Index, SearchRequest};

/// The tiny book's index, with other vector scales when given.
fn index_with_scales(scales: Option<Vec<f32>>) -> Index {
    let mut idx = testing::unwritten_index();
    if let Some(s) = scales {
        idx.vectors.scales = s;
    }
    idx
}

fn good_bytes() -> Vec<u8> {
    testing::index_bytes()
}

/// `n` chunk texts.
fn some_texts(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("text {i}")).collect()
}

#[test]
fn good_file_round_trips_and_searches() {
    let idx = Index::from_bytes(&good_bytes(), Some(DIM)).unwrap();
    assert_eq!(idx.len(), CHUNK_COUNT);
    let r = idx.search(&SearchRequest::new("which topics do nodes publish", None));
    assert_eq!(
        Some(r.hits[0].chunk),
        testing::chunk_with_url("/docs/ros/nodes")
    );
}

#[test]
fn empty_file_is_bad_magic() {
    assert!(matches!(
        Index::from_bytes(&[], None),
        Err(AssetError::BadMagic { .. })
    ));
    assert!(matches!(
        Encoder::from_bytes(&[]),
        Err(AssetError::BadMagic { .. })
    ));
    assert!(matches!(
        ChunkTexts::from_bytes(&[], "x", 0),
        Err(AssetError::BadMagic { .. })
    ));
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = good_bytes();
    for len in 0..bytes.len() {
        assert!(
            Index::from_bytes(&bytes[..len], None).is_err(),
            "truncated to {len} bytes was accepted"
        );
    }
}

#[test]
fn every_single_bit_flip_is_detected() {
    let bytes = good_bytes();
    // Flip one bit in each byte (a different bit each time): header fields or body hash catch it.
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 1 << (i % 8);
        let r = Index::from_bytes(&b, None);
        // Flips inside the model id string still give a valid file with another model id.
        if let Ok(idx) = r {
            assert_ne!(
                idx.model_id,
                testing::MODEL_ID,
                "bit flip at byte {i} went unnoticed"
            );
        }
    }
}

#[test]
fn wrong_version_is_reported_with_both_versions() {
    let mut b = good_bytes();
    b[8..12].copy_from_slice(&(INDEX_VERSION + 1).to_le_bytes());
    assert_eq!(
        Index::from_bytes(&b, None).unwrap_err(),
        AssetError::UnsupportedVersion {
            what: "index file",
            found: INDEX_VERSION + 1,
            supported: INDEX_VERSION
        }
    );
}

#[test]
fn dimension_mismatch_is_reported() {
    assert_eq!(
        Index::from_bytes(&good_bytes(), Some(384)).unwrap_err(),
        AssetError::DimensionMismatch {
            what: "index file",
            expected: 384,
            found: DIM
        }
    );
}

#[test]
fn nan_vectors_are_rejected_even_with_a_valid_hash() {
    let mut scales = vec![0.1; CHUNK_COUNT];
    scales[1] = f32::NAN;
    let bytes = index_with_scales(Some(scales)).to_bytes().unwrap();
    assert!(matches!(
        Index::from_bytes(&bytes, None),
        Err(AssetError::NotFinite { .. })
    ));
}

#[test]
fn nan_query_vector_falls_back_to_bm25() {
    let idx = Index::from_bytes(&good_bytes(), None).unwrap();
    let v = vec![f32::NAN; DIM];
    let r = idx.search(&SearchRequest::new("gazebo physics", Some(&v)));
    assert_eq!(r.mode, book_retrieval::Mode::Bm25Only);
    assert_eq!(
        Some(r.hits[0].chunk),
        testing::chunk_with_url("/docs/sim/gazebo#physics-engine")
    );
}

#[test]
fn texts_must_belong_to_the_index() {
    let idx = Index::from_bytes(&good_bytes(), None).unwrap();
    let texts = ChunkTexts::new(idx.content_hash.clone(), some_texts(CHUNK_COUNT));
    let bytes = texts.to_bytes().unwrap();
    assert_eq!(
        ChunkTexts::from_bytes(&bytes, &idx.content_hash, CHUNK_COUNT).unwrap(),
        texts
    );
    assert!(matches!(
        ChunkTexts::from_bytes(&bytes, "0000000000000000", CHUNK_COUNT),
        Err(AssetError::Mismatch { .. })
    ));
    assert!(matches!(
        ChunkTexts::from_bytes(&bytes, &idx.content_hash, CHUNK_COUNT + 1),
        Err(AssetError::Mismatch { .. })
    ));
    for len in 0..bytes.len() {
        assert!(ChunkTexts::from_bytes(&bytes[..len], &idx.content_hash, CHUNK_COUNT).is_err());
    }
}

#[test]
fn out_of_range_settings_are_corrupt() {
    let mut idx = index_with_scales(None);
    idx.meta.settings.dense_weight = 7.0;
    let bytes = idx.to_bytes().unwrap();
    assert!(matches!(
        Index::from_bytes(&bytes, None),
        Err(AssetError::Corrupt { .. })
    ));
}

#[cfg(feature = "ann")]
#[test]
fn hnsw_section_round_trips_and_supplies_dense_candidates() {
    let mut idx = index_with_scales(None);
    idx.ann = Some(std::sync::Arc::new(
        book_retrieval::ann::Ann::from_quantized(&idx.vectors, 0),
    ));
    let bytes = idx.to_bytes().unwrap();
    let loaded = Index::from_bytes(&bytes, Some(DIM)).unwrap();
    assert!(loaded.ann.is_some());
    let plain = Index::from_bytes(&good_bytes(), Some(DIM)).unwrap();
    assert!(plain.ann.is_none());
    // Same chunk vectors: the graph must find what the full scan finds.
    let mut q: Vec<f32> = (0..DIM).map(|i| i as f32 - 3.0).collect();
    book_retrieval::encoder::normalize(&mut q);
    let mut req = SearchRequest::new("", Some(&q));
    req.mode = book_retrieval::Mode::DenseOnly;
    let a: Vec<u32> = loaded.search(&req).hits.iter().map(|h| h.chunk).collect();
    let b: Vec<u32> = plain.search(&req).hits.iter().map(|h| h.chunk).collect();
    assert_eq!(a, b);
    // A corrupt graph is an error, not a panic; so are bytes after it.
    for len in (bytes.len() - 40)..bytes.len() {
        assert!(Index::from_bytes(&bytes[..len], None).is_err());
    }
}

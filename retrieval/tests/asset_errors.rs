//! Every kind of bad asset gets a typed error, never a panic: truncated, bit-flipped, empty,
//! wrong-magic, wrong-version, dimension-mismatched, NaN-bearing and mismatched files.

use book_retrieval::bm25::{Bm25, Bm25Doc, Bm25Params};
use book_retrieval::index::INDEX_VERSION;
use book_retrieval::vectors::QuantizedVectors;
use book_retrieval::{
    AssetError, ChunkMeta, ChunkTexts, Encoder, Index, IndexMeta, PageInfo, SearchRequest,
    SearchSettings,
};

const DIM: usize = 8;

fn index_with_scales(scales: Option<Vec<f32>>) -> Index {
    let chunks: Vec<ChunkMeta> = (0..3)
        .map(|i| ChunkMeta {
            id: format!("c{i}"),
            module: "M".into(),
            chapter: "Chapter".into(),
            section: Some(format!("Section {i}")),
            headings: vec!["Chapter".into(), format!("Section {i}")],
            url: format!("/docs/ch#section-{i}"),
            path: "ch.md".into(),
            has_code: false,
            page: 0,
        })
        .collect();
    let texts = ["nodes publish topics", "gazebo physics", "urdf joints"];
    let docs: Vec<Bm25Doc> = texts
        .iter()
        .map(|t| Bm25Doc {
            body: t,
            heading: "",
            titles: "",
        })
        .collect();
    let mut vectors: Vec<f32> = (0..3 * DIM).map(|i| ((i * 7) % 5) as f32 - 2.0).collect();
    for row in vectors.chunks_exact_mut(DIM) {
        book_retrieval::encoder::normalize(row);
    }
    let mut q = QuantizedVectors::quantize(&vectors, DIM);
    if let Some(s) = scales {
        q.scales = s;
    }
    Index {
        model_id: "test-model".into(),
        content_hash: String::new(),
        meta: IndexMeta {
            chunks,
            pages: vec![PageInfo {
                url: "/docs/ch".into(),
                title: "Chapter".into(),
                path: "ch.md".into(),
                module: "M".into(),
            }],
            settings: SearchSettings::default(),
            book_title: "Test".into(),
        },
        vectors: q,
        bm25: Bm25::build(&docs, Bm25Params::default()),
        ann: None,
    }
}

fn good_bytes() -> Vec<u8> {
    index_with_scales(None).to_bytes().unwrap()
}

#[test]
fn good_file_round_trips_and_searches() {
    let idx = Index::from_bytes(&good_bytes(), Some(DIM)).unwrap();
    assert_eq!(idx.len(), 3);
    let r = idx.search(&SearchRequest::new("which topics do nodes publish", None));
    assert_eq!(r.hits[0].chunk, 0);
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
                idx.model_id, "test-model",
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
    let bytes = index_with_scales(Some(vec![0.1, f32::NAN, 0.1]))
        .to_bytes()
        .unwrap();
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
    assert_eq!(r.hits[0].chunk, 1);
}

#[test]
fn texts_must_belong_to_the_index() {
    let idx = Index::from_bytes(&good_bytes(), None).unwrap();
    let texts = ChunkTexts::new(
        idx.content_hash.clone(),
        vec!["a".into(), "b".into(), "c".into()],
    );
    let bytes = texts.to_bytes().unwrap();
    assert_eq!(
        ChunkTexts::from_bytes(&bytes, &idx.content_hash, 3).unwrap(),
        texts
    );
    assert!(matches!(
        ChunkTexts::from_bytes(&bytes, "0000000000000000", 3),
        Err(AssetError::Mismatch { .. })
    ));
    assert!(matches!(
        ChunkTexts::from_bytes(&bytes, &idx.content_hash, 4),
        Err(AssetError::Mismatch { .. })
    ));
    for len in 0..bytes.len() {
        assert!(ChunkTexts::from_bytes(&bytes[..len], &idx.content_hash, 3).is_err());
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

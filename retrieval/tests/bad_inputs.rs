//! The bad-input matrix, extending `asset_errors.rs`: hostile questions and query vectors through
//! `Index::search` in every mode, and crafted asset files that carry a *valid* content hash (so the
//! checks behind the hash are what is tested). Each gets a clear error or a sane answer, never a
//! panic. The same questions go through a real book and the real encoder in
//! `index-builder/tests/real_asset.rs`.

use book_retrieval::hash::content_hash;
use book_retrieval::index::{INDEX_MAGIC, INDEX_VERSION, MAX_K};

/// The tiny index has no passage vectors, so it is written as format 1.
const TINY_VERSION: u32 = 1;
use book_retrieval::testing::{self, CHUNK_COUNT, DIM};
use book_retrieval::{AssetError, BinWriter, ChunkTexts, Encoder, Index, Mode, SearchRequest};

fn index() -> Index {
    testing::unwritten_index()
}

use testing::hostile_questions as questions;

fn vectors() -> Vec<Option<Vec<f32>>> {
    vec![
        None,
        Some(vec![0.5; DIM]),
        Some(vec![0.0; DIM]),
        Some(vec![f32::NAN; DIM]),
        Some(vec![f32::INFINITY; DIM]),
        Some(vec![1e30; DIM]),
        Some(vec![-1e-30; DIM]),
        Some(vec![0.5; DIM - 1]),
        Some(vec![0.5; DIM * 2]),
        Some(Vec::new()),
    ]
}

fn check_results(idx: &Index, q: &str, v: Option<&[f32]>, mode: Mode, k: usize) {
    let mut req = SearchRequest::new(q, v);
    req.mode = mode;
    req.k = k;
    testing::assert_sane_search(idx, &req);
}

#[test]
fn hostile_questions_and_vectors_in_every_mode() {
    let idx = Index::from_bytes(&index().to_bytes().unwrap(), Some(DIM)).unwrap();
    for q in questions() {
        for v in vectors() {
            for mode in [Mode::Hybrid, Mode::Bm25Only, Mode::DenseOnly] {
                for k in [0, 1, 5, MAX_K, usize::MAX] {
                    check_results(&idx, &q, v.as_deref(), mode, k);
                }
            }
        }
    }
}

#[test]
fn empty_and_blank_questions_without_a_vector_are_refused() {
    let idx = Index::from_bytes(&index().to_bytes().unwrap(), Some(DIM)).unwrap();
    for q in ["", " ", "\t\n", "the of and", "?!…"] {
        let r = idx.search(&SearchRequest::new(q, None));
        assert!(r.refused, "{q:?} was answered: {:?}", r.hits);
    }
}

#[test]
fn a_long_question_still_finds_its_term() {
    let idx = Index::from_bytes(&index().to_bytes().unwrap(), Some(DIM)).unwrap();
    let r = idx.search(&SearchRequest::new(&"gazebo ".repeat(143), None));
    assert_eq!(
        r.hits.first().map(|h| h.chunk),
        testing::chunk_with_url("/docs/sim/gazebo#physics-engine")
    );
}

/// An index file around `body`, with a correct hash for it.
fn file(version: u32, dim: u32, count: u32, body: &[u8]) -> Vec<u8> {
    let mut w = BinWriter::default();
    w.buf.extend_from_slice(INDEX_MAGIC);
    w.u32(version);
    w.str(testing::MODEL_ID);
    w.u32(dim);
    w.u32(count);
    w.str(&content_hash(body));
    w.bytes(body);
    w.buf
}

/// The body of the good index (everything after the header).
fn good_body() -> Vec<u8> {
    let bytes = index().to_bytes().unwrap();
    // magic 8, version 4, model id (4 + len), dim 4, count 4, hash (4 + 16), body length 8.
    bytes[8 + 4 + 4 + testing::MODEL_ID.len() + 4 + 4 + 20 + 8..].to_vec()
}

#[test]
fn crafted_headers_with_valid_hashes() {
    let body = good_body();
    let n = CHUNK_COUNT as u32;
    assert!(
        Index::from_bytes(&file(TINY_VERSION, DIM as u32, n, &body), None).is_ok(),
        "the helper must build a valid file"
    );
    for dim in [0u32, 4097, u32::MAX] {
        assert!(
            matches!(
                Index::from_bytes(&file(TINY_VERSION, dim, n, &body), None),
                Err(AssetError::Corrupt { .. })
            ),
            "dim {dim}"
        );
    }
    for count in [0u32, n - 1, n + 1, u32::MAX] {
        assert!(
            Index::from_bytes(&file(TINY_VERSION, DIM as u32, count, &body), None).is_err(),
            "count {count}"
        );
    }
    for version in [0u32, INDEX_VERSION + 1, u32::MAX] {
        assert!(matches!(
            Index::from_bytes(&file(version, DIM as u32, n, &body), None),
            Err(AssetError::UnsupportedVersion { .. })
        ));
    }
}

#[test]
fn crafted_bodies_with_valid_hashes() {
    let mut bodies: Vec<(&str, Vec<u8>)> = vec![("empty body", Vec::new())];
    // A section length far beyond the file (and u64::MAX): rejected before allocating.
    for len in [1u64 << 40, u64::MAX] {
        let mut b = len.to_le_bytes().to_vec();
        b.extend_from_slice(&[0; 32]);
        bodies.push(("huge length", b));
    }
    // Metadata that is not DEFLATE, and DEFLATE that is not JSON.
    let mut w = BinWriter::default();
    w.bytes(b"\xff\xff\xff not deflate");
    bodies.push(("bad deflate", w.buf));
    let mut w = BinWriter::default();
    w.bytes(&miniz_oxide::deflate::compress_to_vec(b"{not json", 6));
    bodies.push(("bad json", w.buf));
    // 1 MiB of '[' (valid DEFLATE, JSON nested far past serde_json's recursion limit).
    let mut w = BinWriter::default();
    w.bytes(&miniz_oxide::deflate::compress_to_vec(
        &vec![b'['; 1 << 20],
        9,
    ));
    bodies.push(("deep json", w.buf));
    for (what, body) in bodies {
        let r = Index::from_bytes(
            &file(TINY_VERSION, DIM as u32, CHUNK_COUNT as u32, &body),
            None,
        );
        assert!(r.is_err(), "{what} was accepted");
    }
}

#[test]
fn structurally_wrong_indexes_are_corrupt() {
    // A chunk pointing past the pages.
    let mut idx = index();
    idx.meta.chunks[2].page = 9;
    assert!(matches!(
        Index::from_bytes(&idx.to_bytes().unwrap(), None),
        Err(AssetError::Corrupt { .. })
    ));
    // Fewer scales than chunks.
    let mut idx = index();
    idx.vectors.scales.pop();
    assert!(Index::from_bytes(&idx.to_bytes().unwrap(), None).is_err());
    // An infinite scale.
    let mut idx = index();
    idx.vectors.scales[0] = f32::INFINITY;
    assert!(matches!(
        Index::from_bytes(&idx.to_bytes().unwrap(), None),
        Err(AssetError::NotFinite { .. })
    ));
}

#[test]
fn one_asset_kind_is_never_read_as_another() {
    let idx_bytes = index().to_bytes().unwrap();
    let idx = Index::from_bytes(&idx_bytes, None).unwrap();
    let texts = testing::texts().to_bytes().unwrap();
    assert!(matches!(
        Index::from_bytes(&texts, None),
        Err(AssetError::BadMagic { .. })
    ));
    assert!(matches!(
        Encoder::from_bytes(&idx_bytes),
        Err(AssetError::BadMagic { .. })
    ));
    assert!(matches!(
        ChunkTexts::from_bytes(&idx_bytes, &idx.content_hash, CHUNK_COUNT),
        Err(AssetError::BadMagic { .. })
    ));
    // Wrong versions of the other two files.
    let mut t = texts.clone();
    t[8..12].copy_from_slice(&9u32.to_le_bytes());
    assert!(matches!(
        ChunkTexts::from_bytes(&t, &idx.content_hash, CHUNK_COUNT),
        Err(AssetError::UnsupportedVersion { .. })
    ));
    let mut e = b"BKCHENC\0".to_vec();
    e.extend_from_slice(&9u32.to_le_bytes());
    assert!(matches!(
        Encoder::from_bytes(&e),
        Err(AssetError::UnsupportedVersion { .. })
    ));
    // Random bytes of many lengths.
    let mut s = 0x9e3779b97f4a7c15u64;
    for len in [1usize, 7, 8, 12, 64, 1000] {
        let junk: Vec<u8> = (0..len)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                s as u8
            })
            .collect();
        assert!(Index::from_bytes(&junk, None).is_err());
        assert!(Encoder::from_bytes(&junk).is_err());
        assert!(ChunkTexts::from_bytes(&junk, "x", 1).is_err());
    }
}

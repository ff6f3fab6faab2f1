//! A real book through the real encoder: the sample book (`www/docs`) is built with the model,
//! written as an asset, loaded back, and searched with every hostile question in every mode; then
//! every truncation of its encoder file must be an error, never a panic.

mod needs;

use book_retrieval::bm25::Bm25Params;
use book_retrieval::testing;
use book_retrieval::{Encoder, Mode, SearchRequest, SearchSettings};
use index_builder::build::{build, load_asset, write_asset, BuildOptions};
use index_builder::chunker::ChunkLimits;
use index_builder::docs::ReadOptions;
use index_builder::embed;

#[test]
#[ignore = "needs the model (BOOK_CHAT_MODEL_DIR or scripts/setup.sh); run in release"]
fn real_book_hostile_questions_and_truncated_encoder() {
    let model_dir = needs::model_dir();
    let docs = needs::repo().join("www/docs");
    let tmp = tempfile::tempdir().unwrap();
    let opts = BuildOptions {
        cache: Some(embed::default_cache_path(&docs)),
        docs,
        read: ReadOptions::default(),
        model_dir,
        limits: ChunkLimits::default(),
        settings: SearchSettings::default(),
        bm25: Bm25Params::default(),
        common_vocab: index_builder::build::DEFAULT_COMMON_VOCAB,
        word_min_uses: index_builder::build::DEFAULT_WORD_MIN_USES,
        word_rows: index_builder::build::DEFAULT_WORD_ROWS,
        pruned_words: index_builder::build::DEFAULT_PRUNED_WORDS,
        ann_min_chunks: usize::MAX,
        title: "sample book".into(),
        progress: false,
    };
    let built = build(&opts).expect("the sample book builds");
    let out = tmp.path().join("asset");
    let manifest = write_asset(&built, &out).expect("the asset is written");
    let asset = load_asset(&out).expect("the written asset loads");
    let encoder = asset.encoder.as_ref().expect("the asset has an encoder");
    let idx = &asset.index;
    for q in testing::hostile_questions() {
        let v = encoder.encode(&q);
        assert_eq!(v.len(), encoder.dim());
        assert!(
            v.iter().all(|x| x.is_finite()),
            "encoder gave non-finite values for {q:.40?}"
        );
        for mode in [Mode::Hybrid, Mode::Bm25Only, Mode::DenseOnly] {
            let mut req = SearchRequest::new(&q, Some(&v));
            req.mode = mode;
            testing::assert_sane_search(idx, &req);
        }
    }
    // Truncations across the whole encoder file (every one an error, none a panic).
    let enc_file = manifest
        .files
        .encoder
        .expect("the manifest names the encoder");
    let enc_bytes = std::fs::read(out.join(enc_file)).unwrap();
    let step = (enc_bytes.len() / 300).max(1);
    for len in (0..enc_bytes.len()).step_by(step) {
        assert!(
            Encoder::from_bytes(&enc_bytes[..len]).is_err(),
            "encoder truncated to {len} bytes was accepted"
        );
    }
}

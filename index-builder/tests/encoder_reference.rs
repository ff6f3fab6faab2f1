//! The Rust encoder against an independent numpy implementation of all-MiniLM-L6-v2
//! (`retrieval/tests/fixtures/make_reference.py`), in f32 and as shipped (int8, pruned, serialized).

mod needs;

use index_builder::model;

use book_retrieval::Encoder;

#[derive(serde::Deserialize)]
struct Reference {
    text: String,
    ids: Vec<u32>,
    embedding: Vec<f32>,
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

#[test]
#[ignore = "needs the model (BOOK_CHAT_MODEL_DIR or scripts/setup.sh)"]
fn encoder_matches_numpy_reference() {
    let dir = needs::model_dir();
    let refs: Vec<Reference> = serde_json::from_str(include_str!(
        "../../retrieval/tests/fixtures/reference.json"
    ))
    .unwrap();
    let f32_encoder = model::load_f32_encoder(&dir).unwrap();
    // Prune as the builder does: common ids plus every token the text (here: the references) uses.
    let mut keep: Vec<bool> = (0..f32_encoder.tokenizer.vocab_len())
        .map(|id| id < 12000)
        .collect();
    for id in refs.iter().flat_map(|r| &r.ids) {
        keep[*id as usize] = true;
    }
    let shipped = Encoder::from_bytes(&f32_encoder.quantized(&keep).to_bytes().unwrap()).unwrap();
    for r in &refs {
        assert_eq!(
            f32_encoder.tokenizer.encode(&r.text, 256),
            r.ids,
            "token ids of {:?}",
            r.text
        );
        let exact = f32_encoder.encode(&r.text);
        let c = cosine(&exact, &r.embedding);
        assert!(
            c > 0.9999,
            "f32 encoder vs reference cosine {c} for {:?}",
            r.text
        );
        let q = shipped.encode(&r.text);
        let cq = cosine(&q, &r.embedding);
        assert!(
            cq > 0.98,
            "int8 encoder vs reference cosine {cq} for {:?}",
            r.text
        );
        eprintln!("{:?}: f32 cosine {c:.6}, int8 cosine {cq:.6}", r.text);
    }
}

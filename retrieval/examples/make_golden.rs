//! Writes a golden asset fixture (`tests/golden/v<N>/`): a four-chunk index, its chunk texts and a
//! tiny deterministic encoder (1 layer, width 8, no real weights; from v2 on, quantized with the
//! shipped plan calibrated on the chunk texts), plus `expected.json` with what a loader must get
//! out of them. `tests/golden.rs` checks every loader against these files forever.
//!
//! Run once per format version, with the writer of that version:
//! `cargo run -p book-retrieval --example make_golden -- retrieval/tests/golden/v1` (v4: add
//! `fitted`, so that its encoder has fitted codebooks, which only version 4 holds; `index-v2`: add
//! `passages`, so that the index carries passage vectors, which index version 2 added).
//! The files are committed; regenerating an existing version's folder is a mistake.

use std::path::PathBuf;

use book_retrieval::bm25::{Bm25, Bm25Doc, Bm25Params};
use book_retrieval::encoder::{
    Encoder, EncoderConfig, Layer, LayerNorm, Linear, WordEmbeddings, MODEL_ID,
};
use book_retrieval::tokenizer::WordPiece;
use book_retrieval::vectors::QuantizedVectors;
use book_retrieval::{
    ChunkMeta, ChunkTexts, Index, IndexMeta, PageInfo, PassageVectors, SearchRequest,
    SearchSettings,
};
use serde_json::json;

/// The questions whose encodings and hits `expected.json` records.
const QUERIES: [&str; 3] = [
    "which topics do nodes publish",
    "gazebo physics simulation",
    "urdf joints and links",
];

/// Words of the tiny vocabulary, after BERT's 104 special and unused ids.
const WORDS: &str = "the a and of to do which nodes node publish topics topic gazebo physics \
simulation urdf joints joint links link robot sensor camera message messages ##s ##ing ros";

/// Chunk texts of the fixture book: (section, text).
const CHUNKS: [(&str, &str); 4] = [
    ("Nodes", "nodes publish topics and a node sends messages"),
    ("Gazebo", "gazebo physics simulation of the robot"),
    ("URDF", "urdf joints and links of a robot"),
    ("Sensors", "a camera sensor publish messages"),
];

/// A deterministic pseudo-random stream (64-bit LCG), so the fixture needs no `rand` dependency.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }
    fn vec(&mut self, n: usize, amp: f32) -> Vec<f32> {
        (0..n).map(|_| self.next() * amp).collect()
    }
}

fn tiny_encoder() -> Result<Encoder, Box<dyn std::error::Error>> {
    let mut vocab: Vec<String> = vec!["[PAD]".into()];
    vocab.extend((1..100).map(|i| format!("[unused{i}]")));
    vocab.extend(["[UNK]", "[CLS]", "[SEP]", "[MASK]"].map(String::from));
    vocab.extend(WORDS.split_whitespace().map(String::from));
    let vocab_text = vocab.join("\n") + "\n";
    let tokenizer = WordPiece::from_vocab_text(&vocab_text)?;
    let config = EncoderConfig {
        hidden: 8,
        layers: 1,
        heads: 2,
        intermediate: 16,
        max_positions: 32,
    };
    let h = config.hidden;
    let mut rng = Lcg(0x5eed);
    let mut linear = |out: usize, inp: usize| Linear::F32 {
        w: rng.vec(out * inp, 0.5),
        b: rng.vec(out, 0.1),
        out,
        inp,
    };
    let norm = |rng: &mut Lcg| LayerNorm {
        gamma: rng.vec(h, 0.2).iter().map(|g| 1.0 + g).collect(),
        beta: rng.vec(h, 0.1),
    };
    let layer = Layer {
        query: linear(h, h),
        key: linear(h, h),
        value: linear(h, h),
        attn_out: linear(h, h),
        attn_norm: LayerNorm {
            gamma: vec![1.0; h],
            beta: vec![0.0; h],
        },
        ff_in: linear(config.intermediate, h),
        ff_out: linear(h, config.intermediate),
        ff_norm: LayerNorm {
            gamma: vec![1.0; h],
            beta: vec![0.0; h],
        },
    };
    let mut rng = Lcg(0xfeed);
    let embed_norm = norm(&mut rng);
    Ok(Encoder {
        config,
        words: WordEmbeddings::F32(rng.vec(tokenizer.vocab_len() * h, 1.0)),
        positions: rng.vec(config.max_positions * h, 0.1),
        position_codes: None,
        token_type: rng.vec(h, 0.05),
        embed_norm,
        layers: vec![layer],
        tokenizer,
        vocab_text,
    })
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let out = PathBuf::from(std::env::args().nth(1).ok_or("usage: make_golden DIR")?);
    std::fs::create_dir_all(&out)?;
    let exact = tiny_encoder()?;
    let keep = vec![true; exact.tokenizer.vocab_len()];
    let texts: Vec<&str> = CHUNKS.iter().map(|(_, t)| *t).collect();
    // `make_golden DIR fitted`: every matrix with a fitted codebook (encoder file version 4).
    let fitted = std::env::args().nth(2).as_deref() == Some("fitted");
    let with_passages = std::env::args().nth(2).as_deref() == Some("passages");
    let plan = book_retrieval::encoder::QuantPlan {
        fitted: [fitted; 6],
        word_fitted: fitted,
        ..Default::default()
    };
    let shipped = exact.quantized_with(&keep, &plan, &exact.input_ranges(&texts, &plan));
    let encoder_bytes = shipped.to_bytes()?;

    let chunks: Vec<ChunkMeta> = CHUNKS
        .iter()
        .enumerate()
        .map(|(i, (section, _))| ChunkMeta {
            id: format!("golden{i}"),
            module: "Golden".into(),
            chapter: "Fixture".into(),
            section: Some((*section).into()),
            headings: vec!["Fixture".into(), (*section).into()],
            url: format!("/docs/fixture#{}", section.to_lowercase()),
            path: "fixture.md".into(),
            has_code: false,
            page: 0,
        })
        .collect();
    let mut vectors = Vec::new();
    for (section, text) in CHUNKS {
        vectors.extend(exact.encode(&format!("Fixture > {section}\n{text}")));
    }
    // Index version 2: each chunk's two halves as passages (heading path first, as the builder
    // embeds them), so a question about one half is closer to its passage than to the chunk.
    let passages = with_passages.then(|| {
        let mut chunk_of = Vec::new();
        let mut passage_vectors = Vec::new();
        for (i, (section, text)) in CHUNKS.iter().enumerate() {
            let words: Vec<&str> = text.split_whitespace().collect();
            let (a, b) = words.split_at(words.len() / 2);
            for half in [a, b] {
                chunk_of.push(i as u32);
                passage_vectors
                    .extend(exact.encode(&format!("Fixture > {section}\n{}", half.join(" "))));
            }
        }
        Box::new(PassageVectors {
            chunk_of,
            vectors: QuantizedVectors::quantize(&passage_vectors, exact.dim()),
        })
    });
    let docs: Vec<Bm25Doc> = CHUNKS
        .iter()
        .map(|(section, text)| Bm25Doc {
            body: text,
            heading: section,
            titles: "Fixture",
        })
        .collect();
    let index = Index {
        model_id: MODEL_ID.into(),
        content_hash: String::new(),
        meta: IndexMeta {
            chunks,
            pages: vec![PageInfo {
                url: "/docs/fixture".into(),
                title: "Fixture".into(),
                path: "fixture.md".into(),
                module: "Golden".into(),
            }],
            settings: SearchSettings::default(),
            book_title: "Golden fixture".into(),
            common_words: Default::default(),
            unaskable: Vec::new(),
            follow_ups: Vec::new(),
        },
        vectors: QuantizedVectors {
            passages,
            ..QuantizedVectors::quantize(&vectors, exact.dim())
        },
        bm25: Bm25::build(&docs, Bm25Params::default()),
        ann: None,
    };
    let index_bytes = index.to_bytes()?;
    let loaded = Index::from_bytes(&index_bytes, Some(exact.dim()))?;
    let texts: Vec<String> = CHUNKS.iter().map(|(_, t)| (*t).to_string()).collect();
    let texts_bytes = ChunkTexts::new(loaded.content_hash.clone(), texts.clone()).to_bytes()?;

    let reloaded = Encoder::from_bytes(&encoder_bytes)?;
    let queries: Vec<_> = QUERIES
        .iter()
        .map(|q| {
            let v = reloaded.encode(q);
            let hybrid = loaded.search(&SearchRequest::new(q, Some(&v)));
            let bm25 = loaded.search(&SearchRequest::new(q, None));
            json!({
                "query": q,
                "ids": reloaded.tokenizer.encode(q, 32),
                "vector": v,
                "hybrid_hits": hybrid.hits.iter().map(|h| h.chunk).collect::<Vec<_>>(),
                "hybrid_scores": hybrid.hits.iter().map(|h| h.score).collect::<Vec<_>>(),
                "bm25_hits": bm25.hits.iter().map(|h| h.chunk).collect::<Vec<_>>(),
            })
        })
        .collect();
    let expected = json!({
        "index_hash": loaded.content_hash,
        "dim": exact.dim(),
        "chunks": CHUNKS.len(),
        "texts": texts,
        "queries": queries,
    });
    std::fs::write(out.join("index.bin"), &index_bytes)?;
    std::fs::write(out.join("chunks.bin"), &texts_bytes)?;
    std::fs::write(out.join("encoder.bin"), &encoder_bytes)?;
    std::fs::write(
        out.join("expected.json"),
        serde_json::to_string_pretty(&expected)? + "\n",
    )?;
    println!(
        "wrote {} (index {} B, chunks {} B, encoder {} B)",
        out.display(),
        index_bytes.len(),
        texts_bytes.len(),
        encoder_bytes.len()
    );
    Ok(())
}

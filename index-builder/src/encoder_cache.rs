//! The shipped encoder's quantized layers from the previous build of the same book, reused when
//! nothing they depend on changed: calibrating and rounding them is most of a rebuild's time, while
//! a one-page edit rarely touches the calibration texts (each chunk's first 120 characters).
//!
//! The key covers everything the layers are computed from (the exact model's parameters other than
//! the word table, the plan, the file format version, the builder's version and the calibration texts), so a hit gives
//! byte for byte the encoder a fresh build would. The word table is always rebuilt (quick, and it
//! follows the book's vocabulary).

use std::path::{Path, PathBuf};

use book_retrieval::encoder::{QuantPlan, ENCODER_VERSION, QUESTION_TOKENS};
use book_retrieval::hash::content_hash;
use book_retrieval::Encoder;
use sha2::{Digest, Sha256};

/// The layer cache next to a book's embedding cache.
pub fn path_for(embedding_cache: &Path) -> PathBuf {
    embedding_cache.with_extension("layers.bin")
}

/// What the quantized layers depend on, hashed.
pub fn key(exact: &Encoder, plan: &QuantPlan, texts: &[&str]) -> String {
    let mut h = Sha256::new();
    // The builder's version too: a new release may round differently with the same plan.
    h.update(
        format!(
            "builder {} encoder v{ENCODER_VERSION} positions {QUESTION_TOKENS} {plan:?}\0",
            env!("CARGO_PKG_VERSION")
        )
        .as_bytes(),
    );
    let mut floats = |v: &[f32]| {
        for x in v {
            h.update(x.to_le_bytes());
        }
    };
    floats(&exact.positions);
    floats(&exact.token_type);
    floats(&exact.embed_norm.gamma);
    floats(&exact.embed_norm.beta);
    for l in &exact.layers {
        for lin in [&l.query, &l.key, &l.value, &l.attn_out, &l.ff_in, &l.ff_out] {
            if let book_retrieval::encoder::Linear::F32 { w, b, .. } = lin {
                floats(w);
                floats(b);
            }
        }
        for n in [&l.attn_norm, &l.ff_norm] {
            floats(&n.gamma);
            floats(&n.beta);
        }
    }
    for t in texts {
        h.update(t.as_bytes());
        h.update([0u8]);
    }
    content_hash(&h.finalize())
}

/// The cached encoder if its key is `key` (any unreadable or stale file is a miss).
pub fn load(path: &Path, key: &str) -> Option<Encoder> {
    let bytes = std::fs::read(path).ok()?;
    let rest = bytes.strip_prefix(key.as_bytes())?.strip_prefix(b"\n")?;
    Encoder::from_bytes(rest).ok()
}

/// Stores `encoder` under `key`, replacing the previous entry (a failure only costs the next build
/// time, so it is reported and ignored).
pub fn save(path: &Path, key: &str, encoder: &Encoder) {
    let write = || -> anyhow::Result<()> {
        let mut out = format!("{key}\n").into_bytes();
        out.extend(encoder.to_bytes()?);
        // A temp name of our own (as the embedding cache does): two builds of one book saving at
        // once (`docusaurus start` while `docusaurus build` runs) must not write into one file.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, &out)?;
        std::fs::rename(&tmp, path)?;
        Ok(())
    };
    if let Err(e) = write() {
        eprintln!(
            "note: cannot write the encoder layer cache {}: {e}",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_or_missing_entry_is_a_miss_and_a_saved_one_a_hit() {
        let enc = Encoder::from_bytes(include_bytes!(
            "../../retrieval/tests/golden/v2/encoder.bin"
        ))
        .unwrap();
        let dir = std::env::temp_dir().join(format!("layer-cache-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = path_for(&dir.join("embeddings-x.bin"));
        assert!(load(&path, "k1").is_none());
        save(&path, "k1", &enc);
        let back = load(&path, "k1").unwrap();
        assert_eq!(back.to_bytes().unwrap(), enc.to_bytes().unwrap());
        assert!(load(&path, "k2").is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_key_follows_the_texts_and_the_plan() {
        let enc = Encoder::from_bytes(include_bytes!(
            "../../retrieval/tests/golden/v2/encoder.bin"
        ))
        .unwrap();
        let plan = QuantPlan::default();
        let k = key(&enc, &plan, &["a", "b"]);
        assert_eq!(k, key(&enc, &plan, &["a", "b"]));
        assert_ne!(k, key(&enc, &plan, &["a", "c"]));
        assert_ne!(k, key(&enc, &plan, &["ab"]));
        let other = QuantPlan {
            layer_group: 64,
            ..plan
        };
        assert_ne!(k, key(&enc, &other, &["a", "b"]));
    }
}

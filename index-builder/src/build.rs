//! The build pipeline: read the docs, chunk, embed, index, and write the asset folder.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use book_retrieval::bm25::{Bm25, Bm25Doc, Bm25Params};
use book_retrieval::encoder::{never_emitted, PrunedWords, QuantPlan, MODEL_ID};
use book_retrieval::manifest::{Manifest, ManifestFiles, MANIFEST_VERSION};
use book_retrieval::vectors::QuantizedVectors;
use book_retrieval::{ChunkTexts, Encoder, Index, IndexMeta, PageInfo, SearchSettings};

use crate::chunker::{chunk_page, BuiltChunk, ChunkLimits};
use crate::docs::{read_book, Book, ReadOptions, Warning};
use crate::embed::EmbeddingCache;

/// Everything a build needs to know.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// The Docusaurus docs folder.
    pub docs: PathBuf,
    /// How the site is configured (routes, Markdown format).
    pub read: ReadOptions,
    /// The folder of the exact model (`model.safetensors`, `vocab.txt`).
    pub model_dir: PathBuf,
    /// Embedding cache file; `None` embeds every chunk.
    pub cache: Option<PathBuf>,
    /// Chunk sizes.
    pub limits: ChunkLimits,
    /// Search settings stored in the asset.
    pub settings: SearchSettings,
    /// BM25 parameters stored in the asset.
    pub bm25: Bm25Params,
    /// Vocabulary ids below this are kept in the shipped encoder whether or not the book uses them
    /// (BERT's vocabulary lists common English words first), except non-ASCII tokens (about 930 of
    /// the first 6 000: accented letters, CJK and other scripts' characters, symbols).
    /// [`DEFAULT_COMMON_VOCAB`] by default.
    pub common_vocab: usize,
    /// The book's own tokens get a row when the book uses them at least this often (counted over
    /// the chunks' encoder inputs) or in a heading or title. [`DEFAULT_WORD_MIN_USES`] by default.
    pub word_min_uses: usize,
    /// Rows of the word table, common ids included, that the book's tokens may fill: the most
    /// used first, headings' tokens before any other. [`DEFAULT_WORD_ROWS`] by default.
    pub word_rows: usize,
    /// What the tokens left out of the word table read: `[UNK]`'s row, or the kept row nearest
    /// their own embedding (`Encoder::remap_pruned`).
    pub pruned_words: PrunedWords,
    /// Books with at least this many chunks get an HNSW graph for dense search; smaller ones are
    /// scanned in full (faster there, and exact).
    pub ann_min_chunks: usize,
    /// The book's title (for prompts).
    pub title: String,
    /// Print progress and timings to stderr.
    pub progress: bool,
}

/// The result of a build, in memory.
pub struct BuiltBook {
    /// What the docs reader read.
    pub book: Book,
    /// Every chunk, in index order.
    pub chunks: Vec<BuiltChunk>,
    /// Exact f32 vectors, one row per chunk (the evaluation's reference).
    pub exact_vectors: Vec<f32>,
    /// The index, as loaded back from its own bytes.
    pub index: Index,
    /// The shipped (int8, pruned) encoder.
    pub encoder: Encoder,
    /// Chunks embedded in this build (the rest came from the cache).
    pub embedded: usize,
}

/// The passages of every chunk longer than one passage: (chunk, text to embed: heading path,
/// then the passage), in chunk order.
fn passage_texts(chunks: &[BuiltChunk]) -> (Vec<u32>, Vec<String>) {
    let (mut chunk_of, mut texts) = (Vec::new(), Vec::new());
    for (i, c) in chunks.iter().enumerate() {
        let parts = crate::chunker::passages(&c.search_text);
        if parts.len() < 2 {
            continue;
        }
        let context = c.chunk.meta.headings.join(" › ");
        for p in parts {
            chunk_of.push(i as u32);
            texts.push(format!("{context}\n{p}"));
        }
    }
    (chunk_of, texts)
}

/// Reads, chunks, embeds and indexes the book.
pub fn build(opts: &BuildOptions) -> Result<BuiltBook> {
    let t0 = Instant::now();
    let mut book = read_book(&opts.docs, &opts.read)
        .with_context(|| format!("cannot read the docs at {}", opts.docs.display()))?;
    // A stub page is left out as a `chat: false` page is, with a warning naming it.
    for page in book.pages.iter_mut().filter(|p| p.chat) {
        if let Some(notice) = crate::stub_pages::notice(page) {
            book.warnings.push(Warning::new(
                &page.path,
                None,
                format!(
                    "only a placeholder (\"{notice}\"): left out of the chat index until it has content"
                ),
            ));
            page.chat = false;
        }
    }
    // Still in path order (stable: a page's own warnings keep their order).
    book.warnings.sort_by(|a, b| a.path.cmp(&b.path));
    let mut chunks = Vec::new();
    let mut pages = Vec::new();
    for page in book.pages.iter().filter(|p| p.chat) {
        let page_no = pages.len() as u32;
        pages.push(PageInfo {
            url: page.url.clone(),
            title: page.title.clone(),
            path: page.path.clone(),
            module: page.module.clone(),
        });
        chunks.extend(chunk_page(page, page_no, opts.limits));
    }
    if chunks.is_empty() {
        anyhow::bail!(
            "no text to index in {} (no .md/.mdx pages with content)",
            opts.docs.display()
        );
    }
    let f32_encoder = crate::model_pack::load_encoder(&opts.model_dir)?;
    let mut cache = EmbeddingCache::open(opts.cache.as_deref(), f32_encoder.dim());
    let texts: Vec<String> = chunks.iter().map(|c| c.embed_text.clone()).collect();
    let (exact_vectors, embedded) = cache.embed_all(&f32_encoder, &texts, opts.progress);
    // Passage vectors only when the settings use them (a book built without them stays format 1).
    let passages = (opts.settings.passage_weight > 0.0).then(|| {
        let (chunk_of, passage_texts) = passage_texts(&chunks);
        let (v, _) = cache.embed_all(&f32_encoder, &passage_texts, opts.progress);
        book_retrieval::PassageVectors {
            chunk_of,
            vectors: QuantizedVectors::quantize(&v, f32_encoder.dim()),
        }
    });
    cache.save()?;
    let dim = f32_encoder.dim();
    let docs: Vec<Bm25Doc> = chunks
        .iter()
        .map(|c| Bm25Doc {
            body: &c.search_text,
            heading: &c.heading,
            titles: &c.titles,
        })
        .collect();
    let bm25 = Bm25::build(&docs, opts.bm25);
    let meta = IndexMeta {
        chunks: chunks.iter().map(|c| c.chunk.meta.clone()).collect(),
        pages,
        settings: opts.settings,
        book_title: opts.title.clone(),
        common_words: crate::common_words::for_book(
            &bm25,
            Some(&f32_encoder),
            chunks
                .iter()
                .flat_map(|c| [c.search_text.as_str(), &c.heading, &c.titles]),
        ),
        // Marked by the calibration (`calibrate::apply`), which sets the refusal thresholds.
        unaskable: Vec::new(),
        follow_ups: crate::follow_ups::phrase(&chunks),
    };
    let mut vectors = QuantizedVectors::quantize(&exact_vectors, dim);
    vectors.passages = passages.map(Box::new);
    // Above the crossover an HNSW graph replaces the brute-force scan for dense candidates.
    let ann = (chunks.len() >= opts.ann_min_chunks)
        .then(|| std::sync::Arc::new(book_retrieval::ann::Ann::from_quantized(&vectors, 0)));
    let mut index = Index {
        model_id: MODEL_ID.to_string(),
        content_hash: String::new(),
        meta,
        vectors,
        bm25,
        ann,
    };
    // The hash is computed while serializing; load it back so the in-memory index is exactly the file's.
    let bytes = index.to_bytes()?;
    index = Index::from_bytes(&bytes, Some(dim))?;
    let t_quant = Instant::now();
    let plan = QuantPlan::default();
    let texts = calibration_texts(&chunks);
    let keep = vocab_to_keep(
        &f32_encoder,
        &chunks,
        opts.common_vocab,
        opts.word_min_uses,
        opts.word_rows,
    );
    // The layers of the last build when their inputs are unchanged (`encoder_cache`).
    let layer_cache = opts.cache.as_deref().map(crate::encoder_cache::path_for);
    let key = crate::encoder_cache::key(&f32_encoder, &plan, &texts);
    let cached = layer_cache
        .as_deref()
        .and_then(|p| crate::encoder_cache::load(p, &key));
    let reused = cached.is_some();
    let mut encoder = match cached {
        Some(mut encoder) => {
            encoder.words = f32_encoder.quantized_words(&keep, &plan);
            encoder
        }
        None => {
            let calibration = f32_encoder.input_ranges(&texts, &plan);
            let encoder = f32_encoder.quantized_with(&keep, &plan, &calibration);
            if let Some(p) = &layer_cache {
                crate::encoder_cache::save(p, &key, &encoder);
            }
            encoder
        }
    };
    f32_encoder.remap_pruned(&mut encoder.words, opts.pruned_words);
    if opts.progress {
        eprintln!(
            "quantized the question encoder in {:.1}s ({})",
            t_quant.elapsed().as_secs_f32(),
            if reused {
                "layers of the previous build: calibration texts unchanged"
            } else {
                "calibrated on the book's text"
            }
        );
        // Pages read but kept out of the chat (`chat: false`, placeholders) are counted apart.
        let left_out = book.pages.len() - index.meta.pages.len();
        eprintln!(
            "indexed {} pages{}, {} chunks ({} embedded, {} cached) in {:.1}s",
            index.meta.pages.len(),
            if left_out > 0 {
                format!(" ({left_out} more read and left out of the chat)")
            } else {
                String::new()
            },
            chunks.len(),
            embedded,
            chunks.len() - embedded,
            t0.elapsed().as_secs_f32()
        );
    }
    Ok(BuiltBook {
        book,
        chunks,
        exact_vectors,
        index,
        encoder,
        embedded,
    })
}

/// At most [`CALIBRATION_TEXTS`] chunk texts, each cut to a question's length: the inputs the
/// encoder's quantization is fitted to (the book's own text; no labelled question is ever used).
/// Chosen by the hash of the cut text (the smallest hashes, in hash order), not by position: a
/// uniform sample of the book that an edit elsewhere, or a section added anywhere, leaves as it
/// was unless the new text's hash ranks among the chosen, so the layer cache (`encoder_cache`)
/// still serves most one-page edits. Taking every n-th chunk, a section added near the start
/// shifted every sample and refitted the layers (8.9 s of a 10 s rebuild of the Docusaurus docs).
fn calibration_texts(chunks: &[BuiltChunk]) -> Vec<&str> {
    let mut texts: Vec<([u8; 8], &str)> = chunks
        .iter()
        .map(|c| {
            let t = c.embed_text.as_str();
            let mut end = t.len().min(CALIBRATION_CHARS);
            while !t.is_char_boundary(end) {
                end -= 1;
            }
            let t = &t[..end];
            let digest = <sha2::Sha256 as sha2::Digest>::digest(t.as_bytes());
            let mut key = [0u8; 8];
            key.copy_from_slice(&digest[..8]);
            (key, t)
        })
        .collect();
    texts.sort_unstable();
    texts.dedup();
    texts.truncate(CALIBRATION_TEXTS);
    texts.into_iter().map(|(_, t)| t).collect()
}

/// How many chunk texts calibrate the encoder's quantization.
const CALIBRATION_TEXTS: usize = 256;
/// Characters of each calibration text: about 30 tokens, a question's length. On the labelled
/// questions (`tests/encoder_plans.rs`-style measurement, sample book paragraphs) 256 texts of
/// 120 characters gave a mean cosine to the f32 model of 0.9913 (min 0.9787) where 128 of 400
/// gave 0.9902 (min 0.9615), with 40 % fewer tokens to run through the f32 model.
const CALIBRATION_CHARS: usize = 120;

/// Common English vocabulary ids, one flag per id: the ASCII tokens among the first `common` ids
/// (BERT's vocabulary lists frequent words first). What every build keeps whatever its book.
pub fn common_vocab(encoder: &Encoder, common: usize) -> Vec<bool> {
    let mut keep: Vec<bool> = encoder
        .vocab_text
        .lines()
        .take(common)
        .map(str::is_ascii)
        .collect();
    keep.resize(encoder.tokenizer.vocab_len(), false);
    keep
}

/// Vocabulary ids whose embeddings ship: [`common_vocab`] plus the book's own tokens that it uses
/// at least `min_uses` times or in a heading, the most used first (heading tokens before the
/// rest), until the table has `rows` rows. Each row costs about 170 bytes of the encoder
/// download, and a book's rarest tokens are the ones its readers least often type; a token left
/// out reads as its nearest kept row ([`DEFAULT_PRUNED_WORDS`]), and BM25 still matches it exactly.
fn vocab_to_keep(
    encoder: &Encoder,
    chunks: &[BuiltChunk],
    common: usize,
    min_uses: usize,
    rows: usize,
) -> Vec<bool> {
    let mut keep = common_vocab(encoder, common);
    let mut uses = vec![0usize; keep.len()];
    let mut in_heading = vec![false; keep.len()];
    for c in chunks {
        for id in encoder.tokenizer.encode(&c.embed_text, usize::MAX) {
            if let Some(u) = uses.get_mut(id as usize) {
                *u += 1;
            }
        }
        for text in [&c.heading, &c.titles] {
            for id in encoder.tokenizer.encode(text, usize::MAX) {
                if let Some(h) = in_heading.get_mut(id as usize) {
                    *h = true;
                }
            }
        }
    }
    // [CLS], [SEP] and the like are never an ordinary row (the encoder adds its own).
    let tokens: Vec<&str> = encoder.vocab_text.lines().collect();
    let ordinary = |id: usize| !tokens.get(id).is_some_and(|t| never_emitted(t));
    let mut wanted: Vec<usize> = (0..keep.len())
        .filter(|&id| {
            !keep[id] && ordinary(id) && (in_heading[id] || (uses[id] > 0 && uses[id] >= min_uses))
        })
        .collect();
    wanted.sort_by(|&a, &b| {
        in_heading[b]
            .cmp(&in_heading[a])
            .then(uses[b].cmp(&uses[a]))
            .then(a.cmp(&b))
    });
    // Rows that ship: kept ids the tokenizer can emit (the common ids include ~1000 `[unusedN]`).
    let shipped = (0..keep.len())
        .filter(|&id| keep[id] && ordinary(id))
        .count();
    let room = rows.saturating_sub(shipped);
    for id in wanted.into_iter().take(room) {
        keep[id] = true;
    }
    keep
}

/// How often the book must use a token of its own for the token to get a row by default
/// (`--word-min-uses`; headings' tokens always qualify). Tokens used once are a third to a half of
/// a book's own tokens (1 281 of about 4 000 in the largest labelled book) and 0.13–0.22 MB of the
/// encoder on the labelled books.
pub const DEFAULT_WORD_MIN_USES: usize = 2;

/// Word-table rows a default build fills with the book's tokens (`--word-rows`, common ids
/// included): with the layers' 5.3 MB the encoder stays inside 6 MB whatever the book's vocabulary.
pub const DEFAULT_WORD_ROWS: usize = 3900;

/// The common vocabulary a build keeps by default (`--common-vocab`): with the pruned tokens read
/// as their nearest kept row ([`DEFAULT_PRUNED_WORDS`]), 3 000 ids give the same or better section
/// recall than 6 000 read as `[UNK]`, for an encoder 0.26–0.35 MB smaller (retrieval/FORMAT.md).
pub const DEFAULT_COMMON_VOCAB: usize = 3000;

/// How a default build embeds the tokens it leaves out of the word table (`--pruned-words`): as
/// the kept row nearest their own embedding, so a reader's word the book never uses keeps an
/// approximate meaning instead of reading as `[UNK]`.
pub const DEFAULT_PRUNED_WORDS: PrunedWords = PrunedWords::NearestCosine { min_percent: 0 };

/// Writes the asset folder: content-hashed index, texts and encoder files plus `manifest.json`,
/// removing files of earlier builds.
pub fn write_asset(built: &BuiltBook, out: &Path) -> Result<Manifest> {
    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let index_bytes = built.index.to_bytes()?;
    let texts = ChunkTexts::new(
        built.index.content_hash.clone(),
        built.chunks.iter().map(|c| c.chunk.text.clone()).collect(),
    );
    let text_bytes = texts.to_bytes()?;
    let encoder_bytes = built.encoder.to_bytes()?;
    let name = |stem: &str, bytes: &[u8]| {
        format!("{stem}.{}.bin", book_retrieval::hash::content_hash(bytes))
    };
    let files = ManifestFiles {
        index: name("index", &index_bytes),
        chunks: name("chunks", &text_bytes),
        encoder: Some(name("encoder", &encoder_bytes)),
    };
    for (file, bytes) in [(&files.index, &index_bytes), (&files.chunks, &text_bytes)] {
        write_file(&out.join(file), bytes)?;
    }
    if let Some(enc) = &files.encoder {
        write_file(&out.join(enc), &encoder_bytes)?;
    }
    let manifest = Manifest {
        format_version: MANIFEST_VERSION,
        model_id: MODEL_ID.to_string(),
        content_hash: built.index.content_hash.clone(),
        dim: built.index.dim(),
        chunks: built.index.len(),
        files: files.clone(),
        language: None,
    };
    let keep = [
        Some(&files.index),
        Some(&files.chunks),
        files.encoder.as_ref(),
    ];
    if let Ok(entries) = std::fs::read_dir(out) {
        for e in entries.flatten() {
            let n = e.file_name().to_string_lossy().to_string();
            let ours = ["index.", "chunks.", "encoder."]
                .iter()
                .any(|p| n.starts_with(p))
                && n.ends_with(".bin");
            if ours && !keep.iter().flatten().any(|k| **k == n) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    write_file(
        &out.join("manifest.json"),
        serde_json::to_string_pretty(&manifest)?.as_bytes(),
    )?;
    Ok(manifest)
}

fn write_file(path: &Path, bytes: &[u8]) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// A loaded asset folder: what `query` (and the browser) search.
pub struct LoadedAsset {
    /// The index.
    pub index: Index,
    /// The encoder, when the manifest names one.
    pub encoder: Option<Encoder>,
}

/// Reads an asset folder's manifest with the same checks as the widget and the proxy
/// (`Manifest::parse`: format version, plain file names).
pub fn read_manifest(dir: &Path) -> Result<Manifest> {
    let mpath = dir.join("manifest.json");
    let bytes = std::fs::read(&mpath).with_context(|| {
        format!(
            "cannot read {} (is --index the folder `build --out` wrote?)",
            mpath.display()
        )
    })?;
    Manifest::parse(&bytes).with_context(|| format!("cannot use {}", mpath.display()))
}

/// Loads an asset folder through its manifest.
pub fn load_asset(dir: &Path) -> Result<LoadedAsset> {
    let manifest = read_manifest(dir)?;
    let encoder = match &manifest.files.encoder {
        Some(f) => {
            let p = dir.join(f);
            let bytes =
                std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
            Some(
                Encoder::from_bytes(&bytes)
                    .with_context(|| format!("cannot load {}", p.display()))?,
            )
        }
        None => None,
    };
    let p = dir.join(&manifest.files.index);
    let bytes = std::fs::read(&p).with_context(|| format!("cannot read {}", p.display()))?;
    let index = Index::from_bytes(&bytes, encoder.as_ref().map(Encoder::dim))
        .with_context(|| format!("cannot load {}", p.display()))?;
    Ok(LoadedAsset { index, encoder })
}

#[cfg(test)]
mod tests {
    use super::*;
    use book_retrieval::testing;

    #[test]
    fn calibration_texts_survive_a_section_added_anywhere() {
        let texts: Vec<String> = (0..600)
            .map(|i| format!("Page › Section {i}\nParagraph number {i} of the book."))
            .collect();
        let chunks: Vec<BuiltChunk> = texts.iter().map(|t| chunk("Section", t)).collect();
        let before: Vec<String> = calibration_texts(&chunks)
            .into_iter()
            .map(String::from)
            .collect();
        assert_eq!(before.len(), CALIBRATION_TEXTS);
        let mut distinct = before.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), CALIBRATION_TEXTS);
        // A section added at the start: at most the new text comes in (and one goes out).
        let mut edited = vec![chunk("New", "Page › New\nA section added at the start.")];
        edited.extend(texts.iter().map(|t| chunk("Section", t)));
        let after = calibration_texts(&edited);
        let changed = after
            .iter()
            .filter(|t| !before.contains(&t.to_string()))
            .count();
        assert!(changed <= 1, "{changed} calibration texts changed");
        // A short book: every chunk, each once.
        assert_eq!(calibration_texts(&chunks[..10]).len(), 10);
    }

    fn chunk(heading: &str, embed_text: &str) -> BuiltChunk {
        BuiltChunk {
            chunk: book_retrieval::Chunk {
                meta: book_retrieval::ChunkMeta {
                    id: String::new(),
                    module: String::new(),
                    chapter: String::new(),
                    section: Some(heading.into()),
                    headings: vec![heading.into()],
                    url: "/docs/a".into(),
                    path: "a.md".into(),
                    has_code: false,
                    page: 0,
                },
                text: embed_text.into(),
            },
            search_text: embed_text.into(),
            embed_text: embed_text.into(),
            heading: heading.into(),
            heading_is_code: false,
            titles: String::new(),
        }
    }

    #[test]
    fn the_word_table_keeps_headings_then_the_most_used_tokens_up_to_its_rows() {
        let enc = testing::encoder_f32();
        let id = |w: &str| enc.tokenizer.id_of(w).unwrap() as usize;
        // No common ids: only the book's tokens compete for rows.
        let chunks = [
            chunk("gazebo", "robot robot robot physics physics gravity"),
            chunk("urdf", "robot physics"),
        ];
        let kept = |min_uses, rows| {
            let keep = vocab_to_keep(&enc, &chunks, 0, min_uses, rows);
            ["gazebo", "urdf", "robot", "physics", "gravity"]
                .into_iter()
                .filter(|w| keep[id(w)])
                .collect::<Vec<_>>()
        };
        // Every token the book uses, with no limit.
        assert_eq!(
            kept(1, usize::MAX),
            ["gazebo", "urdf", "robot", "physics", "gravity"]
        );
        // Used once ("camera") is left out; headings' tokens stay whatever their count.
        assert_eq!(kept(2, usize::MAX), ["gazebo", "urdf", "robot", "physics"]);
        // Three rows: the headings first, then the most used.
        assert_eq!(kept(1, 3), ["gazebo", "urdf", "robot"]);
        assert!(kept(1, 0).is_empty());
    }

    #[test]
    fn common_ids_that_never_ship_do_not_take_rows() {
        let enc = testing::encoder_f32();
        let chunks = [chunk("gazebo", "robot")];
        // The first five ids are [PAD] [UNK] [CLS] [SEP] [MASK], none an ordinary row (the
        // encoder adds [UNK] [CLS] [SEP] itself): two rows hold both of the book's tokens.
        let keep = vocab_to_keep(&enc, &chunks, 5, 1, 2);
        for w in ["gazebo", "robot"] {
            assert!(keep[enc.tokenizer.id_of(w).unwrap() as usize], "{w}");
        }
    }
}

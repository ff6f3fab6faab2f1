//! The one adapter between the widget and the retrieval core (`book-retrieval`).
//!
//! The widget only sees the [`Retriever`] trait. [`MemoryRetriever`] is a small in-memory implementation
//! for tests and for running the UI before the real index is wired; the asset manifest is parsed here too.
//! [`BookIndex`] is the real one: BM25 from the moment the index arrives, hybrid once the question
//! encoder has been attached.

use book_retrieval::ChunkMeta;
use serde::Deserialize;

use crate::source::Source;
use crate::text::{content_words, stem, words};

/// Sources asked for by default.
pub const DEFAULT_TOP_K: usize = 5;
/// Sources asked for at most.
pub const MAX_TOP_K: usize = 20;

/// A search result: ranked sources, related sections, and whether nothing passed the relevance
/// threshold (the answer core's [`book_answer::Found`]).
pub type Retrieved = book_answer::Found;

/// Embeds a question; `None` when the encoder failed on it.
pub type QuestionEncoder = Box<dyn Fn(&str) -> Option<Vec<f32>>>;

/// Searches the book.
pub trait Retriever {
    /// Top `k` (clamped to 1..=[`MAX_TOP_K`]) sources for `query`; chunks of `current_page_url` get a boost.
    fn search(&self, query: &str, k: usize, current_page_url: Option<&str>) -> Retrieved;
    /// Number of chunks (0 = nothing loaded).
    fn len(&self) -> usize;
    /// Whether the index is empty.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Hands over the question encoder (the `encoder-wasm` module, loaded after the panel opens);
    /// from then on searches are hybrid. A vector of the wrong size or with NaN is ignored by the
    /// search (BM25 alone answers), so a broken encoder can never break answering.
    fn attach_encoder(&self, _encode: QuestionEncoder) {}
    /// The loaded manifest's `content_hash`, sent with chat requests so the proxy can tell a page
    /// older than the book it serves (409 `book_updated`).
    fn content_id(&self) -> Option<&str> {
        None
    }
    /// Whether questions are embedded (hybrid search) rather than matched by BM25 alone.
    fn has_encoder(&self) -> bool {
        false
    }
    /// Embeds a passage with the question encoder, for choosing quotes by meaning; `None` before
    /// the encoder has loaded.
    fn embed(&self, _text: &str) -> Option<Vec<f32>> {
        None
    }
}

/// `{indexUrl}/manifest.json`: names the content-hashed asset files.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Manifest {
    /// The asset format's version; only 1 is accepted.
    pub format_version: u32,
    /// A hash of the book's content; identifies the book version (for the JSON format it is the retriever's content id sent to the proxy).
    pub content_hash: String,
    /// The asset files this manifest names.
    pub files: ManifestFiles,
    /// Relevance threshold for the development (JSON) format; the binary index carries its own.
    #[serde(default)]
    pub threshold: Option<f32>,
}

/// File names inside the asset folder.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ManifestFiles {
    /// The binary index file (ignored when `chunks` is a `.json` development file).
    pub index: String,
    /// The chunk texts: binary, or a `*.json` array of chunks for development.
    pub chunks: String,
    /// The question encoder's weights; `None` when the book has no encoder (BM25 only).
    #[serde(default)]
    pub encoder: Option<String>,
}

/// Why the manifest is unusable; shown to the reader as "the book's index could not be loaded".
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    /// The manifest is not JSON of the expected shape.
    #[error("the index manifest is not valid JSON: {0}")]
    Json(#[from] serde_json::Error),
    /// The manifest's `format_version` is not 1.
    #[error("the index manifest has format version {0}; this widget reads version 1")]
    Version(u32),
    /// A file name would leave the asset folder (slash, `..`, `:` or empty).
    #[error("the index manifest names an unsafe file: {0}")]
    BadName(String),
}

impl Manifest {
    /// Parses and checks a manifest (file names must be plain names inside the folder).
    pub fn parse(json: &str) -> Result<Self, ManifestError> {
        let m: Manifest = serde_json::from_str(json)?;
        if m.format_version != 1 {
            return Err(ManifestError::Version(m.format_version));
        }
        let names = [
            Some(&m.files.index),
            Some(&m.files.chunks),
            m.files.encoder.as_ref(),
        ];
        for n in names.into_iter().flatten() {
            if n.is_empty()
                || n.contains('/')
                || n.contains('\\')
                || n.contains("..")
                || n.contains(':')
            {
                return Err(ManifestError::BadName(n.clone()));
            }
        }
        Ok(m)
    }
}

/// Joins the asset folder URL and a file name.
pub fn asset_url(index_url: &str, file: &str) -> String {
    format!("{}/{}", index_url.trim_end_matches('/'), file)
}

/// Strips `#anchor` and a trailing slash so page URLs compare equal.
pub fn page_of(url: &str) -> &str {
    let u = url.split('#').next().unwrap_or(url);
    let u = u.split('?').next().unwrap_or(u);
    if u.len() > 1 {
        u.trim_end_matches('/')
    } else {
        u
    }
}

/// Why the book's index could not be made usable in the browser.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The manifest is unusable.
    #[error(transparent)]
    Manifest(#[from] ManifestError),
    /// The chunk texts do not parse or do not match the index.
    #[error("the book's passages are corrupt: {0}")]
    Chunks(String),
    /// The binary index does not parse.
    #[error("the book's index is corrupt: {0}")]
    Index(String),
}

/// Builds the retriever from the downloaded asset files: the binary index and chunk texts
/// (`book_retrieval::Index` + `ChunkTexts`), or, for development, a `chunks` file named `*.json`
/// (a JSON array of `book_retrieval::Chunk`) searched by [`MemoryRetriever`] with the manifest's
/// optional `threshold`.
pub fn from_assets(
    manifest: &Manifest,
    index: &[u8],
    chunks: &[u8],
) -> Result<Box<dyn Retriever>, LoadError> {
    if manifest.files.chunks.ends_with(".json") {
        let list: Vec<book_retrieval::Chunk> =
            serde_json::from_slice(chunks).map_err(|e| LoadError::Chunks(e.to_string()))?;
        let items = list.into_iter().map(|c| (c.meta, c.text)).collect();
        let mut memory = MemoryRetriever::new(items, manifest.threshold.unwrap_or(1.0));
        memory.content_id = Some(manifest.content_hash.clone());
        return Ok(Box::new(memory));
    }
    let index = book_retrieval::Index::from_bytes(index, None)
        .map_err(|e| LoadError::Index(e.to_string()))?;
    let texts = book_retrieval::ChunkTexts::from_bytes(chunks, &index.content_hash, index.len())
        .map_err(|e| LoadError::Chunks(e.to_string()))?;
    Ok(Box::new(BookIndex::new(index, texts)))
}

/// The real index: BM25 alone until [`Retriever::attach_encoder`], then hybrid (the question is
/// embedded in the browser by `encoder-wasm`, the same code the index builder's `query` runs).
pub struct BookIndex {
    index: book_retrieval::Index,
    texts: book_retrieval::ChunkTexts,
    encoder: std::cell::RefCell<Option<QuestionEncoder>>,
    content_id: String,
}

impl BookIndex {
    /// The retriever over a loaded index and its chunk texts (BM25 until an encoder is attached).
    pub fn new(index: book_retrieval::Index, texts: book_retrieval::ChunkTexts) -> Self {
        // The manifest's content hash is the index's: the proxy compares it to spot a stale page.
        let content_id = index.content_hash.clone();
        Self {
            index,
            texts,
            encoder: std::cell::RefCell::new(None),
            content_id,
        }
    }
}

impl Retriever for BookIndex {
    fn content_id(&self) -> Option<&str> {
        Some(&self.content_id)
    }

    fn attach_encoder(&self, encode: QuestionEncoder) {
        *self.encoder.borrow_mut() = Some(encode);
    }

    fn has_encoder(&self) -> bool {
        self.encoder.borrow().is_some()
    }

    fn embed(&self, text: &str) -> Option<Vec<f32>> {
        self.encoder.borrow().as_ref().and_then(|e| e(text))
    }

    fn search(&self, query: &str, k: usize, current_page_url: Option<&str>) -> Retrieved {
        let vector = self.encoder.borrow().as_ref().and_then(|e| e(query));
        let mut req = book_retrieval::SearchRequest::new(query, vector.as_deref());
        req.k = k.clamp(1, MAX_TOP_K);
        req.current_page_url = current_page_url;
        let res = self.index.search(&req);
        book_answer::found::collect(&self.index, &self.texts, &res, vector)
    }

    fn len(&self) -> usize {
        self.index.len()
    }
}

/// In-memory retriever: term-overlap scoring with a current-page boost. For tests and demos only.
#[derive(Debug, Clone, Default)]
pub struct MemoryRetriever {
    chunks: Vec<(ChunkMeta, String)>,
    threshold: f32,
    /// The manifest's `content_hash` when loaded from assets.
    pub content_id: Option<String>,
}

impl MemoryRetriever {
    /// A retriever over `chunks`; scores below `threshold` count as not relevant.
    pub fn new(chunks: Vec<(ChunkMeta, String)>, threshold: f32) -> Self {
        Self {
            chunks,
            threshold,
            content_id: None,
        }
    }
}

impl Retriever for MemoryRetriever {
    fn content_id(&self) -> Option<&str> {
        self.content_id.as_deref()
    }

    fn search(&self, query: &str, k: usize, current_page_url: Option<&str>) -> Retrieved {
        let k = k.clamp(1, MAX_TOP_K);
        let q: Vec<String> = content_words(query).iter().map(|w| stem(w)).collect();
        let mut scored: Vec<(f32, usize)> = self
            .chunks
            .iter()
            .enumerate()
            .map(|(i, (meta, text))| {
                let hay: Vec<String> = words(&format!(
                    "{} {} {}",
                    meta.headings.join(" "),
                    meta.chapter,
                    text
                ))
                .iter()
                .map(|w| stem(w))
                .collect();
                let hits = q.iter().filter(|t| hay.contains(t)).count() as f32;
                let boost = match current_page_url {
                    Some(p) if hits > 0.0 && page_of(p) == page_of(&meta.url) => 1.2,
                    _ => 1.0,
                };
                (hits * boost, i)
            })
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
        let refused = scored.first().is_none_or(|s| s.0 < self.threshold);
        let sources = scored
            .into_iter()
            .take(k)
            .filter(|(s, _)| refused || *s >= self.threshold)
            .filter_map(|(score, i)| {
                let (meta, text) = self.chunks.get(i)?;
                Some(Source {
                    chunk: i as u32,
                    chapter: meta.chapter.clone(),
                    section: meta.section.clone(),
                    url: meta.url.clone(),
                    text: text.clone(),
                    score,
                })
            })
            .collect();
        Retrieved {
            sources,
            refused,
            threshold: self.threshold,
            ..Retrieved::default()
        }
    }

    fn len(&self) -> usize {
        self.chunks.len()
    }
}

/// A chunk description for tests and demos.
pub fn demo_meta(i: u32, chapter: &str, section: Option<&str>, url: &str) -> ChunkMeta {
    ChunkMeta {
        id: format!("c{i}"),
        module: "Book".into(),
        chapter: chapter.into(),
        section: section.map(Into::into),
        headings: std::iter::once(chapter.to_string())
            .chain(section.map(Into::into))
            .collect(),
        url: url.into(),
        path: format!("c{i}.md"),
        has_code: false,
        page: i,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn retriever() -> MemoryRetriever {
        MemoryRetriever::new(
            vec![
                (
                    demo_meta(0, "ROS 2", Some("Nodes"), "/docs/ros#nodes"),
                    "A node is a process in the ROS graph.".into(),
                ),
                (
                    demo_meta(1, "ROS 2", Some("Topics"), "/docs/ros#topics"),
                    "Topics carry messages between nodes.".into(),
                ),
                (
                    demo_meta(2, "Gazebo", Some("Worlds"), "/docs/gazebo#worlds"),
                    "A world file describes the scene.".into(),
                ),
            ],
            1.0,
        )
    }

    #[test]
    fn finds_and_ranks() {
        let r = retriever().search("What is a ROS node?", 5, None);
        assert!(!r.refused);
        assert_eq!(r.sources[0].section.as_deref(), Some("Nodes"));
        assert!(r.sources.iter().all(|s| s.score >= 1.0));
    }

    #[test]
    fn refuses_off_topic_with_nearest() {
        let r = retriever().search("best pizza recipe", 3, None);
        assert!(r.refused);
        assert_eq!(
            r.sources.len(),
            3,
            "nearest sections are still listed for the refusal"
        );
    }

    #[test]
    fn current_page_boost() {
        let r = retriever().search("scene messages", 5, Some("/docs/gazebo/"));
        assert_eq!(r.sources[0].section.as_deref(), Some("Worlds"));
    }

    #[test]
    fn manifest_parsing() {
        let ok = r#"{"format_version":1,"content_hash":"ab","files":{"index":"index.ab.bin","chunks":"chunks.ab.bin","encoder":"encoder.ab.bin"}}"#;
        let m = Manifest::parse(ok).unwrap();
        assert_eq!(
            asset_url("/book-index/", &m.files.index),
            "/book-index/index.ab.bin"
        );
        assert!(
            Manifest::parse(&ok.replace("\"format_version\":1", "\"format_version\":2")).is_err()
        );
        assert!(Manifest::parse(&ok.replace("index.ab.bin", "../x")).is_err());
        assert!(Manifest::parse("{").is_err());
    }

    #[test]
    fn json_dev_assets_load() {
        let m = Manifest::parse(r#"{"format_version":1,"content_hash":"x","files":{"index":"i.bin","chunks":"c.json"}}"#).unwrap();
        let chunks = serde_json::to_vec(&vec![book_retrieval::Chunk {
            meta: demo_meta(0, "ROS 2", Some("Nodes"), "/docs/ros#nodes"),
            text: "A node is a process.".into(),
        }])
        .unwrap();
        let r = from_assets(&m, b"", &chunks).unwrap();
        assert_eq!(r.len(), 1);
        assert!(!r.search("ros node", 5, None).refused);
        assert!(matches!(
            from_assets(&m, b"", b"[{"),
            Err(LoadError::Chunks(_))
        ));
    }

    #[test]
    fn page_comparison() {
        assert_eq!(page_of("/docs/a/#x"), "/docs/a");
        assert_eq!(page_of("/"), "/");
    }
}

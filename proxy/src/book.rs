//! The book's chunk texts, loaded from the same static index files the widget fetches, so the
//! guard can tell a quoted source from invented text.
//!
//! Where from: `--index DIR` (a folder holding `manifest.json`), `--site DIR` (every
//! `manifest.json` of an index found in the built site, e.g. one per docs version) or
//! `--index-url URL` (the folder's URL). The manifest, the index and the chunk-text file are read
//! with `book-retrieval`'s own readers, the ones the widget uses.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use book_prompt::text::{attr, label, neutralise};
use book_retrieval::hash::content_hash;
use book_retrieval::manifest::{asset_url, Manifest};
use book_retrieval::{ChunkTexts, Index};
use url::Url;

use book_retrieval::error::error_line;

/// Deepest folder level searched for manifests under `--site`.
const SITE_SEARCH_DEPTH: usize = 5;

/// Where a book index comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexLocation {
    /// A folder holding `manifest.json`.
    Dir(PathBuf),
    /// Every index folder found in a built site.
    Site(PathBuf),
    /// The URL of a folder holding `manifest.json`.
    Url(Url),
}

/// Why a book index could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum BookError {
    /// A file could not be read.
    #[error("reading {path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The cause.
        source: std::io::Error,
    },
    /// A download failed.
    #[error("fetching {url}: {reason}")]
    Fetch {
        /// The URL.
        url: String,
        /// The cause.
        reason: String,
    },
    /// The manifest or an asset file is malformed.
    #[error("book index {what}: {reason}")]
    Corrupt {
        /// Which file.
        what: String,
        /// What is wrong.
        reason: String,
    },
    /// `--site` holds no index.
    #[error("no book index (a valid manifest.json) found under {0}")]
    NoIndex(String),
}

/// One chunk as the prompt quotes it: attribute values and the neutralised text.
#[derive(Debug, Clone)]
pub struct QuotableChunk {
    /// `title="…"` as the widget writes it.
    pub title_attr: String,
    /// `url="…"` as the widget writes it.
    pub url_attr: String,
    /// "Chapter › Section", unquoted.
    pub label: String,
    /// The site URL, unquoted.
    pub url: String,
    /// The chunk's full text, as in the chunk-text file.
    pub text: String,
}

/// One loaded index: its chunks, looked up by content hash of the quoted text and by place.
#[derive(Debug)]
pub struct Book {
    /// The manifest's `content_hash`, which the widget sends as `content_id`.
    pub content_id: String,
    /// Chunks in index order.
    pub chunks: Vec<QuotableChunk>,
    by_text: HashMap<String, Vec<usize>>,
    by_place: HashMap<(String, String), Vec<usize>>,
}

impl Book {
    /// Indexes `chunks` (label, url, text) of the index with `content_id`.
    pub fn new(content_id: String, chunks: Vec<(String, String, String)>) -> Self {
        let mut by_text: HashMap<String, Vec<usize>> = HashMap::new();
        let mut by_place: HashMap<(String, String), Vec<usize>> = HashMap::new();
        let chunks: Vec<QuotableChunk> = chunks
            .into_iter()
            .enumerate()
            .map(|(i, (label, url, text))| {
                let c = QuotableChunk {
                    title_attr: attr(&label),
                    url_attr: attr(&url),
                    label,
                    url,
                    text,
                };
                by_text
                    .entry(content_hash(neutralise(&c.text).as_bytes()))
                    .or_default()
                    .push(i);
                by_place
                    .entry((c.title_attr.clone(), c.url_attr.clone()))
                    .or_default()
                    .push(i);
                c
            })
            .collect();
        Self {
            content_id,
            chunks,
            by_text,
            by_place,
        }
    }

    /// Chunks whose quoted text is exactly `quoted` (by content hash, then compared).
    pub fn with_text<'a>(&'a self, quoted: &'a str) -> impl Iterator<Item = &'a QuotableChunk> {
        self.by_text
            .get(&content_hash(quoted.as_bytes()))
            .into_iter()
            .flatten()
            .filter_map(|&i| self.chunks.get(i))
            .filter(move |c| neutralise(&c.text) == quoted)
    }

    /// Chunks quoted with this title and url attribute.
    pub fn at_place(&self, title_attr: &str, url_attr: &str) -> Vec<&QuotableChunk> {
        self.by_place
            .get(&(title_attr.to_string(), url_attr.to_string()))
            .into_iter()
            .flatten()
            .filter_map(|&i| self.chunks.get(i))
            .collect()
    }

    /// The book of a loaded index and its chunk texts; its content id is the index's content
    /// hash, which the widget sends as `content_id` (the manifest repeats it).
    pub fn from_index(index: &Index, texts: &ChunkTexts) -> Self {
        let chunks = index
            .meta
            .chunks
            .iter()
            .zip(0u32..)
            .filter_map(|(meta, i)| {
                Some((
                    label(&meta.chapter, meta.section.as_deref()),
                    meta.url.clone(),
                    texts.get(i)?.to_string(),
                ))
            })
            .collect();
        Self::new(index.content_hash.clone(), chunks)
    }

    /// Reads the index and chunk-text files the manifest names, with the core's readers (which
    /// check that the texts belong to the index).
    fn from_files(m: &Manifest, index: &[u8], chunks: &[u8]) -> Result<Self, BookError> {
        let idx = Index::from_bytes(index, None).map_err(|e| corrupt(&m.files.index, e))?;
        let texts = ChunkTexts::from_bytes(chunks, &idx.content_hash, idx.len())
            .map_err(|e| corrupt(&m.files.chunks, e))?;
        Ok(Self::from_index(&idx, &texts))
    }

    /// Loads the index in `dir` (which holds `manifest.json`).
    pub fn load_dir(dir: &Path) -> Result<Self, BookError> {
        let read = |name: &str| -> Result<Vec<u8>, BookError> {
            let path = dir.join(name);
            std::fs::read(&path).map_err(|source| BookError::Io {
                path: path.display().to_string(),
                source,
            })
        };
        let m = parse_manifest(&read(MANIFEST)?)?;
        Self::from_files(&m, &read(&m.files.index)?, &read(&m.files.chunks)?)
    }

    /// Downloads the index whose folder is at `base`.
    pub async fn load_url(client: &reqwest::Client, base: &Url) -> Result<Self, BookError> {
        let m = parse_manifest(&fetch(client, base, MANIFEST).await?)?;
        let index = fetch(client, base, &m.files.index).await?;
        let chunks = fetch(client, base, &m.files.chunks).await?;
        Self::from_files(&m, &index, &chunks)
    }
}

/// The manifest's file name inside an index folder.
const MANIFEST: &str = "manifest.json";

/// Parses and checks a manifest with the core's rules (the widget's).
fn parse_manifest(bytes: &[u8]) -> Result<Manifest, BookError> {
    Manifest::parse(bytes).map_err(|e| corrupt(MANIFEST, e))
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> BookError {
    BookError::Corrupt {
        what: what.to_string(),
        reason: e.to_string(),
    }
}

/// Downloads asset file `name` of the index folder at `base` (URL built by the widget's rule). The
/// reason names the cause reqwest keeps in its source ("Connection refused"), not the URL again.
async fn fetch(client: &reqwest::Client, base: &Url, name: &str) -> Result<Vec<u8>, BookError> {
    let url = asset_url(base.as_str(), name);
    let fail = |reason: String| BookError::Fetch {
        url: url.clone(),
        reason,
    };
    let parsed = Url::parse(&url).map_err(|e| fail(e.to_string()))?;
    let resp = client
        .get(parsed)
        .send()
        .await
        .map_err(|e| fail(error_line(&e.without_url())))?;
    if !resp.status().is_success() {
        return Err(fail(format!("status {}", resp.status())));
    }
    Ok(resp
        .bytes()
        .await
        .map_err(|e| fail(error_line(&e.without_url())))?
        .to_vec())
}

/// The index folders under a built site: every folder whose `manifest.json` is a valid index manifest.
pub fn find_index_dirs(site: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        if let Ok(bytes) = std::fs::read(dir.join(MANIFEST)) {
            if Manifest::parse(&bytes).is_ok() {
                out.push(dir.to_path_buf());
            }
        }
        if depth == 0 {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut subdirs: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .filter(|p| {
                !p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with('.') || n == "assets" || n == "img")
            })
            .collect();
        subdirs.sort();
        for d in subdirs {
            walk(&d, depth - 1, out);
        }
    }
    let mut out = Vec::new();
    walk(site, SITE_SEARCH_DEPTH, &mut out);
    out
}

/// The manifest files behind `locations` with their modification times: a change means reload.
pub fn manifest_stamps(locations: &[IndexLocation]) -> Vec<(PathBuf, Option<SystemTime>)> {
    let mut out = Vec::new();
    for loc in locations {
        let dirs = match loc {
            IndexLocation::Dir(d) => vec![d.clone()],
            IndexLocation::Site(s) => find_index_dirs(s),
            IndexLocation::Url(_) => Vec::new(),
        };
        for d in dirs {
            let p = d.join(MANIFEST);
            let t = std::fs::metadata(&p).and_then(|m| m.modified()).ok();
            out.push((p, t));
        }
    }
    out
}

/// Loads every book behind `locations`.
pub async fn load_all(
    client: &reqwest::Client,
    locations: &[IndexLocation],
) -> Result<Vec<Book>, BookError> {
    let mut books = Vec::new();
    for loc in locations {
        match loc {
            IndexLocation::Dir(d) => books.push(Book::load_dir(d)?),
            IndexLocation::Site(s) => {
                let dirs = find_index_dirs(s);
                if dirs.is_empty() {
                    return Err(BookError::NoIndex(s.display().to_string()));
                }
                for d in dirs {
                    books.push(Book::load_dir(&d)?);
                }
            }
            IndexLocation::Url(u) => books.push(Book::load_url(client, u).await?),
        }
    }
    Ok(books)
}

/// Books written with the core's writers, for the proxy's unit tests and `bench-load`, whose
/// cases (a chunk longer than the prompt budget, one text on two pages) the shared tiny book
/// (`book_retrieval::testing`) does not have.
#[cfg(any(test, feature = "bench"))]
pub mod written {
    use std::path::Path;

    use book_retrieval::bm25::{Bm25, Bm25Doc, Bm25Params};
    use book_retrieval::index::{IndexMeta, PageInfo, SearchSettings};
    use book_retrieval::manifest::{Manifest, ManifestFiles, MANIFEST_VERSION};
    use book_retrieval::vectors::QuantizedVectors;
    use book_retrieval::{ChunkMeta, ChunkTexts, Index};

    use super::{BookError, MANIFEST};

    /// One chunk: (chapter, section, url, text).
    pub type TestChunk = (String, Option<String>, String, String);

    /// Dimension of the (constant) vectors: the book is searched by BM25 only.
    const DIM: usize = 4;

    /// The asset files of a one-page book of `chunks`: `manifest.json`, the index and the chunk
    /// texts, as (file name, bytes).
    pub fn asset(chunks: &[TestChunk]) -> Result<Vec<(String, Vec<u8>)>, BookError> {
        let fail = |e: &dyn std::fmt::Display| super::corrupt("test book", e);
        let metas = chunks
            .iter()
            .enumerate()
            .map(|(i, (chapter, section, url, _))| ChunkMeta {
                id: format!("c{i}"),
                module: "Book".into(),
                chapter: chapter.clone(),
                section: section.clone(),
                headings: vec![chapter.clone()],
                url: url.clone(),
                path: "x.md".into(),
                has_code: false,
                page: 0,
            })
            .collect();
        let docs: Vec<Bm25Doc> = chunks
            .iter()
            .map(|(chapter, section, _, text)| Bm25Doc {
                body: text,
                heading: section.as_deref().unwrap_or_default(),
                titles: chapter,
            })
            .collect();
        let index = Index {
            model_id: "test-model".into(),
            content_hash: String::new(),
            meta: IndexMeta {
                chunks: metas,
                pages: vec![PageInfo {
                    url: "/docs/".into(),
                    title: "Book".into(),
                    path: "x.md".into(),
                    module: "Book".into(),
                }],
                settings: SearchSettings::default(),
                book_title: "Book".into(),
                common_words: Default::default(),
                unaskable: Vec::new(),
                follow_ups: Vec::new(),
            },
            vectors: QuantizedVectors::quantize(&vec![1.0; chunks.len() * DIM], DIM),
            bm25: Bm25::build(&docs, Bm25Params::default()),
            ann: None,
        };
        let index_bytes = index.to_bytes().map_err(|e| fail(&e))?;
        let hash = Index::from_bytes(&index_bytes, None)
            .map_err(|e| fail(&e))?
            .content_hash;
        let texts = chunks.iter().map(|c| c.3.clone()).collect();
        let text_bytes = ChunkTexts::new(hash.clone(), texts)
            .to_bytes()
            .map_err(|e| fail(&e))?;
        let files = ManifestFiles {
            index: format!("index.{hash}.bin"),
            chunks: format!("chunks.{hash}.bin"),
            encoder: None,
        };
        let manifest = Manifest {
            format_version: MANIFEST_VERSION,
            model_id: index.model_id,
            content_hash: hash,
            dim: DIM,
            chunks: chunks.len(),
            files: files.clone(),
            language: None,
        };
        let manifest = serde_json::to_vec_pretty(&manifest).map_err(|e| fail(&e))?;
        Ok(vec![
            (MANIFEST.to_string(), manifest),
            (files.index, index_bytes),
            (files.chunks, text_bytes),
        ])
    }

    /// Writes the asset files of `chunks` into `dir`; returns the book's content id.
    pub fn write(dir: &Path, chunks: &[TestChunk]) -> Result<String, BookError> {
        for (name, bytes) in &asset(chunks)? {
            let path = dir.join(name);
            std::fs::write(&path, bytes).map_err(|source| BookError::Io {
                path: path.display().to_string(),
                source,
            })?;
        }
        Ok(super::Book::load_dir(dir)?.content_id)
    }

    /// The book of `chunks`, written by the core's writers and read back by the proxy's loader.
    #[cfg(test)]
    pub fn book(chunks: &[TestChunk]) -> super::Book {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), chunks).unwrap();
        super::Book::load_dir(dir.path()).unwrap()
    }

    /// A fresh folder holding the shared tiny book's asset files (`book_retrieval::testing`).
    #[cfg(test)]
    pub fn tiny_dir() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let a = book_retrieval::testing::asset();
        let names = [&a.manifest.files.index, &a.manifest.files.chunks];
        for name in names.into_iter().map(String::as_str).chain([MANIFEST]) {
            std::fs::write(dir.path().join(name), a.file(name).unwrap()).unwrap();
        }
        dir
    }
}

#[cfg(test)]
mod tests {
    use super::written::tiny_dir;
    use super::*;
    use book_retrieval::testing;

    #[test]
    fn loads_the_real_asset() {
        let dir = tiny_dir();
        let b = Book::load_dir(dir.path()).unwrap();
        assert_eq!(b.content_id, testing::asset().manifest.content_hash);
        assert_eq!(b.chunks.len(), testing::CHUNK_COUNT);
        let c = &testing::CHUNKS[1];
        let quoted = neutralise(c.text);
        let found: Vec<_> = b.with_text(&quoted).collect();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].url, c.url());
        assert_eq!(found[0].label, "Nodes and Topics › Services");
        assert_eq!(find_index_dirs(dir.path()), vec![dir.path().to_path_buf()]);
    }

    #[test]
    fn a_damaged_asset_is_an_error() {
        let dir = tiny_dir();
        let a = testing::asset();
        let m = dir.path().join(MANIFEST);
        let good = std::fs::read(&m).unwrap();
        // A manifest pointing outside its folder, one of another version, and texts of another index.
        for (from, to) in [
            (a.manifest.files.chunks.clone(), "../chunks.bin".to_string()),
            (
                "\"format_version\": 1".into(),
                "\"format_version\": 9".into(),
            ),
        ] {
            let bad = String::from_utf8(good.clone()).unwrap().replace(&from, &to);
            assert_ne!(bad.as_bytes(), &good[..], "{from}");
            std::fs::write(&m, bad).unwrap();
            assert!(matches!(
                Book::load_dir(dir.path()),
                Err(BookError::Corrupt { .. })
            ));
            assert!(find_index_dirs(dir.path()).is_empty());
        }
        std::fs::write(&m, &good).unwrap();
        let other = ChunkTexts::new("0".repeat(64), vec![String::new(); testing::CHUNK_COUNT]);
        let chunks = dir.path().join(&a.manifest.files.chunks);
        std::fs::write(&chunks, other.to_bytes().unwrap()).unwrap();
        assert!(matches!(
            Book::load_dir(dir.path()),
            Err(BookError::Corrupt { .. })
        ));
        std::fs::remove_file(&chunks).unwrap();
        assert!(matches!(
            Book::load_dir(dir.path()),
            Err(BookError::Io { .. })
        ));
    }

    #[test]
    fn finds_by_text_and_place() {
        let b = Book::new(
            "h".into(),
            vec![(
                "Ch › Sec".into(),
                "/docs/a#s".into(),
                "Text with <source> tag".into(),
            )],
        );
        assert_eq!(b.with_text("Text with ‹source> tag").count(), 1);
        assert_eq!(b.with_text("Text with <source> tag").count(), 0);
        assert_eq!(b.at_place("Ch › Sec", "/docs/a#s").len(), 1);
        assert!(b.at_place("Ch", "/docs/a#s").is_empty());
    }
}

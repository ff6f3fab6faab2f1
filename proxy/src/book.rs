//! The book's chunk texts, loaded from the same static index files the widget fetches, so the
//! guard can tell a quoted source from invented text.
//!
//! Where from: `--index DIR` (a folder holding `manifest.json`), `--site DIR` (every
//! `manifest.json` of an index found in the built site, e.g. one per docs version) or
//! `--index-url URL` (the folder's URL). Both asset formats are read: the binary index with its
//! chunk-text file, and the development `chunks.json`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use book_prompt::text::{attr, label, neutralise};
use book_retrieval::hash::content_hash;
use serde::Deserialize;
use url::Url;

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
    #[error("no book index (manifest.json naming a chunks file) found under {0}")]
    NoIndex(String),
}

/// The manifest fields the proxy needs (the widget reads the same file).
#[derive(Debug, Deserialize)]
struct Manifest {
    content_hash: String,
    files: Files,
}

#[derive(Debug, Deserialize)]
struct Files {
    index: String,
    chunks: String,
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

    /// Builds a book from the manifest and the two asset files' bytes.
    fn from_assets(
        manifest: &[u8],
        index: impl FnOnce(&str) -> Result<Vec<u8>, BookError>,
        chunks: impl FnOnce(&str) -> Result<Vec<u8>, BookError>,
    ) -> Result<Self, BookError> {
        let m: Manifest =
            serde_json::from_slice(manifest).map_err(|e| corrupt("manifest.json", e))?;
        for name in [&m.files.index, &m.files.chunks] {
            // The widget's rule for the same file (book_retrieval::manifest).
            if !book_retrieval::manifest::is_plain_file_name(name) {
                return Err(BookError::Corrupt {
                    what: "manifest.json".into(),
                    reason: format!("unsafe file name {name:?}"),
                });
            }
        }
        let chunk_bytes = chunks(&m.files.chunks)?;
        let list: Vec<(String, String, String)> = if m.files.chunks.ends_with(".json") {
            let list: Vec<book_retrieval::Chunk> =
                serde_json::from_slice(&chunk_bytes).map_err(|e| corrupt(&m.files.chunks, e))?;
            list.into_iter()
                .map(|c| {
                    (
                        label(&c.meta.chapter, c.meta.section.as_deref()),
                        c.meta.url,
                        c.text,
                    )
                })
                .collect()
        } else {
            let index_bytes = index(&m.files.index)?;
            let idx = book_retrieval::Index::from_bytes(&index_bytes, None)
                .map_err(|e| corrupt(&m.files.index, e))?;
            let texts =
                book_retrieval::ChunkTexts::from_bytes(&chunk_bytes, &idx.content_hash, idx.len())
                    .map_err(|e| corrupt(&m.files.chunks, e))?;
            (0..idx.len() as u32)
                .filter_map(|i| {
                    let meta = idx.chunk(i)?;
                    Some((
                        label(&meta.chapter, meta.section.as_deref()),
                        meta.url.clone(),
                        texts.get(i)?.to_string(),
                    ))
                })
                .collect()
        };
        Ok(Book::new(m.content_hash, list))
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
        let manifest = read("manifest.json")?;
        Self::from_assets(&manifest, read, read)
    }

    /// Downloads the index whose folder is at `base`.
    pub async fn load_url(client: &reqwest::Client, base: &Url) -> Result<Self, BookError> {
        let manifest = fetch(client, base, "manifest.json").await?;
        let m: Manifest =
            serde_json::from_slice(&manifest).map_err(|e| corrupt("manifest.json", e))?;
        let chunks = fetch(client, base, &m.files.chunks).await?;
        let index = if m.files.chunks.ends_with(".json") {
            Vec::new()
        } else {
            fetch(client, base, &m.files.index).await?
        };
        Self::from_assets(&manifest, move |_| Ok(index), move |_| Ok(chunks))
    }
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> BookError {
    BookError::Corrupt {
        what: what.to_string(),
        reason: e.to_string(),
    }
}

async fn fetch(client: &reqwest::Client, base: &Url, name: &str) -> Result<Vec<u8>, BookError> {
    let mut base = base.clone();
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    let url = base.join(name).map_err(|e| BookError::Fetch {
        url: name.to_string(),
        reason: e.to_string(),
    })?;
    let fail = |reason: String| BookError::Fetch {
        url: url.to_string(),
        reason,
    };
    let resp = client
        .get(url.clone())
        .send()
        .await
        .map_err(|e| fail(e.to_string()))?;
    if !resp.status().is_success() {
        return Err(fail(format!("status {}", resp.status())));
    }
    Ok(resp
        .bytes()
        .await
        .map_err(|e| fail(e.to_string()))?
        .to_vec())
}

/// The index folders under a built site: every folder whose `manifest.json` names a chunks file.
pub fn find_index_dirs(site: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) {
        let manifest = dir.join("manifest.json");
        if let Ok(bytes) = std::fs::read(&manifest) {
            if serde_json::from_slice::<Manifest>(&bytes).is_ok() {
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
            let p = d.join("manifest.json");
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

#[cfg(test)]
mod tests {
    use super::*;

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

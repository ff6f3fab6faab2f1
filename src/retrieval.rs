//! The one adapter between the widget and the retrieval core (`book-retrieval`).
//!
//! The widget only sees the [`Retriever`] trait; [`BookIndex`] implements it over the core's index:
//! BM25 from the moment the index arrives, hybrid once the question encoder has been attached.
//! The manifest, its URL rule and the analyzer are the core's (`book_retrieval::manifest`,
//! `book_retrieval::analyzer`); tests search the core's tiny real books (`testing` features).

use book_retrieval::SearchRequest;

/// Sources asked for at most.
pub const MAX_TOP_K: usize = 20;

/// A search result: ranked sources, related sections, and whether nothing passed the relevance
/// threshold (the answer core's [`book_answer::Found`]).
pub type Retrieved = book_answer::Found;

/// Embeds a question whole (`None`) or the opening of a passage (its first that many token ids);
/// `None` when the encoder failed on it.
pub type QuestionEncoder = Box<dyn Fn(&str, Option<usize>) -> Option<Vec<f32>>>;

/// Searches the book.
pub trait Retriever {
    /// The sources for `req` (its `k` clamped to 1..=[`MAX_TOP_K`]): the retriever embeds
    /// `req.query` itself once the encoder has loaded, in place of `req.query_vector`.
    fn search(&self, req: SearchRequest<'_>) -> Retrieved;
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
    /// Embeds the opening of a passage (its first `max_tokens` token ids) with the question
    /// encoder, for choosing quotes by meaning; `None` before the encoder has loaded.
    fn embed(&self, _text: &str, _max_tokens: usize) -> Option<Vec<f32>> {
        None
    }
}

/// Why the book's index could not be made usable in the browser.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The chunk-texts file does not parse or does not belong to the index.
    #[error("the book's passages are corrupt: {0}")]
    Chunks(String),
    /// The binary index does not parse.
    #[error("the book's index is corrupt: {0}")]
    Index(String),
    /// The browser cannot inflate the index's deflated sections (no `DecompressionStream`).
    #[error("this browser cannot inflate the book's index (it has no DecompressionStream)")]
    Unsupported,
}

/// Why a deflated section of the book's files was not inflated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InflateError {
    /// The browser has no `DecompressionStream` for raw deflate.
    Unsupported,
    /// The bytes do not inflate, or inflate implausibly large: the reason.
    Damaged(String),
}

/// A deflated section, inflated (see [`load_assets`]).
pub type Inflated = crate::transport::LocalFuture<Result<Vec<u8>, InflateError>>;

/// Inflates with the retrieval core's inflater (`miniz_oxide`): the controller's default host and
/// the native tests. The widget's host uses the browser's instead.
pub fn core_inflate(deflated: &[u8]) -> Inflated {
    let inflated =
        book_retrieval::inflate(deflated).map_err(|e| InflateError::Damaged(e.to_string()));
    Box::pin(async move { inflated })
}

/// Builds the retriever from the downloaded asset files named by the manifest
/// (`book_retrieval::manifest::Manifest`): the binary index and its chunk texts, their deflated
/// sections inflated by `inflate` (the widget's host: the browser's `DecompressionStream`, so the
/// widget's wasm carries no inflater; [`core_inflate`] elsewhere).
pub async fn load_assets(
    index: &[u8],
    chunks: &[u8],
    inflate: impl Fn(&[u8]) -> Inflated,
) -> Result<BookIndex, LoadError> {
    let failed = |make: fn(String) -> LoadError| {
        move |e: InflateError| match e {
            InflateError::Unsupported => LoadError::Unsupported,
            InflateError::Damaged(reason) => make(reason),
        }
    };
    let opened =
        book_retrieval::Index::open(index, None).map_err(|e| LoadError::Index(e.to_string()))?;
    let [meta, bm25] = opened.deflated();
    let meta = inflate(meta).await.map_err(failed(LoadError::Index))?;
    let bm25 = inflate(bm25).await.map_err(failed(LoadError::Index))?;
    let index = opened
        .finish([meta, bm25])
        .map_err(|e| LoadError::Index(e.to_string()))?;
    let opened = book_retrieval::ChunkTexts::open(chunks, &index.content_hash, index.len())
        .map_err(|e| LoadError::Chunks(e.to_string()))?;
    let json = inflate(opened.deflated())
        .await
        .map_err(failed(LoadError::Chunks))?;
    let texts = opened
        .finish(&json)
        .map_err(|e| LoadError::Chunks(e.to_string()))?;
    Ok(BookIndex::new(index, texts))
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

    fn embed(&self, text: &str, max_tokens: usize) -> Option<Vec<f32>> {
        self.encoder
            .borrow()
            .as_ref()
            .and_then(|e| e(text, Some(max_tokens)))
    }

    fn search(&self, req: SearchRequest<'_>) -> Retrieved {
        let vector = self
            .encoder
            .borrow()
            .as_ref()
            .and_then(|e| e(req.query, None));
        let req = SearchRequest {
            k: req.k.clamp(1, MAX_TOP_K),
            ..req
        };
        book_answer::found::search(&self.index, &self.texts, req, vector)
    }

    fn len(&self) -> usize {
        self.index.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use book_retrieval::testing;

    /// [`load_assets`] with the core's inflater, which is ready at once: one poll finishes it.
    fn from_assets(index: &[u8], chunks: &[u8]) -> Result<BookIndex, LoadError> {
        use std::future::Future;
        use std::task::{Context, Poll, Waker};
        let load = std::pin::pin!(load_assets(index, chunks, core_inflate));
        match load.poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(loaded) => loaded,
            Poll::Pending => panic!("the core's inflater never waits"),
        }
    }

    #[test]
    fn loads_the_asset_files_and_searches() {
        let a = testing::asset();
        let file = |n: &str| a.file(n).unwrap_or_default();
        let r = match from_assets(
            &file(&a.manifest.files.index),
            &file(&a.manifest.files.chunks),
        ) {
            Ok(r) => r,
            Err(e) => panic!("{e}"),
        };
        assert_eq!(r.len(), testing::CHUNK_COUNT);
        assert_eq!(r.content_id(), Some(a.manifest.content_hash.as_str()));
        let found = r.search(SearchRequest::new("What is a ROS service?", None));
        assert!(!found.refused, "{found:?}");
        assert_eq!(found.sources[0].section.as_deref(), Some("Services"));
        assert!(
            r.search(SearchRequest::new("best pizza dough recipe", None))
                .refused
        );
    }

    #[test]
    fn damaged_files_are_errors() {
        let a = testing::asset();
        let index = a.file(&a.manifest.files.index).unwrap_or_default();
        assert!(matches!(
            from_assets(b"nope", b""),
            Err(LoadError::Index(_))
        ));
        assert!(matches!(
            from_assets(&index, b"nope"),
            Err(LoadError::Chunks(_))
        ));
    }
}

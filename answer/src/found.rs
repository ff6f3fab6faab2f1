//! From search results to what an answer is built from: the ranked sources with their texts, and
//! the sections related to the best one (for follow-ups). One function, used by the widget and by
//! `index-builder answer`, so both see the same sources.

use book_retrieval::{ChunkTexts, Index, SearchResults};

use crate::source::Source;
use crate::suggest::{Related, Relation};

/// What the search found for a question.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Found {
    /// Best first. When `refused`, the nearest (sub-threshold) sections, for the refusal's links.
    pub sources: Vec<Source>,
    /// Sections near the best source, in order of preference for follow-ups.
    pub related: Vec<Related>,
    /// Nothing passed the relevance threshold: the book does not cover the question.
    pub refused: bool,
    /// The relevance a source needs to count as an answer (the scale of `Source::score`).
    pub threshold: f32,
    /// How far the question clears the words test with the encoder (`SearchResults::words_margin`).
    pub words_margin: Option<f32>,
    /// The question's embedding, when the encoder has loaded (quotes are then chosen by meaning).
    pub vector: Option<Vec<f32>>,
    /// The best source is the best by words, by meaning and fused (`SearchResults::agree`).
    pub agree: bool,
}

/// Collects the sources of `results` (texts from `texts`) and the sections related to the best one;
/// `vector` is the question's embedding the search used, if any.
pub fn collect(
    index: &Index,
    texts: &ChunkTexts,
    results: &SearchResults,
    vector: Option<Vec<f32>>,
) -> Found {
    let sources: Vec<Source> = results
        .hits
        .iter()
        .filter_map(|h| {
            let meta = index.chunk(h.chunk)?;
            Some(Source {
                chunk: h.chunk,
                chapter: meta.chapter.clone(),
                section: meta.section.clone(),
                url: meta.url.clone(),
                text: texts.get(h.chunk).unwrap_or_default().to_string(),
                score: h.relevance,
            })
        })
        .collect();
    Found {
        related: related(index, &sources),
        sources,
        refused: results.refused,
        threshold: results.threshold,
        words_margin: results.words_margin,
        agree: results.agree,
        vector: vector.filter(|_| results.mode != book_retrieval::Mode::Bm25Only),
    }
}

/// The next section of the best source's page, the other sources, the next page, the previous section.
fn related(index: &Index, sources: &[Source]) -> Vec<Related> {
    let Some(top) = sources.first() else {
        return Vec::new();
    };
    let chunks = &index.meta.chunks;
    let Some(meta) = index.chunk(top.chunk) else {
        return Vec::new();
    };
    let make = |i: usize, relation: Relation| {
        chunks.get(i).map(|c| Related {
            chapter: c.chapter.clone(),
            section: c.section.clone(),
            url: c.url.clone(),
            relation,
        })
    };
    let i = top.chunk as usize;
    let mut out = Vec::new();
    // The next step: the first later chunk of the same page in another section.
    if let Some(j) = (i + 1..chunks.len())
        .take_while(|&j| chunks[j].page == meta.page)
        .find(|&j| chunks[j].url != meta.url)
    {
        out.extend(make(j, Relation::Next));
    }
    for s in sources.iter().skip(1) {
        out.extend(make(s.chunk as usize, Relation::Found));
    }
    if let Some(j) = (i + 1..chunks.len()).find(|&j| chunks[j].page == meta.page + 1) {
        out.extend(make(j, Relation::NextPage));
    }
    if let Some(j) = (0..i)
        .rev()
        .take_while(|&j| chunks[j].page == meta.page)
        .find(|&j| chunks[j].url != meta.url)
    {
        out.extend(make(j, Relation::Previous));
    }
    out.retain(|r| r.url != top.url);
    out
}

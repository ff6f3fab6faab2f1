//! The index asset (`index.<hash>.bin`): chunk metadata, quantized vectors and BM25, and the search
//! that fuses them. See `FORMAT.md`.

use serde::{Deserialize, Serialize};

use crate::binio::{envelope, open_envelope, Reader, Writer};
use crate::bm25::Bm25;
use crate::chunk::ChunkMeta;
use crate::common_words::CommonWords;
use crate::error::AssetError;
use crate::vectors::QuantizedVectors;

/// First bytes of an index file.
pub const INDEX_MAGIC: &[u8; 8] = b"BKCHIDX\0";
/// The index format version this build writes when the index has heading vectors (a book built
/// without them is written as version 1, byte for byte as before).
pub const INDEX_VERSION: u32 = 2;
/// Index format versions this build reads: 1 (no heading vectors) and 2.
pub const INDEX_VERSIONS_READ: &[u32] = &[1, 2];
/// Largest number of results a caller may ask for.
pub const MAX_K: usize = 20;
/// Results returned when the caller does not say.
pub const DEFAULT_K: usize = 5;
/// Decompressed sections larger than this are treated as corrupt (no zip bombs).
pub const MAX_SECTION_BYTES: usize = 512 << 20;
const WHAT: &str = "index file";

/// A bare-topic question's ranking boost for the chunks that introduce the topic
/// ([`crate::chunk::introduces`]): scores × 1.2. The factor was chosen on keyword queries of the
/// Docusaurus docs and the first textbook (0.1 gains most of it, 0.2–0.4 the same); the form of
/// `introduces` was then drawn from every book's keyword queries, so no book is held out for it
/// (`eval/QUALITY.md`, "Keyword queries"). The labelled question sets hold no bare topic, so no
/// figure of theirs moves.
const TOPIC_INTRO_BOOST: f32 = 0.2;

/// How the search combines and thresholds its signals; tuned by `index-builder eval` and stored in
/// the asset so the browser and the CLI behave identically.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SearchSettings {
    /// Weight of the dense score in the fusion (the BM25 weight is `1 - dense_weight`).
    pub dense_weight: f32,
    /// Added to the fused score of chunks on the page the reader is viewing.
    pub current_page_boost: f32,
    /// With the encoder, a question is answerable when `best cosine + coverage_weight × best
    /// coverage` reaches `min_relevance`: meaning and wording both count, so a paraphrase with no
    /// shared words and a keyword match with a loose meaning can each pass, but an unrelated
    /// question that merely shares a common word does not.
    pub coverage_weight: f32,
    /// See `coverage_weight`.
    pub min_relevance: f32,
    /// Without the encoder (BM25 only): refuse when no chunk covers this share of the question's terms.
    pub min_coverage: f32,
    /// Subtracted from the relevance (both phases) for each query term the book never uses, up
    /// to [`MAX_UNSEEN_TERMS`]: near-miss questions name a tool or thing the book does not contain.
    /// 0 in assets built before it existed (they refuse as they did).
    #[serde(default)]
    pub unseen_penalty: f32,
    /// With the encoder, refuse only when no chunk covers this share of the question's terms
    /// either (less the unseen-term penalty, like `min_coverage`): a reader's vague question that
    /// still uses the book's words is answered. Set by the build's calibration (fitted with
    /// `min_relevance`); absent in assets built before it existed (`None`: the hybrid test alone,
    /// as they refused before).
    #[serde(default)]
    pub hybrid_min_coverage: Option<f32>,
    /// How much an unseen query term that is a common English word counts towards
    /// `unseen_penalty` (a name the book lacks counts 1, a likely typo of a book term 0); see
    /// [`unseen_count`]. Absent in assets built before it existed (`None`: every unseen term
    /// counts 1, as they refused before). 0..=1.
    #[serde(default)]
    pub common_unseen_weight: Option<f32>,
    /// With the encoder, refuse whenever the book's best cosine to the question is below this,
    /// whatever the words test says: a question that shares only everyday words with the book
    /// ("what causes the northern lights" in a robotics book, cosine 0.15) is about something
    /// else. Set by the build's calibration; absent in assets built before it existed (`None`:
    /// no floor, as they refused before). 0..=1.
    #[serde(default)]
    pub min_cosine: Option<f32>,
    /// Candidates taken from each retriever before fusion, per result asked for.
    pub candidates_per_result: usize,
    /// Weight of the passage vectors in a chunk's ranking (format 2): the cosine fused with BM25
    /// becomes `(1 - w) × chunk cosine + w × max(chunk cosine, best passage cosine)`. A question
    /// about one detail of a long chunk is closer to the passage that states it than to the whole
    /// chunk, whose vector averages every topic in it. Refusal and [`Hit::dense`] keep the chunk's
    /// own cosine, so their thresholds keep their scale. Absent: 0.
    #[serde(default)]
    pub passage_weight: f32,
    /// Typo tolerance: weight of the BM25 match of a query term the book never uses to the book's
    /// term one letter away (see [`Bm25::score_fuzzy`]). Absent: 0 (no correction).
    #[serde(default)]
    pub fuzzy_weight: f32,
    /// Page evidence: each section's ranking score is raised by this weight times the best
    /// score of another candidate section on the same page, so a section whose page is clearly
    /// about the question outranks a lone look-alike elsewhere. Absent: 0.
    #[serde(default)]
    pub page_weight: f32,
    /// At most this many results from one page while results from other pages remain (0: no
    /// limit). Quiz and migration pages restate a chapter section by section; without a limit
    /// they can fill the top 5 with one page. Absent: 0.
    #[serde(default)]
    pub max_per_page: u32,
    /// Hybrid: rescale the ranking cosines of the candidates to [0, 1] (min-max) before fusion,
    /// as BM25 is (divided by the best candidate's); raw cosines of one question span a narrow
    /// band, so without it BM25 decides more than its weight says. Absent: false.
    #[serde(default)]
    pub normalize_dense: bool,
    /// Ranking scores of page-top chunks (the page's introduction, which names every topic of
    /// the page) are multiplied by `1 - top_penalty`. Absent: 0.
    #[serde(default)]
    pub top_penalty: f32,
    /// Ranking scores of sections that point elsewhere (a quiz, objectives, next steps: see
    /// [`crate::chunk::points_elsewhere`]) are multiplied by `1 - pointing_penalty`: they restate
    /// in the chapter's words what another section explains, and can fill the top 5 with
    /// restatements. Absent: 0.
    #[serde(default)]
    pub pointing_penalty: f32,
}

impl Default for SearchSettings {
    fn default() -> Self {
        Self {
            // Chosen leave-one-book-out by `index-builder grid` (README, "Retrieval and answer
            // quality"); typo tolerance 1.0 wins along its axis in all five folds, and the other
            // ranking options (min-max cosines, page evidence, per-page limit, page-top penalty)
            // stay off: no fold gained more than a question from them. The pointing penalty
            // moves only textbook 2 (the one labelled book with quiz pages; the others are equal
            // with it), so leave-one-book-out cannot choose it: off.
            dense_weight: 0.7,
            current_page_boost: 0.05,
            // Fallbacks only: `index-builder build` replaces the three refusal values with
            // thresholds calibrated on the book itself (index-builder/src/calibrate.rs).
            coverage_weight: 0.8,
            min_relevance: 0.77,
            min_coverage: 0.35,
            unseen_penalty: 0.0,
            hybrid_min_coverage: None,
            common_unseen_weight: None,
            min_cosine: None,
            candidates_per_result: 10,
            passage_weight: 0.5,
            fuzzy_weight: 1.0,
            page_weight: 0.0,
            max_per_page: 0,
            normalize_dense: false,
            top_penalty: 0.0,
            pointing_penalty: 0.0,
        }
    }
}

/// One page of the book, for citations of the page as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageInfo {
    /// Site URL of the page (no anchor).
    pub url: String,
    /// The page title (the chapter).
    pub title: String,
    /// Source path under the docs folder, `/`-separated.
    pub path: String,
    /// Module label (the top-level category's label).
    pub module: String,
}

/// Everything in the index besides vectors and postings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct IndexMeta {
    /// Every chunk's metadata, in chunk order.
    pub chunks: Vec<ChunkMeta>,
    /// Every page, in page order ([`ChunkMeta::page`] points here).
    pub pages: Vec<PageInfo>,
    /// How this index is searched.
    pub settings: SearchSettings,
    /// Title of the book, for prompts.
    pub book_title: String,
    /// Common English words the book never uses ([`CommonWords`]), so an unseen query term can be
    /// told apart from a name the book lacks. Empty in indexes built before it existed.
    #[serde(default)]
    pub common_words: CommonWords,
    /// Chunks whose follow-up question ([`IndexMeta::follow_ups`]) this index refuses with the
    /// encoder: a reader clicking it would be told the book does not cover it, so
    /// it is never offered. Sorted; marked by the build after calibration. Empty in indexes built
    /// before it existed (every follow-up offered, as before).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unaskable: Vec<u32>,
    /// Per chunk, the follow-up question a reader is offered for its section (phrased by the
    /// build from the heading, in the book's own casing: `book_answer::phrasing`), or `""` when
    /// the heading makes none. Empty in indexes built before it existed: no follow-ups are offered
    /// (the widget carries no phrasing rules).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub follow_ups: Vec<String>,
}

/// Which signals a search uses: hybrid is the default; the others exist for evaluation and for
/// the time before the encoder has arrived in the browser.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// BM25 and dense scores fused (the shipped default).
    Hybrid,
    /// Words only: before the encoder has loaded, or when the question vector is unusable.
    Bm25Only,
    /// Meaning only (evaluation).
    DenseOnly,
}

/// A question to the index.
#[derive(Debug, Clone, Copy)]
pub struct SearchRequest<'a> {
    /// The question as the reader typed it.
    pub query: &'a str,
    /// The encoded question; `None` until the encoder has loaded (then BM25 alone is used).
    pub query_vector: Option<&'a [f32]>,
    /// Results wanted (clamped to 1..=[`MAX_K`]).
    pub k: usize,
    /// URL (without anchor) of the page the reader is on; its chunks get a boost.
    pub current_page_url: Option<&'a str>,
    /// URL of the first source the previous answer listed, for a follow-up (`None` for a question
    /// that is not one). A reader's follow-up stays on its subject but asks for more than that
    /// section said ("and for zsh?" after the bash instructions): the other sections of its page
    /// get the current page's boost (once for a chunk also on the current page), that section
    /// itself does not.
    pub conversation_source_url: Option<&'a str>,
    /// The reader's own words, when `query` adds others to them (a follow-up's borrowed topic
    /// words); `None`: `query`. A question that is word for word a section's follow-up
    /// ([`IndexMeta::follow_ups`]) ranks that section first: see [`Index::chunks_offering`].
    pub asked: Option<&'a str>,
    /// URL of the section that offered `asked` as a follow-up, when the reader clicked it: of the
    /// sections offering the same question (the Docusaurus docs' 17 "Example configuration"
    /// sections ask "Can you show the example configuration?"), that one comes first.
    pub offered_by: Option<&'a str>,
    /// The question is about a passage of the book the reader selected ("Ask about this"): the
    /// book holds its subject, so it is never refused (while anything matches), however little
    /// of the passage `query` repeats.
    pub about_passage: bool,
    /// Which signals to use.
    pub mode: Mode,
    /// Exact f32 vectors (one row per chunk) to use instead of the quantized ones: evaluation only.
    pub exact_vectors: Option<&'a [f32]>,
}

impl<'a> SearchRequest<'a> {
    /// A hybrid search for `query` with default settings.
    pub fn new(query: &'a str, query_vector: Option<&'a [f32]>) -> Self {
        Self {
            query,
            query_vector,
            k: DEFAULT_K,
            current_page_url: None,
            conversation_source_url: None,
            asked: None,
            offered_by: None,
            about_passage: false,
            mode: Mode::Hybrid,
            exact_vectors: None,
        }
    }
}

/// One result: a chunk, with the signals that ranked it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// Chunk number (index into [`IndexMeta::chunks`]).
    pub chunk: u32,
    /// Fused score, in [0, 1] plus any page boost.
    pub score: f32,
    /// Cosine of question and chunk, when the encoder was used.
    pub dense: Option<f32>,
    /// Raw BM25 score of the chunk (the fusion divides it by the best candidate's).
    pub bm25: f32,
    /// Share of the question's term weight that the chunk contains.
    pub coverage: f32,
    /// The signal the refusal threshold is applied to (see [`SearchSettings::coverage_weight`]).
    pub relevance: f32,
}

/// The results of a search: best first, one per section.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResults {
    /// The hits, best first.
    pub hits: Vec<Hit>,
    /// Nothing passed the relevance threshold: the book does not cover the question. `hits` then
    /// holds the nearest sections anyway, for "see also" links.
    pub refused: bool,
    /// Which signals were used.
    pub mode: Mode,
    /// The relevance a hit needs to count as an answer, in this mode.
    pub threshold: f32,
    /// With the encoder and a words test (`SearchSettings::hybrid_min_coverage`): how far the
    /// question's best term coverage clears that test (negative: it falls short). A question the
    /// words carry is answered whatever its cosine, so its answer is not borderline because the
    /// relevance is: the confidence reads the larger of the two margins.
    pub words_margin: Option<f32>,
    /// Hybrid only: the best hit is also the best candidate by words alone (BM25) and by meaning
    /// alone (cosine). When the three rankings agree the top source is right far more often
    /// (0.85–0.92 on every labelled book), a signal for the answer's confidence.
    pub agree: bool,
}

/// A loaded index.
#[derive(Debug, Clone)]
pub struct Index {
    /// The model the vectors were made with (must match the encoder's).
    pub model_id: String,
    /// Content hash of the index body: the chunk-text file names the index it belongs to by it.
    pub content_hash: String,
    /// Chunks, pages and settings.
    pub meta: IndexMeta,
    /// One int8 vector per chunk.
    pub vectors: QuantizedVectors,
    /// The BM25 postings.
    pub bm25: Bm25,
    /// HNSW graph over the vectors, present in indexes built above the brute-force crossover;
    /// it then supplies the dense candidates, which are rescored exactly as usual.
    pub ann: Option<std::sync::Arc<AnnGraph>>,
}

/// Vectors of short passages of the long chunks (format 2): what a question about one detail is
/// closest to. Each belongs to one chunk, which it can only lift (see
/// [`SearchSettings::passage_weight`]); results and quotes stay whole chunks.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageVectors {
    /// For each passage vector, the chunk it is part of.
    pub chunk_of: Vec<u32>,
    /// One int8 vector per passage.
    pub vectors: QuantizedVectors,
}

/// The HNSW graph type; without the `ann` feature it has no values, and a graph section in a
/// file is skipped (the brute-force scan gives the same candidates, a little slower past ~30k chunks).
#[cfg(feature = "ann")]
pub type AnnGraph = crate::ann::Ann;
/// The HNSW graph type; without the `ann` feature it has no values.
#[cfg(not(feature = "ann"))]
#[derive(Debug)]
pub enum AnnGraph {}

impl Index {
    /// Number of chunks.
    pub fn len(&self) -> usize {
        self.meta.chunks.len()
    }

    /// Whether the index has no chunks.
    pub fn is_empty(&self) -> bool {
        self.meta.chunks.is_empty()
    }

    /// Metadata of chunk `i`.
    pub fn chunk(&self, i: u32) -> Option<&ChunkMeta> {
        self.meta.chunks.get(i as usize)
    }

    /// The chunks whose follow-up question ([`IndexMeta::follow_ups`]) is `question`, case,
    /// spacing and a final "?" aside. A reader who clicks "Can you show the example
    /// configuration?" under an answer asks about the section that offered it, not about whichever
    /// of the book's many "Example configuration" sections the words happen to rank first; the
    /// search ranks these chunks first (when several sections share the question, the one it was
    /// clicked under, `SearchRequest::offered_by`, then the current page's).
    pub fn chunks_offering(&self, question: &str) -> Vec<u32> {
        // Compared word by word without allocating: every search scans every stored question.
        fn words(q: &str) -> std::str::SplitWhitespace<'_> {
            q.trim().trim_end_matches('?').split_whitespace()
        }
        // ASCII words (nearly all) compare by length first; others by their lowercase letters.
        let same = |a: &str, b: &str| {
            if a.is_ascii() && b.is_ascii() {
                a.eq_ignore_ascii_case(b)
            } else {
                a.chars()
                    .flat_map(char::to_lowercase)
                    .eq(b.chars().flat_map(char::to_lowercase))
            }
        };
        let asked: Vec<&str> = words(question).collect();
        if asked.is_empty() {
            return Vec::new();
        }
        let offers = |f: &str| {
            let mut theirs = words(f);
            asked
                .iter()
                .all(|a| theirs.next().is_some_and(|w| same(a, w)))
                && theirs.next().is_none()
        };
        self.meta
            .follow_ups
            .iter()
            .enumerate()
            .filter(|(_, f)| offers(f))
            .map(|(i, _)| i as u32)
            .collect()
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.vectors.dim
    }

    /// Serializes the index.
    pub fn to_bytes(&self) -> Result<Vec<u8>, AssetError> {
        let meta = serde_json::to_vec(&self.meta).map_err(|e| corrupt(format!("metadata: {e}")))?;
        let mut bm = Writer::default();
        self.bm25.write(&mut bm);
        let mut body = Writer::default();
        body.bytes(&miniz_oxide::deflate::compress_to_vec(&meta, 9));
        body.i8s(&self.vectors.codes);
        body.f32s(&self.vectors.scales);
        body.bytes(&miniz_oxide::deflate::compress_to_vec(&bm.buf, 9));
        if let Some(h) = &self.vectors.passages {
            body.u32s(&h.chunk_of);
            body.i8s(&h.vectors.codes);
            body.f32s(&h.vectors.scales);
        }
        if let Some(ann) = &self.ann {
            // Optional trailing section: readers of this version treat "no more bytes" as no graph.
            #[cfg(feature = "ann")]
            body.bytes(&ann.to_bytes()?);
            #[cfg(not(feature = "ann"))]
            match **ann {}
        }
        let version = if self.vectors.passages.is_some() {
            INDEX_VERSION
        } else {
            1
        };
        let mut out = envelope(INDEX_MAGIC, version);
        out.str(&self.model_id);
        out.u32(self.vectors.dim as u32);
        out.u32(self.len() as u32);
        out.hashed_body(&body.buf);
        Ok(out.finish())
    }

    /// Loads an index file, validating magic, version, hash, counts, dimension and every number.
    /// `expected_dim` is the encoder's dimension when one is in use.
    pub fn from_bytes(data: &[u8], expected_dim: Option<usize>) -> Result<Index, AssetError> {
        let opened = Self::open(data, expected_dim)?;
        let [meta, bm25] = opened.deflated();
        let inflated = [inflate(meta)?, inflate(bm25)?];
        opened.finish(inflated)
    }

    /// The first half of [`Index::from_bytes`]: checks the envelope, hash and dimension and finds
    /// the two deflated sections, for a caller that inflates them itself (the widget, with the
    /// browser's own `DecompressionStream`: no inflater in its wasm) before [`OpenedIndex::finish`].
    pub fn open(data: &[u8], expected_dim: Option<usize>) -> Result<OpenedIndex<'_>, AssetError> {
        let (version, mut r) = open_envelope(data, INDEX_MAGIC, INDEX_VERSIONS_READ, WHAT)?;
        let model_id = r.str()?.to_string();
        let dim = r.u32()? as usize;
        let count = r.u32()? as usize;
        let (hash, body) = r.hashed_body()?;
        let hash = hash.to_string();
        if dim == 0 || dim > 4096 {
            return Err(corrupt(format!("dimension {dim}")));
        }
        if let Some(expected) = expected_dim.filter(|&e| e != dim) {
            return Err(AssetError::DimensionMismatch {
                what: WHAT,
                expected,
                found: dim,
            });
        }
        let mut rest = Reader::new(body, WHAT);
        let meta = rest.bytes()?;
        let codes = rest.i8s()?;
        let scales = rest.f32s()?;
        let bm25 = rest.bytes()?;
        Ok(OpenedIndex {
            version,
            model_id,
            dim,
            count,
            hash,
            deflated: [meta, bm25],
            codes,
            scales,
            rest,
        })
    }
}

/// An index file opened by [`Index::open`]: checked up to its two deflated sections (metadata,
/// BM25), which the caller inflates and hands to [`OpenedIndex::finish`].
pub struct OpenedIndex<'a> {
    version: u32,
    model_id: String,
    dim: usize,
    count: usize,
    hash: String,
    deflated: [&'a [u8]; 2],
    codes: Vec<i8>,
    scales: Vec<f32>,
    /// The body after the BM25 section (passage vectors, the HNSW graph).
    rest: Reader<'a>,
}

impl OpenedIndex<'_> {
    /// The deflated metadata and BM25 sections (raw deflate, as `Index::to_bytes` writes them),
    /// in the order [`OpenedIndex::finish`] takes them inflated.
    pub fn deflated(&self) -> [&[u8]; 2] {
        self.deflated
    }

    /// Builds the index from the inflated metadata and BM25 sections, validating every count and
    /// number as [`Index::from_bytes`] does. An inflated section larger than the reader allows is
    /// refused like one that does not inflate.
    pub fn finish(self, [meta_bytes, bm_bytes]: [Vec<u8>; 2]) -> Result<Index, AssetError> {
        if meta_bytes.len() > MAX_SECTION_BYTES || bm_bytes.len() > MAX_SECTION_BYTES {
            return Err(corrupt("an inflated section is implausibly large".into()));
        }
        let OpenedIndex {
            version,
            model_id,
            dim,
            count,
            hash,
            codes,
            scales,
            mut rest,
            ..
        } = self;
        let r = &mut rest;
        let meta: IndexMeta =
            crate::json::from_slice(&meta_bytes).map_err(|e| corrupt(format!("metadata: {e}")))?;
        if meta.chunks.len() != count || scales.len() != count || codes.len() != count * dim {
            return Err(corrupt("chunk, vector and scale counts disagree".into()));
        }
        if !meta.follow_ups.is_empty() && meta.follow_ups.len() != count {
            return Err(corrupt("follow-up and chunk counts disagree".into()));
        }
        if meta
            .chunks
            .iter()
            .any(|c| c.page as usize >= meta.pages.len())
        {
            return Err(corrupt(
                "a chunk points to a page that does not exist".into(),
            ));
        }
        if !settings_are_sane(&meta.settings) {
            return Err(corrupt("search settings out of range".into()));
        }
        let bm25 = Bm25::read(&mut Reader::new(&bm_bytes, "index BM25 section"), count)?;
        let passages = if version >= 2 {
            let chunk_of = r.u32s()?;
            let codes = r.i8s()?;
            let scales = r.f32s()?;
            if chunk_of.len() != scales.len()
                || codes.len() != scales.len() * dim
                || chunk_of.iter().any(|&c| c as usize >= count)
            {
                return Err(corrupt("passage vectors disagree with the chunks".into()));
            }
            Some(Box::new(PassageVectors {
                chunk_of,
                vectors: QuantizedVectors {
                    dim,
                    codes,
                    scales,
                    passages: None,
                },
            }))
        } else {
            None
        };
        let vectors = QuantizedVectors {
            dim,
            codes,
            scales,
            passages,
        };
        // Optional trailing section: the HNSW graph of indexes built above the crossover.
        let ann = if r.is_empty() {
            None
        } else {
            let graph = r.bytes()?;
            #[cfg(feature = "ann")]
            let ann = Some(std::sync::Arc::new(crate::ann::Ann::from_bytes(
                graph, &vectors,
            )?));
            #[cfg(not(feature = "ann"))]
            let ann = {
                let _ = graph;
                None
            };
            ann
        };
        if !r.is_empty() {
            return Err(corrupt("trailing bytes after the last section".into()));
        }
        Ok(Index {
            model_id,
            content_hash: hash,
            meta,
            vectors,
            bm25,
            ann,
        })
    }
}

impl Index {
    /// Searches the book. Never panics: a bad vector (wrong length, NaN) falls back to BM25 alone.
    pub fn search(&self, req: &SearchRequest) -> SearchResults {
        let k = req.k.clamp(1, MAX_K);
        let s = &self.meta.settings;
        let n = self.len();
        let bm = self
            .bm25
            .score_fuzzy(req.query, s.fuzzy_weight, &self.meta.common_words);
        let qv = req
            .query_vector
            .filter(|v| v.len() == self.dim() && v.iter().all(|x| x.is_finite()))
            .filter(|_| req.mode != Mode::Bm25Only);
        let mode = match (req.mode, qv) {
            (Mode::Bm25Only, _) | (_, None) => Mode::Bm25Only,
            (m, Some(_)) => m,
        };
        let pool = (k * s.candidates_per_result.max(1)).min(n);
        // Candidates: the best of each retriever.
        let mut cand: Vec<u32> = Vec::with_capacity(pool * 2);
        if mode != Mode::DenseOnly {
            cand.extend(
                top_indices(&bm.scores, pool)
                    .into_iter()
                    .filter(|&i| bm.scores[i as usize] > 0.0),
            );
        }
        // Passage vectors (format 2): each chunk's best passage cosine; the best passages also
        // nominate their chunks as candidates.
        let passage_w = s.passage_weight;
        let passage_best: Option<(Vec<f32>, Vec<u32>)> = match (&self.vectors.passages, qv) {
            (Some(p), Some(q)) if passage_w > 0.0 => {
                let mut best = vec![f32::NEG_INFINITY; n];
                let cos: Vec<f32> = (0..p.vectors.len())
                    .map(|r| p.vectors.exact(q, r))
                    .collect();
                for (&c, &v) in p.chunk_of.iter().zip(&cos) {
                    let b = &mut best[c as usize];
                    *b = b.max(v);
                }
                let top = top_indices(&cos, pool.min(cos.len()))
                    .into_iter()
                    .map(|r| p.chunk_of[r as usize])
                    .collect();
                Some((best, top))
            }
            _ => None,
        };
        let dense_of = |i: u32| -> Option<f32> {
            let q = qv?;
            let own = match req.exact_vectors {
                Some(ev) if ev.len() == n * self.dim() => ev
                    [i as usize * self.dim()..(i as usize + 1) * self.dim()]
                    .iter()
                    .zip(q)
                    .map(|(a, b)| a * b)
                    .sum(),
                _ => self.vectors.exact(q, i as usize),
            };
            Some(own)
        };
        // The ranking cosine: lifted by the chunk's best passage. Refusal and the hit's reported
        // cosine keep the chunk's own, so their thresholds keep their scale.
        let lifted = |i: u32, own: f32| -> f32 {
            match &passage_best {
                Some((best, _)) => (1.0 - passage_w) * own + passage_w * own.max(best[i as usize]),
                None => own,
            }
        };
        if let Some(q) = qv {
            match req.exact_vectors {
                Some(ev) if ev.len() == n * self.dim() => cand.extend(
                    crate::vectors::exact_search(ev, self.dim(), q, pool)
                        .into_iter()
                        .map(|p| p.0),
                ),
                _ => match &self.ann {
                    #[cfg(feature = "ann")]
                    Some(ann) => cand.extend(ann.search(q, pool).into_iter().map(|p| p.0)),
                    #[cfg(not(feature = "ann"))]
                    Some(ann) => match **ann {},
                    None => cand.extend(self.vectors.search(q, pool).into_iter().map(|p| p.0)),
                },
            }
            if let Some((_, top)) = &passage_best {
                cand.extend(top);
            }
        }
        // The sections the question is the follow-up of compete whatever their scores.
        let pinned = self.chunks_offering(req.asked.unwrap_or(req.query));
        cand.extend(pinned.iter().copied().filter(|&i| (i as usize) < n));
        cand.sort_unstable();
        cand.dedup();
        let unseen = s.unseen_penalty * unseen_count(&bm, s.common_unseen_weight);
        let best_cov = bm.coverage.iter().copied().fold(0f32, f32::max);
        let max_bm = cand
            .iter()
            .map(|&i| bm.scores[i as usize])
            .fold(0f32, f32::max);
        let scored: Vec<(u32, Option<f32>, Option<f32>)> = cand
            .into_iter()
            .map(|i| {
                let dense = dense_of(i);
                (i, dense, dense.map(|d| lifted(i, d)))
            })
            .collect();
        // The best candidate by meaning alone (the ranking cosine), for `agree`.
        let by_meaning = best_chunk(scored.iter().filter_map(|c| c.2.map(|d| (c.0, d))));
        // Min-max normalization of the ranking cosine over the candidates (when the settings
        // ask for it), so both signals span [0, 1] like the max-normalized BM25.
        let (lo, hi) = scored
            .iter()
            .filter_map(|c| c.2.map(|d| d.max(0.0)))
            .fold((f32::MAX, f32::MIN), |(lo, hi), d| (lo.min(d), hi.max(d)));
        let spread = |d: f32| -> f32 {
            if s.normalize_dense && hi > lo {
                (d - lo) / (hi - lo)
            } else {
                d
            }
        };
        // A bare topic ("whisper", "defaults list"): its analyzed terms, for `TOPIC_INTRO_BOOST`.
        let topic = crate::analyzer::bare_topic(req.query);
        let mut hits: Vec<Hit> = scored
            .into_iter()
            .map(|(i, dense, ranking)| {
                let b = bm.scores[i as usize];
                let b_norm = if max_bm > 0.0 { b / max_bm } else { 0.0 };
                let score = match (mode, ranking.map(|d| d.max(0.0))) {
                    (Mode::Hybrid, Some(d)) => {
                        s.dense_weight * spread(d) + (1.0 - s.dense_weight) * b_norm
                    }
                    (Mode::DenseOnly, Some(d)) => d,
                    _ => b_norm,
                } * {
                    let meta = &self.meta.chunks[i as usize];
                    let top = if meta.section.is_none() {
                        1.0 - s.top_penalty
                    } else {
                        1.0
                    };
                    let pointing = if s.pointing_penalty > 0.0 && meta.points_elsewhere() {
                        1.0 - s.pointing_penalty
                    } else {
                        1.0
                    };
                    let intro = match &topic {
                        Some(terms) if crate::chunk::introduces(meta, terms) => {
                            1.0 + TOPIC_INTRO_BOOST
                        }
                        _ => 1.0,
                    };
                    top * pointing * intro
                };
                let coverage = bm.coverage[i as usize];
                let relevance = match dense {
                    Some(d) if mode != Mode::Bm25Only => d + s.coverage_weight * coverage,
                    _ => coverage,
                } - unseen;
                Hit {
                    chunk: i,
                    score,
                    dense,
                    bm25: b,
                    coverage,
                    relevance,
                }
            })
            .collect();
        // The refusal's signals are the best of every candidate (before one-per-section and the
        // cut to `k`), so they do not depend on how the hits are ranked; each cosine is computed once.
        let best_dense = hits.iter().filter_map(|h| h.dense).fold(f32::MIN, f32::max);
        // The best candidate by words alone, for `agree`.
        let by_words = best_chunk(
            hits.iter()
                .filter_map(|h| (h.bm25 > 0.0).then_some((h.chunk, h.bm25))),
        );
        let on_page = |chunk: u32, url: Option<&str>| {
            url.is_some_and(|url| {
                let page = self.meta.chunks[chunk as usize].page as usize;
                self.meta
                    .pages
                    .get(page)
                    .is_some_and(|p| same_page(&p.url, url))
            })
        };
        let on_current_page = |chunk: u32| on_page(chunk, req.current_page_url);
        let beside_conversation_source = |chunk: u32| {
            let url = self.meta.chunks[chunk as usize].url.as_str();
            on_page(chunk, req.conversation_source_url) && req.conversation_source_url != Some(url)
        };
        for h in hits
            .iter_mut()
            .filter(|h| on_current_page(h.chunk) || beside_conversation_source(h.chunk))
        {
            h.score += s.current_page_boost;
        }
        crate::sort::sort_by(&mut hits, &by_score);
        // A follow-up's own section first; of several sections offering it, the one the reader
        // clicked it under, then the current page's, then the best-scored (a stable sort keeps
        // the score order).
        let clicked_under = |chunk: u32| {
            req.offered_by
                .is_some_and(|url| self.meta.chunks[chunk as usize].url == url)
        };
        let pin_first = |hits: &mut Vec<Hit>| {
            if !pinned.is_empty() {
                let key = |h: &Hit| {
                    let pin = pinned.contains(&h.chunk);
                    (
                        !pin,
                        !(pin && clicked_under(h.chunk)),
                        !(pin && on_current_page(h.chunk)),
                    )
                };
                crate::sort::sort_by(hits, &|a, b| key(a).cmp(&key(b)));
            }
        };
        pin_first(&mut hits);
        let top = hits.first().map(|h| h.chunk);
        let agree = mode == Mode::Hybrid && top.is_some() && top == by_words && top == by_meaning;
        // One result per section: the parts of a long section compete for one slot (a few dozen
        // hits: compared with those kept, no set needed).
        let mut kept: Vec<&ChunkMeta> = Vec::with_capacity(hits.len());
        hits.retain(|h| {
            let c = &self.meta.chunks[h.chunk as usize];
            let new = !kept
                .iter()
                .any(|o| o.page == c.page && o.url == c.url && o.section == c.section);
            if new {
                kept.push(c);
            }
            new
        });
        if s.page_weight > 0.0 {
            self.add_page_evidence(&mut hits, s.page_weight);
        }
        if s.max_per_page > 0 {
            self.limit_per_page(&mut hits, s.max_per_page as usize, k);
        }
        pin_first(&mut hits);
        hits.truncate(k);
        // The relevance threshold: does anything found actually answer the question?
        // Best cosine and best coverage may come from different hits: either can carry the answer.
        let threshold = if mode == Mode::Bm25Only {
            s.min_coverage
        } else {
            s.min_relevance
        };
        let best = match mode {
            Mode::Bm25Only => best_cov,
            _ => best_dense + s.coverage_weight * best_cov,
        } - unseen;
        // With the encoder and `hybrid_min_coverage`, the words must fall short as well.
        let words_margin = match s.hybrid_min_coverage {
            Some(min) if mode == Mode::Hybrid && bm.query_terms > 0 => {
                Some(best_cov - unseen - min)
            }
            _ => None,
        };
        let words_refuse = match s.hybrid_min_coverage {
            Some(_) if mode == Mode::Hybrid => words_margin.is_none_or(|m| m < 0.0),
            _ => true,
        };
        // With the encoder, meaning can veto what the words alone would answer.
        let off_topic =
            mode != Mode::Bm25Only && s.min_cosine.is_some_and(|floor| best_dense < floor);
        let refused = hits.is_empty()
            || (!req.about_passage
                && ((mode == Mode::Bm25Only && bm.query_terms == 0)
                    || off_topic
                    || (best < threshold && words_refuse)));
        SearchResults {
            hits,
            refused,
            mode,
            threshold,
            words_margin,
            agree,
        }
    }
}

impl Index {
    /// Raises each hit (one per section, best first) by `weight` × the best score of another hit
    /// on its page, then re-sorts.
    fn add_page_evidence(&self, hits: &mut [Hit], weight: f32) {
        // The two best scores of each page: a section's evidence is the best *other* one.
        let page = |h: &Hit| self.meta.chunks[h.chunk as usize].page as usize;
        let pages = hits.iter().map(page).max().map_or(0, |p| p + 1);
        let mut best = vec![(f32::MIN, f32::MIN); pages];
        for h in hits.iter() {
            let e = &mut best[page(h)];
            if h.score > e.0 {
                *e = (h.score, e.0);
            } else if h.score > e.1 {
                e.1 = h.score;
            }
        }
        for h in hits.iter_mut() {
            let (first, second) = best[page(h)];
            let other = if h.score >= first { second } else { first };
            if other > f32::MIN {
                h.score += weight * other.max(0.0);
            }
        }
        crate::sort::sort_by(hits, &by_score);
    }

    /// Reorders hits so the first `k` hold at most `per_page` of one page while hits from other
    /// pages remain; the others follow in their order.
    fn limit_per_page(&self, hits: &mut Vec<Hit>, per_page: usize, k: usize) {
        let page = |h: &Hit| self.meta.chunks[h.chunk as usize].page as usize;
        let pages = hits.iter().map(page).max().map_or(0, |p| p + 1);
        let mut count = vec![0usize; pages];
        let (mut top, mut rest) = (Vec::with_capacity(k), Vec::with_capacity(hits.len()));
        for h in hits.drain(..) {
            let n = &mut count[page(&h)];
            if top.len() < k && *n < per_page {
                *n += 1;
                top.push(h);
            } else {
                rest.push(h);
            }
        }
        // Too few pages: the best of the rest fill the top after all.
        let fill = k.saturating_sub(top.len()).min(rest.len());
        top.extend(rest.drain(..fill));
        top.extend(rest);
        *hits = top;
    }
}

fn settings_are_sane(s: &SearchSettings) -> bool {
    // `contains` is false for NaN, so NaN settings are rejected too.
    let unit = |v: f32| (-1.0..=1.0).contains(&v);
    unit(s.dense_weight)
        && unit(s.current_page_boost)
        && (0.0..=4.0).contains(&s.coverage_weight)
        && (0.0..=4.0).contains(&s.min_relevance)
        && unit(s.min_coverage)
        && (0.0..=1.0).contains(&s.unseen_penalty)
        && s.hybrid_min_coverage
            .is_none_or(|c| (0.0..=2.0).contains(&c))
        && s.common_unseen_weight
            .is_none_or(|c| (0.0..=1.0).contains(&c))
        && s.min_cosine.is_none_or(|c| (0.0..=1.0).contains(&c))
        && (1..=1000).contains(&s.candidates_per_result)
        && (0.0..=1.0).contains(&s.passage_weight)
        && (0.0..=1.0).contains(&s.fuzzy_weight)
        && (0.0..=1.0).contains(&s.page_weight)
        && s.max_per_page <= 1000
        && (0.0..=0.5).contains(&s.top_penalty)
        && (0.0..=0.9).contains(&s.pointing_penalty)
}

/// The chunk with the highest value (ties: the lowest chunk id), if any.
fn best_chunk(values: impl Iterator<Item = (u32, f32)>) -> Option<u32> {
    values
        .fold(None, |best: Option<(u32, f32)>, (c, v)| match best {
            Some((bc, bv)) if bv > v || (bv == v && bc < c) => Some((bc, bv)),
            _ => Some((c, v)),
        })
        .map(|b| b.0)
}

/// Whether two URLs name the same page (anchors, query strings and a trailing slash ignored).
pub fn same_page(a: &str, b: &str) -> bool {
    fn path(u: &str) -> &str {
        let u = u.split(['#', '?']).next().unwrap_or(u);
        let u = u
            .find("://")
            .map_or(u, |i| u[i + 3..].find('/').map_or("/", |j| &u[i + 3 + j..]));
        u.trim_end_matches('/')
    }
    path(a) == path(b)
}

/// Best score first, ties by chunk number (a total order: the same hits always rank the same).
fn by_score(a: &Hit, b: &Hit) -> std::cmp::Ordering {
    b.score.total_cmp(&a.score).then(a.chunk.cmp(&b.chunk))
}

/// Indices of the `k` largest values, in no particular order.
fn top_indices(values: &[f32], k: usize) -> Vec<u32> {
    let mut idx: Vec<u32> = (0..values.len() as u32).collect();
    if k < idx.len() && k > 0 {
        idx.select_nth_unstable_by(k - 1, |&a, &b| {
            values[b as usize].total_cmp(&values[a as usize])
        });
        idx.truncate(k);
    } else if k == 0 {
        idx.clear();
    }
    idx
}

/// At most this many unseen query terms count against a question (see
/// [`SearchSettings::unseen_penalty`]).
pub const MAX_UNSEEN_TERMS: usize = 3;

/// How many unseen query terms count against a question, at most [`MAX_UNSEEN_TERMS`]: with a
/// `common_weight` ([`SearchSettings::common_unseen_weight`]) a name the book lacks counts 1, a
/// common English word `common_weight` and a likely typo of a book term 0; without, every unseen
/// term counts 1. The one definition used by the search and the build's calibration.
pub fn unseen_count(bm: &crate::bm25::Bm25Scores, common_weight: Option<f32>) -> f32 {
    weigh_unseen(
        UnseenTerms {
            query: bm.query_terms,
            all: bm.unseen_terms,
            typos: bm.unseen_typos,
            common: bm.unseen_common,
        },
        common_weight,
    )
}

/// A question's term counts that [`weigh_unseen`] reads (see [`crate::bm25::Bm25Scores`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct UnseenTerms {
    /// Distinct searchable terms of the question.
    pub query: usize,
    /// Of those, terms the book never uses.
    pub all: usize,
    /// Of `all`, likely typos of a book term.
    pub typos: usize,
    /// Of `all`, common English words that are not typos.
    pub common: usize,
}

/// [`unseen_count`] from the counts alone. An everyday word the book never uses is a reader's own
/// wording only next to words the book does use: when at least half of the question's terms are
/// unseen (typos aside), the question is about something else ("a recipe for chocolate cake": every
/// word common English), and its common words count in full like names.
pub fn weigh_unseen(t: UnseenTerms, common_weight: Option<f32>) -> f32 {
    let unseen = t.all.saturating_sub(t.typos);
    let mostly_unseen = 2 * unseen >= t.query.max(1);
    let n = match common_weight {
        None => t.all as f32,
        Some(_) if mostly_unseen => unseen as f32,
        Some(c) => unseen.saturating_sub(t.common) as f32 + c * t.common as f32,
    };
    n.min(MAX_UNSEEN_TERMS as f32)
}

/// Inflates a deflate section, refusing anything implausibly large ([`MAX_SECTION_BYTES`]).
pub fn inflate(data: &[u8]) -> Result<Vec<u8>, AssetError> {
    miniz_oxide::inflate::decompress_to_vec_with_limit(data, MAX_SECTION_BYTES).map_err(|e| {
        corrupt(format!(
            "compressed section does not inflate ({:?})",
            e.status
        ))
    })
}

fn corrupt(reason: String) -> AssetError {
    AssetError::Corrupt { what: WHAT, reason }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_question_about_a_selected_passage_is_never_refused_while_something_matches() {
        let idx = crate::testing::index();
        // Off the book's subject but for one word of it: refused as a question of its own.
        let q = "what would this cost in a pizza restaurant kitchen with nodes";
        let own = idx.search(&super::SearchRequest {
            mode: super::Mode::Bm25Only,
            ..super::SearchRequest::new(q, None)
        });
        assert!(
            own.refused,
            "the question is not refused alone: nothing is checked"
        );
        let about = idx.search(&super::SearchRequest {
            mode: super::Mode::Bm25Only,
            about_passage: true,
            ..super::SearchRequest::new(q, None)
        });
        assert!(!about.refused && !about.hits.is_empty());
        // Nothing matching at all is still nothing to show.
        let none = idx.search(&super::SearchRequest {
            mode: super::Mode::Bm25Only,
            about_passage: true,
            ..super::SearchRequest::new("zzqx", None)
        });
        assert!(none.refused);
    }

    /// The tiny index with passage vectors: one passage of chunk 3 whose vector is `v`.
    fn with_passage(v: &[f32]) -> super::Index {
        let mut idx = crate::testing::unwritten_index();
        idx.vectors.passages = Some(Box::new(super::PassageVectors {
            chunk_of: vec![3],
            vectors: crate::vectors::QuantizedVectors::quantize(v, v.len()),
        }));
        idx
    }

    #[test]
    fn passage_vectors_are_format_2_and_round_trip() {
        let q = crate::testing::encoder().encode("friction and gravity");
        let idx = with_passage(&q);
        let bytes = idx.to_bytes().unwrap();
        assert_eq!(bytes[8..12], super::INDEX_VERSION.to_le_bytes());
        let back = super::Index::from_bytes(&bytes, Some(q.len())).unwrap();
        assert_eq!(back.vectors.passages, idx.vectors.passages);
        // Without passage vectors a book is still written as format 1.
        let v1 = crate::testing::index_bytes();
        assert_eq!(v1[8..12], 1u32.to_le_bytes());
    }

    #[test]
    fn a_passage_lifts_its_chunk_and_nominates_it() {
        let q = crate::testing::encoder().encode("friction and gravity");
        let mut idx = with_passage(&q);
        let req = super::SearchRequest {
            mode: super::Mode::DenseOnly,
            ..super::SearchRequest::new("friction and gravity", Some(&q))
        };
        idx.meta.settings.passage_weight = 0.0;
        let plain = idx.search(&req);
        idx.meta.settings.passage_weight = 1.0;
        let lifted = idx.search(&req);
        let score = |r: &super::SearchResults| {
            r.hits
                .iter()
                .find(|h| h.chunk == 3)
                .map(|h| h.score)
                .unwrap_or(-1.0)
        };
        assert!(score(&lifted) > score(&plain));
        assert!(
            (score(&lifted) - 1.0).abs() < 0.02,
            "the passage is the question"
        );
        assert_eq!(lifted.hits[0].chunk, 3);
    }

    #[test]
    fn a_follow_ups_conversation_page_gets_the_current_page_boost_beside_its_source() {
        let idx = crate::testing::index();
        let scores = |current: Option<&str>, conversation: Option<&str>| {
            let mut req = super::SearchRequest::new("topics and physics", None);
            req.current_page_url = current;
            req.conversation_source_url = conversation;
            let hits = idx.search(&req).hits;
            let of = |chunk: u32| hits.iter().find(|h| h.chunk == chunk).map(|h| h.score);
            (of(0), of(2))
        };
        let gazebo = Some(idx.meta.pages[1].url.as_str());
        let (nodes, physics) = scores(None, None);
        // The previous answer's source was the Gazebo page's top: its "Physics engine" section
        // is beside it.
        let (nodes_after, physics_after) = scores(None, gazebo);
        let boost = super::SearchSettings::default().current_page_boost;
        assert_eq!(
            nodes_after, nodes,
            "another page's section is left as it was"
        );
        let raised = physics_after.zip(physics).map(|(a, b)| a - b);
        assert!(
            raised.is_some_and(|d| (d - boost).abs() < 1e-6),
            "{raised:?}"
        );
        // On the current page as well: boosted once.
        assert_eq!(scores(gazebo, gazebo), scores(gazebo, None));
        // The source itself is not boosted: the follow-up asks for more than it said.
        let physics_url = idx.meta.chunks[2].url.clone();
        assert_eq!(scores(None, Some(physics_url.as_str())), (nodes, physics));
    }

    #[test]
    fn a_question_that_is_a_sections_follow_up_ranks_that_section_first() {
        let mut idx = crate::testing::index();
        let q = "How do I move the joints?";
        let top = |idx: &super::Index, req: &super::SearchRequest| {
            idx.search(req).hits.first().map(|h| h.chunk)
        };
        let words_alone = top(&idx, &super::SearchRequest::new(q, None));
        assert_eq!(words_alone, Some(3), "the words rank URDF joints first");
        // The page top offers it: clicked (or typed word for word, case and "?" aside), it
        // comes first.
        idx.meta.follow_ups = vec![q.into(), String::new(), String::new(), String::new()];
        assert_eq!(idx.chunks_offering("  how do i MOVE the joints "), vec![0]);
        assert_eq!(top(&idx, &super::SearchRequest::new(q, None)), Some(0));
        // Asked with borrowed words, the reader's own words still name the section.
        let mut req = super::SearchRequest::new("How do I move the joints? urdf", None);
        assert_eq!(top(&idx, &req), Some(3));
        req.asked = Some(q);
        assert_eq!(top(&idx, &req), Some(0));
        // Two sections offering one question: the current page's first.
        idx.meta.follow_ups = vec![q.into(), String::new(), String::new(), q.into()];
        let mut req = super::SearchRequest::new(q, None);
        assert_eq!(top(&idx, &req), Some(3), "the better-scored of the two");
        req.current_page_url = Some(idx.meta.pages[0].url.as_str());
        assert_eq!(top(&idx, &req), Some(0));
        // Clicked under one of them: that one, whatever the page.
        let under = idx.meta.chunks[3].url.clone();
        req.offered_by = Some(under.as_str());
        assert_eq!(top(&idx, &req), Some(3));
        // A URL no offering section has changes nothing.
        req.offered_by = Some("/docs/nowhere#else");
        assert_eq!(top(&idx, &req), Some(0));
        // Any other question is ranked as before.
        assert!(idx.chunks_offering("How do I move").is_empty());
        assert!(idx.chunks_offering("").is_empty());
    }

    #[test]
    fn a_section_that_points_elsewhere_is_ranked_lower_only_with_the_penalty() {
        let mut idx = crate::testing::index();
        let q = "gravity friction collisions physics";
        let v = crate::testing::encoder().encode(q);
        let plain = idx.search(&super::SearchRequest::new(q, Some(&v)));
        let top = plain.hits[0].chunk;
        // The same chunk, now a quiz's question: equal without the penalty, lower with it.
        idx.meta.chunks[top as usize].chapter = "Module 2 Quiz".into();
        let same = idx.search(&super::SearchRequest::new(q, Some(&v)));
        assert_eq!(same.hits[0].chunk, top);
        idx.meta.settings.pointing_penalty = 0.5;
        let lowered = idx.search(&super::SearchRequest::new(q, Some(&v)));
        let score = |r: &super::SearchResults| {
            r.hits
                .iter()
                .find(|h| h.chunk == top)
                .map_or(0.0, |h| h.score)
        };
        assert!((score(&lowered) - 0.5 * score(&plain)).abs() < 1e-6);
        // Refusal does not depend on the ranking.
        assert_eq!(lowered.refused, plain.refused);
        // Out of range: the loader rejects it.
        idx.meta.settings.pointing_penalty = 1.5;
        assert!(!super::settings_are_sane(&idx.meta.settings));
    }

    #[test]
    fn agreement_needs_words_meaning_and_fusion_on_the_same_chunk() {
        let idx = crate::testing::index();
        let q = "gravity friction collisions physics";
        let v = crate::testing::encoder().encode(q);
        let hybrid = idx.search(&super::SearchRequest::new(q, Some(&v)));
        let top = hybrid.hits[0].chunk;
        let best_words = hybrid
            .hits
            .iter()
            .max_by(|a, b| a.bm25.total_cmp(&b.bm25))
            .map(|h| h.chunk);
        let best_meaning = hybrid
            .hits
            .iter()
            .max_by(|a, b| a.dense.unwrap_or(-1.0).total_cmp(&b.dense.unwrap_or(-1.0)))
            .map(|h| h.chunk);
        assert_eq!(
            hybrid.agree,
            best_words == Some(top) && best_meaning == Some(top),
            "{hybrid:?}"
        );
        // Words alone never agree: there is nothing to agree with.
        let words = idx.search(&super::SearchRequest {
            mode: super::Mode::Bm25Only,
            ..super::SearchRequest::new(q, Some(&v))
        });
        assert!(!words.agree);
    }

    #[test]
    fn an_index_opened_then_finished_with_its_sections_inflated_elsewhere_is_the_same() {
        let q = crate::testing::encoder().encode("friction and gravity");
        let bytes = with_passage(&q).to_bytes().unwrap();
        let whole = super::Index::from_bytes(&bytes, None).unwrap();
        let opened = super::Index::open(&bytes, None).unwrap();
        let [meta, bm25] = opened.deflated();
        let inflated = [super::inflate(meta).unwrap(), super::inflate(bm25).unwrap()];
        let swapped = [inflated[1].clone(), inflated[0].clone()];
        let parts = opened.finish(inflated).unwrap();
        assert_eq!(parts.content_hash, whole.content_hash);
        assert_eq!(parts.meta.chunks, whole.meta.chunks);
        assert_eq!(parts.vectors.passages, whole.vectors.passages);
        // The sections handed back in the wrong order, or empty, are corrupt, not a panic.
        let opened = super::Index::open(&bytes, None).unwrap();
        assert!(matches!(
            opened.finish(swapped),
            Err(crate::AssetError::Corrupt { .. })
        ));
        let opened = super::Index::open(&bytes, None).unwrap();
        assert!(opened.finish([Vec::new(), Vec::new()]).is_err());
    }

    #[test]
    fn follow_ups_must_be_one_per_chunk() {
        let mut idx = crate::testing::index();
        idx.meta.follow_ups = vec!["What is a node?".into()];
        let bytes = idx.to_bytes().unwrap();
        assert!(matches!(
            super::Index::from_bytes(&bytes, None),
            Err(crate::AssetError::Corrupt { .. })
        ));
        idx.meta.follow_ups = vec![String::new(); idx.len()];
        let bytes = idx.to_bytes().unwrap();
        assert!(super::Index::from_bytes(&bytes, None).is_ok());
    }

    #[test]
    fn passage_pointing_past_the_chunks_is_corrupt() {
        let q = crate::testing::encoder().encode("x");
        let mut idx = with_passage(&q);
        if let Some(p) = idx.vectors.passages.as_mut() {
            p.chunk_of = vec![99];
        }
        let bytes = idx.to_bytes().unwrap();
        assert!(matches!(
            super::Index::from_bytes(&bytes, None),
            Err(crate::AssetError::Corrupt { .. })
        ));
    }

    fn hit(chunk: u32, score: f32) -> super::Hit {
        super::Hit {
            chunk,
            score,
            dense: None,
            bm25: 0.0,
            coverage: 0.0,
            relevance: 0.0,
        }
    }

    fn order(hits: &[super::Hit]) -> Vec<u32> {
        hits.iter().map(|h| h.chunk).collect()
    }

    #[test]
    fn page_evidence_lifts_a_section_whose_page_has_other_good_sections() {
        // Chunks 0 and 1 are on page 0, chunks 2 and 3 on page 1.
        let idx = crate::testing::unwritten_index();
        let mut hits = vec![hit(2, 0.60), hit(0, 0.58), hit(1, 0.55), hit(3, 0.10)];
        idx.add_page_evidence(&mut hits, 0.2);
        assert_eq!(order(&hits), vec![0, 1, 2, 3]);
        // Chunk 0 gets 0.2 × chunk 1's score, not its own.
        assert!((hits[0].score - (0.58 + 0.2 * 0.55)).abs() < 1e-6);
        // A page with one section gets nothing.
        let mut lone = vec![hit(2, 0.6), hit(0, 0.5)];
        idx.add_page_evidence(&mut lone, 0.5);
        assert_eq!((lone[0].score, lone[1].score), (0.6, 0.5));
    }

    #[test]
    fn per_page_limit_makes_room_for_other_pages_but_never_empties_the_top() {
        let idx = crate::testing::unwritten_index();
        let mut hits = vec![hit(0, 0.9), hit(1, 0.8), hit(2, 0.7), hit(3, 0.6)];
        idx.limit_per_page(&mut hits, 1, 2);
        assert_eq!(order(&hits), vec![0, 2, 1, 3]);
        // Only one page left: its sections fill the top.
        let mut one_page = vec![hit(0, 0.9), hit(1, 0.8)];
        idx.limit_per_page(&mut one_page, 1, 2);
        assert_eq!(order(&one_page), vec![0, 1]);
    }

    #[test]
    fn same_page_ignores_anchor_host_and_slash() {
        assert!(super::same_page(
            "/docs/intro#setup",
            "http://127.0.0.1:8080/docs/intro/"
        ));
        assert!(!super::same_page("/docs/intro", "/docs/intro-2"));
    }
}

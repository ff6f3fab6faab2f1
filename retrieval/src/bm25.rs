//! BM25F over chunks: body text plus boosted heading and title fields, with postings compact
//! enough to ship in the asset.

use std::collections::HashMap;

use crate::analyzer::analyze;
use crate::binio::{Reader, Writer};
use crate::common_words::CommonWords;
use crate::error::AssetError;

/// Field weights and BM25 parameters, stored in the asset so the browser scores as the builder tuned.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bm25Params {
    /// Term-frequency saturation.
    pub k1: f32,
    /// Length normalization (0: none, 1: full).
    pub b: f32,
    /// Weight of a term occurrence in the section's own heading.
    pub heading_weight: f32,
    /// Weight of a term occurrence in the ancestor headings and page title.
    pub title_weight: f32,
}

impl Default for Bm25Params {
    fn default() -> Self {
        Self {
            k1: 1.2,
            b: 0.75,
            heading_weight: 3.0,
            title_weight: 1.5,
        }
    }
}

/// Term frequencies are stored in quarter units so that field weights survive as integers.
const TF_UNIT: f32 = 4.0;

/// The fields of one chunk, as the builder hands them in.
#[derive(Debug, Clone, Copy)]
pub struct Bm25Doc<'a> {
    /// The chunk's text.
    pub body: &'a str,
    /// The chunk's own section heading.
    pub heading: &'a str,
    /// The page title and the ancestor headings.
    pub titles: &'a str,
}

/// The searchable BM25 index.
#[derive(Debug, Clone, PartialEq)]
pub struct Bm25 {
    params: Bm25Params,
    terms: Vec<String>,
    lookup: HashMap<String, u32>,
    /// `offsets[t]..offsets[t+1]` are term t's postings.
    offsets: Vec<u32>,
    docs: Vec<u32>,
    tfs: Vec<u16>,
    doc_len: Vec<f32>,
    avg_len: f32,
}

impl Bm25 {
    /// Indexes the documents (one per chunk, in chunk order).
    pub fn build(docs: &[Bm25Doc], params: Bm25Params) -> Bm25 {
        let mut postings: HashMap<String, Vec<(u32, f32)>> = HashMap::new();
        let mut doc_len = Vec::with_capacity(docs.len());
        for (i, d) in docs.iter().enumerate() {
            let mut tf: HashMap<String, f32> = HashMap::new();
            let mut len = 0.0;
            for (text, w) in [
                (d.body, 1.0),
                (d.heading, params.heading_weight),
                (d.titles, params.title_weight),
            ] {
                for t in analyze(text) {
                    // A whole identifier repeats its parts: the text is no longer for it.
                    if !crate::analyzer::is_identifier(&t) {
                        len += w;
                    }
                    *tf.entry(t).or_default() += w;
                }
            }
            doc_len.push(len);
            for (t, f) in tf {
                postings.entry(t).or_default().push((i as u32, f));
            }
        }
        let mut terms: Vec<String> = postings.keys().cloned().collect();
        terms.sort_unstable();
        let mut offsets = vec![0u32];
        let (mut ds, mut tfs) = (Vec::new(), Vec::new());
        for t in &terms {
            let mut list = postings.remove(t).unwrap_or_default();
            list.sort_unstable_by_key(|p| p.0);
            for (d, f) in list {
                ds.push(d);
                tfs.push((f * TF_UNIT).round().clamp(1.0, u16::MAX as f32) as u16);
            }
            offsets.push(ds.len() as u32);
        }
        Self::assemble(params, terms, offsets, ds, tfs, doc_len)
    }

    fn assemble(
        params: Bm25Params,
        terms: Vec<String>,
        offsets: Vec<u32>,
        docs: Vec<u32>,
        tfs: Vec<u16>,
        doc_len: Vec<f32>,
    ) -> Bm25 {
        let lookup = terms
            .iter()
            .enumerate()
            .map(|(i, t)| (t.clone(), i as u32))
            .collect();
        let avg_len = if doc_len.is_empty() {
            1.0
        } else {
            (doc_len.iter().sum::<f32>() / doc_len.len() as f32).max(1.0)
        };
        Bm25 {
            params,
            terms,
            lookup,
            offsets,
            docs,
            tfs,
            doc_len,
            avg_len,
        }
    }

    /// Number of indexed chunks.
    pub fn len(&self) -> usize {
        self.doc_len.len()
    }

    /// Whether no chunk is indexed.
    pub fn is_empty(&self) -> bool {
        self.doc_len.is_empty()
    }

    /// The analyzed term with id `id` (as [`Bm25::nearest_term`] returns it).
    pub fn term(&self, id: u32) -> Option<&str> {
        self.terms.get(id as usize).map(String::as_str)
    }

    /// Whether the book uses the analyzed term `term`.
    pub fn has_term(&self, term: &str) -> bool {
        self.lookup.contains_key(term)
    }

    fn idf(&self, df: usize) -> f32 {
        let n = self.len() as f32;
        ((n - df as f32 + 0.5) / (df as f32 + 0.5) + 1.0).ln()
    }

    /// Scores every chunk containing a query term. Returns the scores (dense, one per chunk) and
    /// the query's coverage by each chunk: the share of the query's IDF mass it matches, a
    /// model-free signal of whether the book talks about the question at all.
    /// `common`: the index's common English words, to count unseen everyday words apart.
    pub fn score(&self, query: &str, common: &CommonWords) -> Bm25Scores {
        self.score_fuzzy(query, 0.0, common)
    }

    /// [`Bm25::score`], with typo tolerance: a query term the book never uses, of at least
    /// [`MIN_FUZZY_CHARS`] letters, is matched to the book's most frequent term at edit distance 1
    /// (one letter inserted, deleted, replaced, or two neighbours swapped), whose score counts
    /// `fuzzy_weight` times. Readers' typos ("memroy", "paramters") otherwise match nothing. A word
    /// of `common` is not matched so ("flight" is not a typo of "light"). The coverage and the
    /// unseen-term count are those of the query as typed, so refusal is unchanged.
    pub fn score_fuzzy(&self, query: &str, fuzzy_weight: f32, common: &CommonWords) -> Bm25Scores {
        let mut terms = analyze(query);
        terms.sort_unstable();
        terms.dedup();
        let mut scores = vec![0f32; self.len()];
        let mut matched = vec![0f32; self.len()];
        let mut total_idf = 0.0;
        // A word the book never uses weighs as much as the rarest possible term.
        let unseen_idf = self.idf(0);
        let (mut query_terms, mut unseen_terms, mut unseen_typos, mut unseen_common) = (0, 0, 0, 0);
        let named = crate::analyzer::named_terms(query);
        for t in &terms {
            let identifier = crate::analyzer::is_identifier(t);
            if !identifier {
                query_terms += 1;
            }
            let Some(&ti) = self.lookup.get(t) else {
                if identifier {
                    continue;
                }
                total_idf += unseen_idf;
                unseen_terms += 1;
                let everyday = common.contains(t) && !named.contains(t);
                match self.nearest_term(t) {
                    Some(ti) => {
                        unseen_typos += 1;
                        // An everyday word is what the reader meant ("flight", not a typo of
                        // "light"): it ranks nothing. The index's common words leave out the
                        // spellings of the book's own words ("colour"), which are corrected.
                        if fuzzy_weight > 0.0 && !everyday {
                            self.add_postings(ti, fuzzy_weight, &mut scores);
                        }
                    }
                    None if everyday => unseen_common += 1,
                    None => {}
                }
                continue;
            };
            let (lo, hi) = (
                self.offsets[ti as usize] as usize,
                self.offsets[ti as usize + 1] as usize,
            );
            let idf = self.idf(hi - lo);
            total_idf += idf;
            self.add_postings(ti, 1.0, &mut scores);
            for p in lo..hi {
                matched[self.docs[p] as usize] += idf;
            }
        }
        let coverage = if total_idf > 0.0 {
            matched.iter().map(|m| m / total_idf).collect()
        } else {
            matched
        };
        Bm25Scores {
            scores,
            coverage,
            query_terms,
            unseen_terms,
            unseen_typos,
            unseen_common,
        }
    }

    /// Adds term `ti`'s BM25 contribution, times `weight`, to every chunk that contains it.
    fn add_postings(&self, ti: u32, weight: f32, scores: &mut [f32]) {
        let Bm25Params { k1, b, .. } = self.params;
        let (lo, hi) = (
            self.offsets[ti as usize] as usize,
            self.offsets[ti as usize + 1] as usize,
        );
        let idf = self.idf(hi - lo) * weight;
        for p in lo..hi {
            let d = self.docs[p] as usize;
            let tf = self.tfs[p] as f32 / TF_UNIT;
            let norm = k1 * (1.0 - b + b * self.doc_len[d] / self.avg_len);
            scores[d] += idf * tf * (k1 + 1.0) / (tf + norm);
        }
    }

    /// The book's most frequent term at edit distance 1 from `term` (a word it never uses), if
    /// `term` is long enough for one changed letter to be a typo rather than another word.
    pub fn nearest_term(&self, term: &str) -> Option<u32> {
        // ASCII only, so the length in bytes is the length in letters.
        if !term.is_ascii()
            || term.len() < MIN_FUZZY_CHARS
            || term.bytes().any(|b| b.is_ascii_digit())
        {
            return None;
        }
        let mut best: Option<(usize, u32)> = None;
        for (i, v) in self.terms.iter().enumerate() {
            if v.len().abs_diff(term.len()) > 1 || !v.is_ascii() {
                continue;
            }
            if !within_one_edit(term.as_bytes(), v.as_bytes()) {
                continue;
            }
            let df = (self.offsets[i + 1] - self.offsets[i]) as usize;
            if best.is_none_or(|(d, _)| df > d) {
                best = Some((df, i as u32));
            }
        }
        best.map(|(_, i)| i)
    }

    /// Serializes the index section of the asset.
    pub fn write(&self, w: &mut Writer) {
        let p = self.params;
        for v in [p.k1, p.b, p.heading_weight, p.title_weight] {
            w.f32(v);
        }
        w.str(&self.terms.join("\n"));
        w.u32s(&self.offsets);
        // Doc ids delta-encoded per term: small numbers that deflate well.
        let mut deltas = Vec::with_capacity(self.docs.len());
        for t in 0..self.terms.len() {
            let mut prev = 0;
            for &d in &self.docs[self.offsets[t] as usize..self.offsets[t + 1] as usize] {
                deltas.push(d - prev);
                prev = d;
            }
        }
        w.u32s(&deltas);
        w.u16s(&self.tfs);
        w.f32s(&self.doc_len);
    }

    /// Reads the section written by [`Bm25::write`], validating every offset and id.
    pub fn read(r: &mut Reader, chunk_count: usize) -> Result<Bm25, AssetError> {
        let corrupt = |reason: &str| AssetError::Corrupt {
            what: "index BM25 section",
            reason: reason.into(),
        };
        let params = Bm25Params {
            k1: r.finite_f32()?,
            b: r.finite_f32()?,
            heading_weight: r.finite_f32()?,
            title_weight: r.finite_f32()?,
        };
        let joined = r.str()?;
        let terms: Vec<String> = if joined.is_empty() {
            Vec::new()
        } else {
            joined.split('\n').map(str::to_string).collect()
        };
        let offsets = r.u32s()?;
        let deltas = r.u32s()?;
        let tfs = r.u16s()?;
        let doc_len = r.f32s()?;
        if offsets.len() != terms.len() + 1
            || offsets.first() != Some(&0)
            || offsets.windows(2).any(|w| w[0] > w[1])
            || offsets.last().copied() != Some(deltas.len() as u32)
            || tfs.len() != deltas.len()
            || doc_len.len() != chunk_count
        {
            return Err(corrupt("postings do not add up"));
        }
        let mut docs = Vec::with_capacity(deltas.len());
        for t in 0..terms.len() {
            let mut prev = 0u32;
            for &d in &deltas[offsets[t] as usize..offsets[t + 1] as usize] {
                prev = prev
                    .checked_add(d)
                    .filter(|&v| (v as usize) < chunk_count)
                    .ok_or_else(|| corrupt("posting points past the last chunk"))?;
                docs.push(prev);
            }
        }
        Ok(Self::assemble(params, terms, offsets, docs, tfs, doc_len))
    }
}

/// Shortest unseen query term (in letters) that typo tolerance corrects: below it, one changed
/// letter too often makes another real word ("node" / "note").
pub const MIN_FUZZY_CHARS: usize = 5;

/// Whether `a` and `b` (different) are one insertion, deletion, substitution or swap of two
/// neighbouring letters apart (optimal string alignment distance 1).
fn within_one_edit(a: &[u8], b: &[u8]) -> bool {
    if a == b {
        return false;
    }
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let prefix = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    match long.len() - short.len() {
        // One letter inserted: the rest after it must agree.
        1 => short[prefix..] == long[prefix + 1..],
        0 => {
            let (s, l) = (&short[prefix..], &long[prefix..]);
            // One letter replaced, or two neighbours swapped.
            s[1..] == l[1..] || (s.len() >= 2 && s[0] == l[1] && s[1] == l[0] && s[2..] == l[2..])
        }
        _ => false,
    }
}

/// Per-chunk BM25 results for one query.
#[derive(Debug, Clone)]
pub struct Bm25Scores {
    /// BM25 score of every chunk, in chunk order.
    pub scores: Vec<f32>,
    /// Share of the query's term weight each chunk contains, in chunk order.
    pub coverage: Vec<f32>,
    /// Distinct analyzed terms in the query (0: nothing searchable was asked).
    pub query_terms: usize,
    /// Query terms the book never uses. A question naming something the book lacks (a tool, a
    /// product) is usually out of scope, whatever the book's score scale: a refusal signal.
    pub unseen_terms: usize,
    /// Of `unseen_terms`, those one letter away from a term of the book: likely typos of it.
    pub unseen_typos: usize,
    /// Of `unseen_terms`, those that are not typos but common English words
    /// ([`CommonWords`]) not capitalized as a name inside a sentence ([`crate::analyzer::named_terms`]):
    /// a reader's own wording more often than a thing the book lacks.
    pub unseen_common: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn docs() -> Vec<Bm25Doc<'static>> {
        vec![
            Bm25Doc {
                body: "Publishers send messages on topics.",
                heading: "Publishing",
                titles: "ROS 2 Nodes",
            },
            Bm25Doc {
                body: "Gazebo simulates physics and sensors.",
                heading: "Physics",
                titles: "Simulation",
            },
            Bm25Doc {
                body: "A topic carries messages between nodes.",
                heading: "Topics",
                titles: "ROS 2 Nodes",
            },
        ]
    }

    fn none() -> CommonWords {
        CommonWords::default()
    }

    #[test]
    fn ranks_matching_chunks_and_round_trips() {
        let idx = Bm25::build(&docs(), Bm25Params::default());
        let s = idx.score("how do I publish messages?", &none());
        assert!(s.scores[0] > s.scores[2] && s.scores[2] > 0.0 && s.scores[1] == 0.0);
        let mut w = Writer::default();
        idx.write(&mut w);
        let back = Bm25::read(&mut Reader::new(&w.buf, "t"), 3).unwrap();
        assert_eq!(back, idx);
    }

    #[test]
    fn counts_the_query_terms_the_book_never_uses() {
        let idx = Bm25::build(&docs(), Bm25Params::default());
        assert_eq!(
            idx.score("publish messages on topics", &none())
                .unseen_terms,
            0
        );
        let s = idx.score("publish messages to kubernetes with kafka", &none());
        assert_eq!((s.query_terms, s.unseen_terms), (4, 2));
        assert_eq!((s.unseen_typos, s.unseen_common), (0, 0));
        // A typo of a book term, an everyday word, and a name.
        let common = CommonWords::new(["sunday".to_string()]);
        let s = idx.score("publish mesages on sunday with kubernetes", &common);
        assert_eq!((s.unseen_terms, s.unseen_typos, s.unseen_common), (3, 1, 1));
    }

    #[test]
    fn one_edit_apart() {
        for (a, b) in [
            ("memroy", "memory"),
            ("paramter", "parameter"),
            ("simulater", "simulator"),
            ("alegro", "allegro"),
            ("topics", "topic"),
        ] {
            assert!(within_one_edit(a.as_bytes(), b.as_bytes()), "{a} {b}");
            assert!(within_one_edit(b.as_bytes(), a.as_bytes()), "{b} {a}");
        }
        for (a, b) in [
            ("memory", "memory"),
            ("memory", "mmoery"),
            ("gazebo", "gazebo12"),
            ("abc", "xyz"),
        ] {
            assert!(!within_one_edit(a.as_bytes(), b.as_bytes()), "{a} {b}");
        }
    }

    #[test]
    fn a_typo_matches_the_word_meant_with_a_lower_weight() {
        let idx = Bm25::build(&docs(), Bm25Params::default());
        // "simulatse" is one swap from the stem of "simulates".
        let plain = idx.score("gazebo simualtes", &none());
        let fuzzy = idx.score_fuzzy("gazebo simualtes", 0.5, &none());
        let exact = idx.score("gazebo simulates", &none());
        assert!(fuzzy.scores[1] > plain.scores[1] && fuzzy.scores[1] < exact.scores[1]);
        // Refusal signals are those of the question as typed.
        assert_eq!(fuzzy.unseen_terms, 1);
        assert_eq!(fuzzy.coverage, plain.coverage);
        // Short unknown words are not corrected.
        assert_eq!(
            idx.score_fuzzy("nodx", 1.0, &none()).scores,
            idx.score("nodx", &none()).scores
        );
    }

    #[test]
    fn an_everyday_word_one_letter_from_a_book_term_ranks_nothing_of_it() {
        let idx = Bm25::build(&docs(), Bm25Params::default());
        // "tropic" is one letter from "topic": a typo when the index does not know the word ...
        let unknown = idx.score_fuzzy("gazebo tropic", 0.5, &none());
        assert_eq!((unknown.unseen_typos, unknown.unseen_common), (1, 0));
        assert!(unknown.scores[2] > 0.0);
        // ... and the word meant when it is one of the common words the book lacks: it ranks
        // nothing about topics (the refusal still counts it as a likely typo).
        let common = CommonWords::new(analyze("tropic"));
        let word = idx.score_fuzzy("gazebo tropic", 0.5, &common);
        assert_eq!((word.unseen_typos, word.unseen_common), (1, 0));
        assert_eq!(word.scores[2], 0.0);
        assert_eq!(word.coverage, unknown.coverage);
        // A name is never an everyday word, so a capitalized one is still corrected.
        let named = idx.score_fuzzy("Gazebo Tropic", 0.5, &common);
        assert!(named.scores[2] > 0.0);
    }

    #[test]
    fn an_identifier_named_whole_ranks_the_chunk_that_writes_it_whole() {
        let doc = |body| Bm25Doc {
            body,
            heading: "",
            titles: "",
        };
        let idx = Bm25::build(
            &[
                doc("The job config lists the overrides of a run as yaml."),
                doc("Hydra writes overrides.yaml beside config.yaml, with the job."),
                doc("Nothing about it."),
            ],
            Bm25Params::default(),
        );
        // The parts tie the two chunks; the whole is the second's alone, and not a longer text.
        let s = idx.score("what is in overrides.yaml", &none());
        assert!(
            s.scores[1] > s.scores[0] && s.scores[0] > 0.0,
            "{:?}",
            s.scores
        );
        let spaced = Bm25::build(
            &[doc(
                "Hydra writes overrides yaml beside config yaml, with the job.",
            )],
            Bm25Params::default(),
        );
        assert_eq!(idx.doc_len[1], spaced.doc_len[0]);
        // A whole the book never writes asks for nothing its parts do not: not an unseen term.
        let s = idx.score("job.config yaml", &none());
        assert_eq!((s.query_terms, s.unseen_terms), (3, 0));
        assert!(s.coverage[0] > 0.99);
    }

    #[test]
    fn coverage_is_low_for_unrelated_questions() {
        let idx = Bm25::build(&docs(), Bm25Params::default());
        let s = idx.score("capital of Peru", &none());
        assert!(s.coverage.iter().all(|&c| c == 0.0));
        let s = idx.score("gazebo physics", &none());
        assert!(s.coverage[1] > 0.99);
    }

    #[test]
    fn corrupt_postings_are_errors() {
        let idx = Bm25::build(&docs(), Bm25Params::default());
        let mut w = Writer::default();
        idx.write(&mut w);
        assert!(Bm25::read(&mut Reader::new(&w.buf, "t"), 2).is_err());
        assert!(Bm25::read(&mut Reader::new(&w.buf[..w.buf.len() - 3], "t"), 3).is_err());
    }
}

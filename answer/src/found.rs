//! From search results to what an answer is built from: the ranked sources with their texts, and
//! the sections related to the best one (for follow-ups). One place, used by the widget and by
//! `index-builder answer`, so both see the same sources.

use book_retrieval::{ChunkTexts, Index, SearchRequest, SearchResults};

use crate::source::Source;
use crate::suggest::{Related, Relation};

/// What the search found for a question.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Found {
    /// Best first. When `refused`, the nearest (sub-threshold) sections, for the refusal's links.
    pub sources: Vec<Source>,
    /// Sections near the best source, in order of preference for follow-ups; when `refused`, the
    /// nearest sections themselves (a reader told the book does not cover their question is
    /// offered what the book says closest to it).
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

impl Found {
    /// How far the best source's relevance clears the threshold; negative when the question
    /// passed only the words test (`SearchResults::words_margin`).
    pub fn relevance_margin(&self) -> f32 {
        crate::confidence::best_score(self.sources.iter().map(|s| s.score)) - self.threshold
    }

    /// The larger margin of the two tests a question may pass ([`Found::relevance_margin`] and
    /// `SearchResults::words_margin`): what confidence is graded on.
    pub fn margin(&self) -> f32 {
        let relevance = self.relevance_margin();
        self.words_margin.map_or(relevance, |w| relevance.max(w))
    }
}

/// Searches `index` for `req` with the question's embedding `vector` (`None` before the encoder
/// has loaded: BM25 alone) in place of the request's own, and collects what it found.
pub fn search(
    index: &Index,
    texts: &ChunkTexts,
    req: SearchRequest<'_>,
    vector: Option<Vec<f32>>,
) -> Found {
    let req = SearchRequest {
        query_vector: vector.as_deref(),
        ..req
    };
    collect(index, texts, &index.search(&req), vector)
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
                parent: crate::source::parent_heading(&meta.headings, meta.section.as_deref()),
                url: meta.url.clone(),
                text: texts.get(h.chunk).unwrap_or_default().to_string(),
                score: h.relevance,
                subsections: subsections(index, h.chunk),
            })
        })
        .collect();
    let vector = vector.filter(|_| results.mode != book_retrieval::Mode::Bm25Only);
    Found {
        related: if results.refused {
            nearest(index, &sources)
        } else {
            related(index, &sources, vector.as_deref())
        },
        sources,
        refused: results.refused,
        threshold: results.threshold,
        words_margin: results.words_margin,
        agree: results.agree,
        vector,
    }
}

/// Most subsection headings a source carries (a lead-in announcing more is rare; its quote is cut
/// anyway).
const MAX_SUBSECTIONS: usize = 8;

/// The headings of the sections right under chunk `i`'s on its page, in page order: the later
/// chunks of the page whose heading path is `i`'s plus one heading, each section once (a long
/// section is several chunks), up to the next section that is not under `i`'s.
fn subsections(index: &Index, i: u32) -> Vec<String> {
    let chunks = &index.meta.chunks;
    let Some(meta) = chunks.get(i as usize) else {
        return Vec::new();
    };
    // A page top has the title alone as its path; its subsections are the page's first level.
    let depth = meta.headings.len();
    let mut out: Vec<String> = Vec::new();
    for c in chunks[i as usize + 1..]
        .iter()
        .take_while(|c| c.page == meta.page)
    {
        if c.headings.len() <= depth || c.headings[..depth] != meta.headings[..] {
            break;
        }
        if c.headings.len() == depth + 1 {
            if let Some(h) = c.section.as_ref().filter(|h| !out.contains(h)) {
                out.push(h.clone());
            }
        }
        if out.len() == MAX_SUBSECTIONS {
            break;
        }
    }
    out
}

/// Chunk `i` as a follow-up: the question the index stores for its section
/// (`IndexMeta::follow_ups`); none for a section with no question or whose question the book
/// refuses (`IndexMeta::unaskable`).
fn follow_up(index: &Index, i: usize, relation: Relation) -> Option<Related> {
    let refused = u32::try_from(i).is_ok_and(|i| index.meta.unaskable.binary_search(&i).is_ok());
    let question = index
        .meta
        .follow_ups
        .get(i)
        .filter(|q| !q.is_empty() && !refused)?;
    index.meta.chunks.get(i).map(|c| Related {
        url: c.url.clone(),
        relation,
        question: question.clone(),
    })
}

/// The nearest sections of a refused question, best first, as follow-ups: what the book can answer
/// closest to what was asked ("How do I control native library thread pools?" after "numpy grabs
/// all cores when jobs run in parallel", which the Hydra docs refuse).
fn nearest(index: &Index, sources: &[Source]) -> Vec<Related> {
    sources
        .iter()
        .filter_map(|s| follow_up(index, s.chunk as usize, Relation::Nearest))
        .collect()
}

/// The next section of the best source's page, the other sources, the next page (when the best
/// source ends its page), the previous section. With the question's embedding (`vector`), the next
/// page and the previous section are offered only when the book's refusal floor would not call
/// them off-topic for the question: the next chapter often moves on to another subject ("What is
/// Bipedal Locomotion?" under an install answer). The next section of the answer's page is the
/// next step and always offered.
fn related(index: &Index, sources: &[Source], vector: Option<&[f32]>) -> Vec<Related> {
    let Some(top) = sources.first() else {
        return Vec::new();
    };
    let chunks = &index.meta.chunks;
    let Some(meta) = index.chunk(top.chunk) else {
        return Vec::new();
    };
    let i = top.chunk as usize;
    let mut out = Vec::new();
    // The next step: the first later chunk of the same page in another section.
    let next = (i + 1..chunks.len())
        .take_while(|&j| chunks[j].page == meta.page)
        .find(|&j| chunks[j].url != meta.url);
    if let Some(j) = next {
        out.extend(follow_up(index, j, Relation::Next));
    }
    for s in sources.iter().skip(1) {
        out.extend(follow_up(index, s.chunk as usize, Relation::Found));
    }
    let on_topic = |j: usize| match (vector, index.meta.settings.min_cosine) {
        (Some(q), Some(floor)) if q.len() == index.dim() => index.vectors.exact(q, j) >= floor,
        _ => true,
    };
    // The next page is the next step only from its previous page's last section: from an entry
    // in the middle of a page (the 29th of a troubleshooting appendix) it is two steps away, and
    // often another subject ("What is bipedal locomotion?" under "nvidia-smi not found").
    if let Some(j) = (i + 1..chunks.len())
        .find(|&j| chunks[j].page == meta.page + 1)
        .filter(|&j| next.is_none() && on_topic(j))
    {
        out.extend(follow_up(index, j, Relation::NextPage));
    }
    if let Some(j) = (0..i)
        .rev()
        .take_while(|&j| chunks[j].page == meta.page)
        .find(|&j| chunks[j].url != meta.url)
        .filter(|&j| on_topic(j))
    {
        out.extend(follow_up(index, j, Relation::Previous));
    }
    out.retain(|r| r.url != top.url);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{robot_book, TEST_DIM};
    use book_retrieval::vectors::QuantizedVectors;

    /// The robot book with chunk vectors: ROS 2 sections along the first axis, Gazebo's and
    /// URDF's along the second; the refusal floor at 0.25.
    fn book_with_vectors() -> Index {
        let (mut index, _) = robot_book();
        let rows: [[f32; TEST_DIM]; 6] = [
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0, 0.0],
        ];
        index.vectors = QuantizedVectors::quantize(&rows.concat(), TEST_DIM);
        index.meta.settings.min_cosine = Some(0.25);
        index
    }

    /// "Creating a Node", the last section of the ROS 2 page, as the best source.
    fn last_ros_section(index: &Index) -> Vec<Source> {
        let meta = index.chunk(2).cloned().unwrap_or_else(|| panic!("chunk 2"));
        vec![Source {
            chunk: 2,
            chapter: meta.chapter,
            section: meta.section,
            parent: None,
            url: meta.url,
            text: String::new(),
            score: 1.0,
            subsections: Vec::new(),
        }]
    }

    /// Each related section's relation and heading (looked up in `index` by its URL).
    fn relations(index: &Index, related: &[Related]) -> Vec<(Relation, String)> {
        related
            .iter()
            .map(|r| {
                let meta = index.meta.chunks.iter().find(|c| c.url == r.url);
                (
                    r.relation,
                    meta.and_then(|c| c.section.clone()).unwrap_or_default(),
                )
            })
            .collect()
    }

    #[test]
    fn a_source_knows_the_headings_of_the_sections_under_it() {
        let (mut index, _) = robot_book();
        // "Nodes" with "Topics" and "Creating a Node" under it; Gazebo's page follows.
        let path = |hs: &[&str]| hs.iter().map(|h| h.to_string()).collect::<Vec<_>>();
        index.meta.chunks[1].headings = path(&["ROS 2", "Nodes", "Topics"]);
        index.meta.chunks[2].headings = path(&["ROS 2", "Nodes", "Creating a Node"]);
        assert_eq!(subsections(&index, 0), ["Topics", "Creating a Node"]);
        assert!(subsections(&index, 1).is_empty());
        // A deeper section is not a child, and a section of the same level ends the list.
        index.meta.chunks[1].headings = path(&["ROS 2", "Nodes", "Topics", "QoS"]);
        assert_eq!(subsections(&index, 0), ["Creating a Node"]);
        index.meta.chunks[1].headings = path(&["ROS 2", "Topics"]);
        assert!(subsections(&index, 0).is_empty());
        assert!(subsections(&index, 99).is_empty());
    }

    #[test]
    fn the_next_page_is_offered_only_from_the_last_section_of_a_page() {
        let (index, _) = robot_book();
        // "Topics", in the middle of the ROS 2 page: its next step is "Creating a Node".
        let meta = index.chunk(1).cloned().unwrap_or_else(|| panic!("chunk 1"));
        let middle = vec![Source {
            chunk: 1,
            chapter: meta.chapter,
            section: meta.section,
            parent: None,
            url: meta.url,
            text: String::new(),
            score: 1.0,
            subsections: Vec::new(),
        }];
        let offered = relations(&index, &related(&index, &middle, None));
        assert!(offered.contains(&(Relation::Next, "Creating a Node".to_string())));
        assert!(
            offered.iter().all(|(r, _)| *r != Relation::NextPage),
            "{offered:?}"
        );
        // From the page's last section, the next page is the next step.
        let last = relations(&index, &related(&index, &last_ros_section(&index), None));
        assert!(last.contains(&(Relation::NextPage, "Bridging Topics".to_string())));
    }

    #[test]
    fn the_next_page_and_previous_section_are_offered_only_when_on_topic() {
        let index = book_with_vectors();
        let sources = last_ros_section(&index);
        // A ROS question: the previous ROS section yes, Gazebo's bridging (next page) no.
        let ros = related(&index, &sources, Some(&[1.0, 0.0, 0.0, 0.0]));
        assert_eq!(
            relations(&index, &ros),
            vec![(Relation::Previous, "Topics".to_string())]
        );
        // A question nearer Gazebo: the next page yes, the previous ROS section no.
        let gazebo = related(&index, &sources, Some(&[0.0, 1.0, 0.0, 0.0]));
        assert_eq!(
            relations(&index, &gazebo),
            vec![(Relation::NextPage, "Bridging Topics".to_string())]
        );
        // Before the encoder (no vector) or with an old asset (no floor): both, as before.
        let words = related(&index, &sources, None);
        assert_eq!(words.len(), 2);
        // A section whose follow-up the book refuses is never offered, whatever the phase.
        let mut marked = book_with_vectors();
        marked.meta.unaskable = vec![1];
        assert_eq!(
            relations(&marked, &related(&marked, &sources, None)),
            vec![(Relation::NextPage, "Bridging Topics".to_string())]
        );
        let mut old = index;
        old.meta.settings.min_cosine = None;
        assert_eq!(
            related(&old, &sources, Some(&[1.0, 0.0, 0.0, 0.0])).len(),
            2
        );
    }
}

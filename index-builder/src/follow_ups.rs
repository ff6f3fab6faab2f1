//! Which sections must never be offered as follow-ups: those whose follow-up question, clicked,
//! the book itself would refuse. The widget cannot afford to ask each candidate follow-up before
//! offering it (one encoding per candidate, ~20 ms each in the browser), so the build asks every
//! section's follow-up once, with the shipped encoder and the calibrated thresholds, and stores the
//! refused ones in the index (`IndexMeta::unaskable`).

use std::collections::HashSet;

use rayon::prelude::*;

use book_answer::suggest::section_follow_up;
use book_retrieval::{Encoder, Index, SearchRequest};

/// The chunks (sorted) whose follow-up question `index`, with `encoder`, refuses. Chunks whose
/// heading makes no follow-up are not listed: they are never offered anyway.
pub fn unaskable(index: &Index, encoder: &Encoder) -> Vec<u32> {
    let questions: Vec<Option<String>> = index
        .meta
        .chunks
        .iter()
        .map(|c| section_follow_up(&c.chapter, c.section.as_deref()))
        .collect();
    // Sections share headings ("Installation" on many pages): each question is asked once, on
    // rayon's threads (one encoding each, about 3 ms).
    let distinct: HashSet<&str> = questions.iter().flatten().map(String::as_str).collect();
    let refused: HashSet<&str> = distinct
        .into_par_iter()
        .filter(|q| {
            let v = encoder.encode(q);
            index.search(&SearchRequest::new(q, Some(&v))).refused
        })
        .collect();
    questions
        .iter()
        .enumerate()
        .filter(|(_, q)| q.as_deref().is_some_and(|q| refused.contains(q)))
        .map(|(i, _)| i as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follow_ups_the_book_refuses_are_marked_and_the_others_are_not() {
        let mut index = book_retrieval::testing::index();
        let encoder = book_retrieval::testing::encoder();
        // A refusal floor no cosine reaches: every follow-up is refused, so every chunk whose
        // heading makes one is marked.
        index.meta.settings.min_cosine = Some(1.01);
        let all = unaskable(&index, &encoder);
        let phrased: Vec<u32> = (0..index.len() as u32)
            .filter(|&i| {
                index
                    .chunk(i)
                    .is_some_and(|c| section_follow_up(&c.chapter, c.section.as_deref()).is_some())
            })
            .collect();
        assert!(!phrased.is_empty());
        assert_eq!(all, phrased);
        // Nothing refused: nothing marked.
        index.meta.settings.min_cosine = None;
        index.meta.settings.min_relevance = -10.0;
        assert_eq!(unaskable(&index, &encoder), Vec::<u32>::new());
    }
}

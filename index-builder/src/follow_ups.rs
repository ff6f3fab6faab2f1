//! The follow-ups the index offers. The build phrases each section's follow-up question once, in
//! the book's own casing (`IndexMeta::follow_ups`), so the widget carries no phrasing rules; and
//! since the widget cannot afford to ask each candidate follow-up before offering it (one encoding
//! per candidate, ~20 ms each in the browser), the build also asks every one once, with the
//! shipped encoder and the calibrated thresholds, and lists the refused ones
//! (`IndexMeta::unaskable`): a follow-up the book would refuse is never offered.

use std::collections::HashSet;

use rayon::prelude::*;

use book_answer::phrasing::{
    as_book_asks, code_name_follow_up, kind_follow_up, name_part_follow_up, section_follow_up,
};
use book_retrieval::{Encoder, Index, SearchRequest};

use crate::chunker::BuiltChunk;

/// Per chunk, its section's follow-up question in the book's casing (`casing::BookUsage::casing`),
/// with "the" before the things the book counts (`casing::BookUsage::counted`), or `""` when the
/// heading makes none.
pub fn phrase(chunks: &[BuiltChunk]) -> Vec<String> {
    let crate::casing::BookUsage {
        casing,
        counted,
        compounds,
    } = crate::casing::book_usage(chunks);
    let noun_compound = |words: &str| compounds.contains(words);
    chunks
        .iter()
        .map(|c| {
            let meta = &c.chunk.meta;
            // The heading above the section's: "Joint Types" over "2. Continuous".
            let parent = meta
                .headings
                .len()
                .checked_sub(2)
                .map(|i| &meta.headings[i]);
            let kind = parent
                .zip(meta.section.as_deref())
                .and_then(|(parent, section)| kind_follow_up(parent, section));
            // A heading written as code ("`future`") keeps it: the book's casing rules are for
            // words.
            let code = meta
                .section
                .as_deref()
                .filter(|_| c.heading_is_code)
                .and_then(code_name_follow_up);
            // A part of an API reference entry ("Returns" under `useColorMode()`) is asked of its
            // name, even where its heading alone would be skipped.
            let name_part = parent
                .zip(meta.section.as_deref())
                .and_then(|(parent, section)| name_part_follow_up(&meta.chapter, parent, section));
            // The kind's and the code name's questions only stand in for one the section would
            // have: a quiz's sections, and the others `section_follow_up` skips, stay without.
            name_part
                .or_else(|| {
                    section_follow_up(&meta.chapter, meta.section.as_deref(), &noun_compound).map(
                        |q| {
                            code.or(kind)
                                .unwrap_or_else(|| as_book_asks(&q, &casing, &counted))
                        },
                    )
                })
                .unwrap_or_default()
        })
        .collect()
}

/// The chunks (sorted) whose follow-up question (`IndexMeta::follow_ups`) `index`, with
/// `encoder`, refuses. Chunks with no follow-up are not listed: they are never offered anyway.
pub fn unaskable(index: &Index, encoder: &Encoder) -> Vec<u32> {
    let questions = &index.meta.follow_ups;
    // Sections share headings ("Installation" on many pages): each question is asked once, on
    // rayon's threads (one encoding each, about 3 ms).
    let distinct: HashSet<&str> = questions
        .iter()
        .map(String::as_str)
        .filter(|q| !q.is_empty())
        .collect();
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
        .filter(|(_, q)| refused.contains(q.as_str()))
        .map(|(i, _)| i as u32)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(section: &str, heading_is_code: bool) -> BuiltChunk {
        let meta = book_retrieval::ChunkMeta {
            id: String::new(),
            module: String::new(),
            chapter: "docusaurus.config.js".into(),
            section: Some(section.into()),
            headings: vec!["docusaurus.config.js".into(), section.into()],
            url: format!("/docs/api/config#{section}"),
            path: "api/config.mdx".into(),
            has_code: false,
            page: 0,
        };
        let text = "The site's settings, read by every plugin.".to_string();
        BuiltChunk {
            chunk: book_retrieval::Chunk {
                meta,
                text: text.clone(),
            },
            search_text: text.clone(),
            embed_text: text,
            heading: section.into(),
            heading_is_code,
            titles: String::new(),
        }
    }

    #[test]
    fn a_heading_written_as_code_is_asked_as_a_name() {
        let asked = phrase(&[
            chunk("future", true),
            chunk("future", false),
            chunk("themeConfig", true),
        ]);
        assert_eq!(asked[0], "What is `future` for?");
        // The same word as prose, and a name that reads as code by itself, as before.
        assert!(!asked[1].contains('`'), "{}", asked[1]);
        assert!(!asked[2].contains('`'), "{}", asked[2]);
        assert!(asked[2].contains("themeConfig"), "{}", asked[2]);
    }

    #[test]
    fn a_part_of_an_api_entry_is_asked_of_its_name_in_the_index() {
        // The chunks' page is `docusaurus.config.js`: its "Returns" and "Usage" are asked of it;
        // a section the name rules do not cover keeps its own phrasing.
        let asked = phrase(&[
            chunk("Returns", false),
            chunk("Usage", false),
            chunk("Environment variables", false),
        ]);
        assert_eq!(asked[0], "What does docusaurus.config.js return?");
        assert_eq!(asked[1], "How do I use docusaurus.config.js?");
        assert!(asked[2].contains("environment variables"), "{}", asked[2]);
    }

    #[test]
    fn follow_ups_the_book_refuses_are_marked_and_the_others_are_not() {
        let mut index = book_retrieval::testing::index();
        let encoder = book_retrieval::testing::encoder();
        index.meta.follow_ups = index
            .meta
            .chunks
            .iter()
            .map(|c| {
                section_follow_up(&c.chapter, c.section.as_deref(), &|_| false).unwrap_or_default()
            })
            .collect();
        // A refusal floor no cosine reaches: every follow-up is refused, so every chunk whose
        // heading makes one is marked.
        index.meta.settings.min_cosine = Some(1.01);
        let all = unaskable(&index, &encoder);
        let phrased: Vec<u32> = (0..index.len() as u32)
            .filter(|&i| !index.meta.follow_ups[i as usize].is_empty())
            .collect();
        assert!(!phrased.is_empty());
        assert_eq!(all, phrased);
        // Nothing refused: nothing marked.
        index.meta.settings.min_cosine = None;
        index.meta.settings.min_relevance = -10.0;
        assert_eq!(unaskable(&index, &encoder), Vec::<u32>::new());
    }
}

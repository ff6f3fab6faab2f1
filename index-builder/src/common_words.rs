//! The common English words an index carries ([`book_retrieval::common_words`]).
//!
//! The list (`data/common-words.txt`) is the first 10 000 whole-word entries (letters only) of the
//! bert-base-uncased WordPiece vocabulary (Apache-2.0), which orders words by frequency in English
//! Wikipedia and books: a general frequency list, independent of any book and of the encoder in use.
//! It is compiled into the builder (not the widget): each index gets the analyzed forms of the words
//! its book never uses, the only ones a question can bring as unseen terms, less those the
//! encoder finds to be spellings of one of the book's words ([`SPELLING_MIN_COSINE`]).
//! Hand-written lookup: no maintained crate ships an English frequency list with our stemmer.

use std::collections::{HashMap, HashSet};

use book_retrieval::analyzer::analyze;
use book_retrieval::bm25::Bm25;
use book_retrieval::common_words::CommonWords;
use book_retrieval::encoder::Encoder;

const WORDS: &str = include_str!("../data/common-words.txt");

/// Cosine between two words, each encoded alone, from which an everyday word one letter away from
/// a book's term is another spelling of it ("colour" / "color" 0.97, "throw" / "thrown" 0.87)
/// rather than another word ("flight" / "light", "bread" / "read", "dinner" / "inner"). Chosen
/// by reading the pairs of the five labelled books, not by any figure measured on their questions.
pub const SPELLING_MIN_COSINE: f32 = 0.8;

/// The analyzed common words that `bm25`'s book never uses. With an encoder, those one letter
/// away from a book term that the encoder puts at [`SPELLING_MIN_COSINE`] or nearer are left out:
/// they are spellings of the book's word, which the search corrects to it as it does a typo,
/// while it never corrects a common word it carries (the reader meant "flight", not "light").
/// `book_text`: the book's text, to encode a book term as the book spells it rather than as
/// its stem ("generate", not "generat", which reads as "genera").
pub fn for_book<'a>(
    bm25: &Bm25,
    encoder: Option<&Encoder>,
    book_text: impl IntoIterator<Item = &'a str>,
) -> CommonWords {
    let words: Vec<(&str, String)> = WORDS
        .lines()
        .flat_map(|w| analyze(w).into_iter().map(move |t| (w, t)))
        .filter(|(_, t)| !bm25.has_term(t))
        .collect();
    let spellings = match encoder {
        Some(encoder) => spellings_of_book_terms(bm25, encoder, &words, &book_spellings(book_text)),
        None => HashSet::new(),
    };
    CommonWords::new(
        words
            .into_iter()
            .map(|(_, t)| t)
            .filter(|t| !spellings.contains(t)),
    )
}

/// The analyzed forms of `words` (surface word, analyzed form) whose nearest book term by one
/// letter is at [`SPELLING_MIN_COSINE`] or nearer.
fn spellings_of_book_terms(
    bm25: &Bm25,
    encoder: &Encoder,
    words: &[(&str, String)],
    spelled: &HashMap<String, String>,
) -> HashSet<String> {
    let near: Vec<(&str, &String, &str)> = words
        .iter()
        .filter_map(|(w, t)| {
            let book = bm25.nearest_term(t).and_then(|id| bm25.term(id))?;
            Some((*w, t, spelled.get(book).map_or(book, String::as_str)))
        })
        .collect();
    let texts: Vec<String> = near
        .iter()
        .flat_map(|(w, _, book)| [w.to_string(), book.to_string()])
        .collect();
    let vectors = crate::embed::embed_texts(encoder, &texts, false);
    let dim = encoder.dim();
    near.iter()
        .zip(vectors.chunks_exact(2 * dim))
        .filter_map(|((_, t, _), pair)| {
            let (a, b) = pair.split_at(dim);
            let cosine: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
            (cosine >= SPELLING_MIN_COSINE).then(|| t.to_string())
        })
        .collect()
}

/// Each analyzed one-word term of `text` and its most frequent spelling there (lower case).
fn book_spellings<'a>(text: impl IntoIterator<Item = &'a str>) -> HashMap<String, String> {
    let mut counts: HashMap<(String, String), u32> = HashMap::new();
    for text in text {
        for word in text
            .split(|c: char| !c.is_alphabetic())
            .filter(|w| !w.is_empty())
        {
            let word = word.to_lowercase();
            if let [term] = analyze(&word).as_slice() {
                *counts.entry((term.clone(), word)).or_default() += 1;
            }
        }
    }
    let mut best: HashMap<String, (u32, String)> = HashMap::new();
    for ((term, word), n) in counts {
        let slot = best.entry(term).or_insert((0, String::new()));
        // Ties go to the shorter, then the alphabetically first spelling: the same on every run.
        if (n, std::cmp::Reverse((word.len(), &word)))
            > (slot.0, std::cmp::Reverse((slot.1.len(), &slot.1)))
        {
            *slot = (n, word);
        }
    }
    best.into_iter().map(|(t, (_, w))| (t, w)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use book_retrieval::bm25::{Bm25Doc, Bm25Params};

    #[test]
    fn a_book_term_is_encoded_as_the_book_spells_it_most() {
        let spelled = book_spellings([
            "Generates a config; generating configs generated it.",
            "Generate",
        ]);
        // Three spellings share the stem: the most frequent wins, ties to the shortest.
        let stem = analyze("generate").remove(0);
        assert_eq!(spelled.get(&stem).map(String::as_str), Some("generate"));
        assert_eq!(
            spelled
                .get(&analyze("configs").remove(0))
                .map(String::as_str),
            Some("config")
        );
    }

    #[test]
    fn everyday_words_the_book_lacks_are_kept_and_names_are_not() {
        let docs = [Bm25Doc {
            body: "Gazebo simulates physics for seven robots.",
            heading: "Simulation",
            titles: "Gazebo",
        }];
        let words = for_book(&Bm25::build(&docs, Bm25Params::default()), None, []);
        for w in [
            "forever",
            "dies",
            "containers",
            "telling",
            "chocolate",
            "cake",
        ] {
            let t = analyze(w);
            assert!(t.iter().all(|t| words.contains(t)), "{w}: {t:?}");
        }
        // Words the book uses are never unseen, so the index does not carry them.
        for w in ["seven", "physics", "robots"] {
            assert!(analyze(w).iter().all(|t| !words.contains(t)), "{w}");
        }
        for w in ["costmap", "dotenv", "toml", "slam_toolbox", "argparse"] {
            let t = analyze(w);
            assert!(t.iter().any(|t| !words.contains(t)), "{w}: {t:?}");
        }
    }
}

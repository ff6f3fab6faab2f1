//! The common English words an index carries ([`book_retrieval::common_words`]).
//!
//! The list (`data/common-words.txt`) is the first 10 000 whole-word entries (letters only) of the
//! bert-base-uncased WordPiece vocabulary (Apache-2.0), which orders words by frequency in English
//! Wikipedia and books: a general frequency list, independent of any book and of the encoder in use.
//! It is compiled into the builder (not the widget): each index gets the analyzed forms of the words
//! its book never uses, the only ones a question can bring as unseen terms.
//! Hand-written lookup: no maintained crate ships an English frequency list with our stemmer.

use book_retrieval::analyzer::analyze;
use book_retrieval::bm25::Bm25;
use book_retrieval::common_words::CommonWords;

const WORDS: &str = include_str!("../data/common-words.txt");

/// The analyzed common words that `bm25`'s book never uses.
pub fn for_book(bm25: &Bm25) -> CommonWords {
    CommonWords::new(
        WORDS
            .lines()
            .flat_map(analyze)
            .filter(|t| !bm25.has_term(t)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use book_retrieval::bm25::{Bm25Doc, Bm25Params};

    #[test]
    fn everyday_words_the_book_lacks_are_kept_and_names_are_not() {
        let docs = [Bm25Doc {
            body: "Gazebo simulates physics for seven robots.",
            heading: "Simulation",
            titles: "Gazebo",
        }];
        let words = for_book(&Bm25::build(&docs, Bm25Params::default()));
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

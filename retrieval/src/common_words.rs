//! Common English words, to tell a reader's own word from a name the book lacks.
//!
//! A query term the book never uses is a strong out-of-scope signal when it names something (a tool,
//! a product, a format: "costmap", "dotenv", "toml"), and a weak one when it is an everyday word a
//! reader chose ("choppy", "forever", "seven"): measured on the labelled books, unseen names occur
//! ten times as often in out-of-scope questions as in answerable ones, unseen everyday words four
//! times. `SearchSettings::common_unseen_weight` counts the everyday ones for less.
//!
//! The list (`data/common-words.txt`) is the first 10 000 whole-word entries (letters only) of the
//! bert-base-uncased WordPiece vocabulary (Apache-2.0), which orders words by frequency in English
//! Wikipedia and books: a general frequency list, independent of any book and of the encoder in use.
//! Hand-written lookup: no maintained crate ships an English frequency list with our stemmer.

use std::collections::HashSet;
use std::sync::OnceLock;

const WORDS: &str = include_str!("../data/common-words.txt");

/// The analyzed (stemmed) forms of the common words, built once on first use.
fn stems() -> &'static HashSet<String> {
    static STEMS: OnceLock<HashSet<String>> = OnceLock::new();
    STEMS.get_or_init(|| WORDS.lines().flat_map(crate::analyzer::analyze).collect())
}

/// Whether an analyzed query term is the stem of a common English word.
pub fn is_common(term: &str) -> bool {
    stems().contains(term)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyzer::analyze;

    #[test]
    fn everyday_words_are_common_and_names_are_not() {
        for w in ["forever", "seven", "dies", "containers", "telling"] {
            let t = analyze(w);
            assert!(t.iter().all(|t| is_common(t)), "{w}: {t:?}");
        }
        for w in ["costmap", "dotenv", "toml", "slam_toolbox", "argparse"] {
            let t = analyze(w);
            assert!(t.iter().any(|t| !is_common(t)), "{w}: {t:?}");
        }
    }
}

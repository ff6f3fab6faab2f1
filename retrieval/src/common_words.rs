//! Common English words the book never uses, to tell a reader's own word from a name the book lacks.
//!
//! A query term the book never uses is a strong out-of-scope signal when it names something (a tool,
//! a product, a format: "costmap", "dotenv", "toml"), and a weaker one when it is an everyday word a
//! reader chose ("choppy", "forever", "seven"): measured on the labelled books, unseen names occur
//! ten times as often in out-of-scope questions as in answerable ones, unseen everyday words four
//! times. `SearchSettings::common_unseen_weight` counts the everyday ones for less.
//!
//! The builder writes the set into the index (`IndexMeta::common_words`, from its English frequency
//! list), keeping only words the book never uses: those are the only ones a question can bring as
//! unseen terms. So the list costs the index a few tens of kilobytes and the widget nothing; an
//! index built before the set existed has an empty one (and no `common_unseen_weight`), and refuses
//! as it always did.

use serde::{Deserialize, Serialize};

/// Analyzed (stemmed) common English words, sorted and without repeats (looked up by binary
/// search: a few hundred words, and no hash set's code in the widget), serialized as that list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct CommonWords(Vec<String>);

impl CommonWords {
    /// The set of `stems` (already analyzed terms).
    pub fn new(stems: impl IntoIterator<Item = String>) -> Self {
        let mut words: Vec<String> = stems.into_iter().collect();
        words.sort_unstable();
        words.dedup();
        CommonWords(words)
    }

    /// Whether an analyzed query term is the stem of a common English word.
    pub fn contains(&self, term: &str) -> bool {
        self.0.binary_search_by(|w| w.as_str().cmp(term)).is_ok()
    }
}

impl<'de> Deserialize<'de> for CommonWords {
    /// Sorted again: an index written by hand or by another tool still looks words up right.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<String>::deserialize(d).map(CommonWords::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_sorted_and_reads_back() {
        let w = CommonWords::new([
            "seven".to_string(),
            "chocol".into(),
            "cake".into(),
            "seven".into(),
        ]);
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(json, r#"["cake","chocol","seven"]"#);
        let back: CommonWords = serde_json::from_str(&json).unwrap();
        assert_eq!(back, w);
        assert!(back.contains("cake") && !back.contains("gazebo"));
    }
}

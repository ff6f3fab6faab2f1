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

use std::collections::HashSet;

use serde::{Deserialize, Serialize};

/// Analyzed (stemmed) common English words, serialized as a sorted list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommonWords(HashSet<String>);

impl CommonWords {
    /// The set of `stems` (already analyzed terms).
    pub fn new(stems: impl IntoIterator<Item = String>) -> Self {
        CommonWords(stems.into_iter().collect())
    }

    /// Whether an analyzed query term is the stem of a common English word.
    pub fn contains(&self, term: &str) -> bool {
        self.0.contains(term)
    }
}

impl Serialize for CommonWords {
    /// Sorted, so the same book gives the same index file (and hash).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut v: Vec<&String> = self.0.iter().collect();
        v.sort_unstable();
        v.serialize(s)
    }
}

impl<'de> Deserialize<'de> for CommonWords {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<String>::deserialize(d).map(CommonWords::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_sorted_and_reads_back() {
        let w = CommonWords::new(["seven".to_string(), "chocol".into(), "cake".into()]);
        let json = serde_json::to_string(&w).unwrap();
        assert_eq!(json, r#"["cake","chocol","seven"]"#);
        let back: CommonWords = serde_json::from_str(&json).unwrap();
        assert_eq!(back, w);
        assert!(back.contains("cake") && !back.contains("gazebo"));
    }
}

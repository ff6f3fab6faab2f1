//! The widget's own words (contract 1): one table of keys with their English defaults, and the
//! words excerpt answers are framed in (`book_answer::words::KEYS`, defined with the answer core
//! that writes them). A book translates both through `BOOK_CHAT_CONFIG.strings` (filled by the
//! Docusaurus plugin from its `strings` option and from `i18n/<locale>/code.json` ids starting
//! with `bookChat.`); a missing key keeps the English text. The English accessible names are the
//! ones the tests and readers already rely on.

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};

/// Every key and its English default.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("title", "Ask the book"),
    ("bubble", "Ask the book"),
    ("close", "Close"),
    ("newChat", "New chat"),
    ("settings", "Answer settings"),
    ("detail", "Detail"),
    ("detailBasic", "Basic"),
    ("detailIntermediate", "Intermediate"),
    ("detailAdvanced", "Advanced"),
    ("format", "Format"),
    ("formatConcise", "Concise"),
    ("formatDetailed", "Detailed"),
    ("formatExamples", "With examples"),
    ("citations", "Show citations"),
    ("conversation", "Conversation"),
    ("empty", "Ask anything about this book. Answers come only from the book, with links to the sections they use."),
    ("question", "Your question"),
    ("placeholder", "Your question"),
    ("placeholderSelection", "Ask about the selected passage"),
    ("send", "Send"),
    ("stop", "Stop"),
    ("askThis", "Ask about this"),
    ("selectedText", "Selected text"),
    ("removeQuote", "Remove quote"),
    ("showMore", "Show more"),
    ("showLess", "Show less"),
    ("searching", "Searching the book…"),
    ("writing", "Writing…"),
    ("retry", "Retry"),
    ("regenerate", "Regenerate"),
    ("helpful", "Helpful"),
    ("notHelpful", "Not helpful"),
    ("copyAnswer", "Copy answer"),
    ("copy", "Copy"),
    ("copied", "Copied"),
    ("sources", "Sources"),
    ("nearest", "Nearest sections"),
    ("suggestions", "Follow-up suggestions"),
    ("excerpts", "Excerpts"),
    ("jumpLatest", "Jump to latest"),
    ("loadingIndex", "Loading the book's index…"),
    // Shown by the loader (widget-loader/loader.js), which has no wasm to ask: it reads the same
    // keys from `BOOK_CHAT_CONFIG.strings` with these defaults.
    ("loadFailed", "The assistant could not be loaded. Click to retry."),
    ("stoppedNotice", "The assistant stopped; reload the page."),
    ("reload", "Reload"),
];

/// A book's translations (`BOOK_CHAT_CONFIG.strings`, a JSON object of key → text), in the order
/// given. A list, not a hash map: a few dozen keys are looked up a few times per answer, and the
/// widget's gzipped budget has no room for another map type's code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Translations(Vec<(String, String)>);

impl Translations {
    /// The text given for `key` (the last, if a key is given twice as JSON allows).
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

impl<K: Into<String>, V: Into<String>> FromIterator<(K, V)> for Translations {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(pairs: I) -> Self {
        Self(
            pairs
                .into_iter()
                .map(|(k, v)| (k.into(), v.into()))
                .collect(),
        )
    }
}

impl<'de> Deserialize<'de> for Translations {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        /// Reads a JSON object's entries in order.
        struct Entries;
        impl<'de> Visitor<'de> for Entries {
            type Value = Translations;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of texts by key")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Translations, M::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, String>()? {
                    pairs.push(pair);
                }
                Ok(Translations(pairs))
            }
        }
        deserializer.deserialize_map(Entries)
    }
}

/// The widget's words for one page: translations over the English defaults.
#[derive(Debug, Clone, Default)]
pub struct Strings {
    overrides: Translations,
}

impl Strings {
    /// Uses the non-empty translations of known keys from `config.strings`.
    pub fn new(overrides: &Translations) -> Self {
        Self {
            overrides: overrides
                .0
                .iter()
                .filter(|(k, v)| !v.trim().is_empty() && english(k).is_some())
                .cloned()
                .collect(),
        }
    }

    /// The text for `key`: the translation, else the English default, else the key itself
    /// (a typo shows up on screen and in the test below, never as a panic).
    pub fn get(&self, key: &str) -> String {
        self.overrides
            .get(key)
            .or_else(|| english(key))
            .unwrap_or(key)
            .to_string()
    }

    /// The words of excerpt answers and refusals, translated where the book translates them.
    pub fn answer_words(&self) -> book_answer::Words {
        book_answer::Words::from_lookup(|key| self.overrides.get(key).map(str::to_string))
    }
}

/// The English text of `key`: the widget's own words, then the answers' words.
fn english(key: &str) -> Option<&'static str> {
    DEFAULTS
        .iter()
        .chain(book_answer::words::KEYS)
        .find(|(k, _)| *k == key)
        .map(|(_, v)| *v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_over_default() {
        let m: Translations = [("send", "بھیجیں"), ("unknownKey", "x"), ("stop", " ")]
            .into_iter()
            .collect();
        let s = Strings::new(&m);
        assert_eq!(s.get("send"), "بھیجیں");
        assert_eq!(s.get("stop"), "Stop");
        assert_eq!(s.get("settings"), "Answer settings");
        assert_eq!(s.overrides.0.len(), 1);
    }

    #[test]
    fn translations_read_from_a_json_object_and_the_last_of_a_key_wins() {
        let t: Translations =
            serde_json::from_str(r#"{"send": "Envoyer", "stop": "Arrêter", "send": "Envoi"}"#)
                .unwrap();
        assert_eq!(t.get("send"), Some("Envoi"));
        assert_eq!(t.get("stop"), Some("Arrêter"));
        assert_eq!(t.get("close"), None);
        assert!(serde_json::from_str::<Translations>(r#"{"send": 5}"#).is_err());
        assert!(serde_json::from_str::<Translations>(r#"["send"]"#).is_err());
    }

    #[test]
    fn keys_are_unique() {
        let all: Vec<&str> = DEFAULTS
            .iter()
            .chain(book_answer::words::KEYS)
            .map(|(k, _)| *k)
            .collect();
        for (i, k) in all.iter().enumerate() {
            assert!(all[i + 1..].iter().all(|o| o != k), "{k} twice");
        }
    }

    #[test]
    fn answers_are_framed_in_the_books_words() {
        let m: Translations = [("alsoRelevant", "یہ بھی متعلقہ:")].into_iter().collect();
        let s = Strings::new(&m);
        assert_eq!(s.answer_words().also_relevant, "یہ بھی متعلقہ:");
        assert_eq!(
            s.answer_words().refusal,
            book_answer::words::REFUSAL,
            "untranslated words stay English"
        );
        assert_eq!(s.get("refusalNothing"), book_answer::REFUSAL_NOTHING);
    }

    /// The loader (plain JS, no wasm) repeats the defaults of the keys it shows: they must be
    /// keys of this table with the same English text.
    #[test]
    fn loader_words_are_this_tables() {
        let loader = include_str!("../widget-loader/loader.js");
        let mut seen = 0;
        for call in loader.split("word(\"").skip(1) {
            let Some((key, rest)) = call.split_once("\", \"") else {
                continue;
            };
            let Some((english, _)) = rest.split_once("\")") else {
                continue;
            };
            let default = DEFAULTS.iter().find(|(k, _)| *k == key);
            assert_eq!(default.map(|(_, v)| *v), Some(english), "loader key {key}");
            seen += 1;
        }
        assert!(
            seen >= 4,
            "the loader's word(...) calls were not found ({seen})"
        );
    }
}

//! The widget's own words (contract 1): one table of keys with their English defaults, and the
//! words excerpt answers are framed in (`book_answer::words::KEYS`, defined with the answer core
//! that writes them). A book translates both through `BOOK_CHAT_CONFIG.strings` (filled by the
//! Docusaurus plugin from its `strings` option and from `i18n/<locale>/code.json` ids starting
//! with `bookChat.`); a missing key keeps the English text. The English accessible names are the
//! ones the tests and readers already rely on.

use std::collections::HashMap;

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

/// The widget's words for one page: translations over the English defaults.
#[derive(Debug, Clone, Default)]
pub struct Strings {
    overrides: HashMap<String, String>,
}

impl Strings {
    /// Uses the non-empty translations of known keys from `config.strings`.
    pub fn new(overrides: &HashMap<String, String>) -> Self {
        Self {
            overrides: overrides
                .iter()
                .filter(|(k, v)| !v.trim().is_empty() && english(k).is_some())
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        }
    }

    /// The text for `key`: the translation, else the English default, else the key itself
    /// (a typo shows up on screen and in the test below, never as a panic).
    pub fn get(&self, key: &str) -> String {
        if let Some(v) = self.overrides.get(key) {
            return v.clone();
        }
        english(key)
            .map(str::to_string)
            .unwrap_or_else(|| key.to_string())
    }

    /// The words of excerpt answers and refusals, translated where the book translates them.
    pub fn answer_words(&self) -> book_answer::Words {
        book_answer::Words::from_lookup(|key| self.overrides.get(key).cloned())
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
        let mut m = HashMap::new();
        m.insert("send".to_string(), "بھیجیں".to_string());
        m.insert("unknownKey".to_string(), "x".to_string());
        m.insert("stop".to_string(), " ".to_string());
        let s = Strings::new(&m);
        assert_eq!(s.get("send"), "بھیجیں");
        assert_eq!(s.get("stop"), "Stop");
        assert_eq!(s.get("settings"), "Answer settings");
        assert_eq!(s.overrides.len(), 1);
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
        let mut m = HashMap::new();
        m.insert("alsoRelevant".to_string(), "یہ بھی متعلقہ:".to_string());
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

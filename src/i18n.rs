//! The widget's own words (contract 1): one table of keys with their English defaults. A book
//! translates them through `BOOK_CHAT_CONFIG.strings` (filled by the Docusaurus plugin from its
//! `strings` option and from `i18n/<locale>/code.json` ids starting with `bookChat.`); a missing
//! key keeps the English text. The English accessible names are the ones the tests and readers
//! already rely on.

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
                .filter(|(k, v)| !v.trim().is_empty() && DEFAULTS.iter().any(|(d, _)| d == k))
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
        DEFAULTS
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.to_string())
            .unwrap_or_else(|| key.to_string())
    }
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
        for (i, (k, _)) in DEFAULTS.iter().enumerate() {
            assert!(DEFAULTS[i + 1..].iter().all(|(o, _)| o != k), "{k} twice");
        }
    }
}

//! The words an answer is framed in: the excerpt label, "From [n]:", "Also relevant:", the closing
//! line and the refusals. English here, defined once; the widget translates them like its own
//! words (`BOOK_CHAT_CONFIG.strings` and `i18n/<locale>/code.json`, keys in [`KEYS`]), so a book in
//! another language frames its quotes in that language. `index-builder answer` and the tests use
//! English.

/// The label that opens every excerpt answer.
pub const EXCERPT_LABEL: &str =
    "**Excerpts from the book** (no AI summary; the most relevant passages, quoted):";
/// Before a code block, table or list, with citations; `{n}` is the source's number.
pub const FROM_SOURCE: &str = "From [{n}]:";
/// Before a code block, table or list, without citations.
pub const FROM_BOOK: &str = "From the book:";
/// Before the links to relevant sections the quotes leave out.
pub const ALSO_RELEVANT: &str = "Also relevant:";
/// The closing line, with citations.
pub const FOLLOW_SOURCES: &str = "Follow the sources below for the full explanation.";
/// The closing line without citations; `{list}` cites every quoted source once ("[1], [2]").
pub const FOLLOW_SOURCES_CITED: &str = "Follow the sources below for the full explanation: {list}.";
/// When the sections found hold nothing to quote; `{list}` cites them ("[1], [2], [3]").
pub const UNQUOTED: &str =
    "I found sections that look related but no passage to quote; read them for the answer: {list}.";
/// A refusal with the nearest sections listed under it. It says what the search did, not that the
/// book lacks the subject: readers found the answer in a listed section often enough.
pub const REFUSAL: &str = "I couldn't find an answer to this in the book. The nearest sections are listed below in case they help.";
/// A refusal when the search found nothing at all (nothing is listed).
pub const REFUSAL_NOTHING: &str = "I couldn't find an answer to this in the book.";

/// Every word's translation key (the widget's `strings`) and its English text.
pub const KEYS: &[(&str, &str)] = &[
    ("excerptLabel", EXCERPT_LABEL),
    ("fromSource", FROM_SOURCE),
    ("fromBook", FROM_BOOK),
    ("alsoRelevant", ALSO_RELEVANT),
    ("followSources", FOLLOW_SOURCES),
    ("followSourcesCited", FOLLOW_SOURCES_CITED),
    ("unquoted", UNQUOTED),
    ("refusal", REFUSAL),
    ("refusalNothing", REFUSAL_NOTHING),
];

/// The words of one book's answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Words {
    /// See [`EXCERPT_LABEL`].
    pub excerpt_label: String,
    /// See [`FROM_SOURCE`].
    pub from_source: String,
    /// See [`FROM_BOOK`].
    pub from_book: String,
    /// See [`ALSO_RELEVANT`].
    pub also_relevant: String,
    /// See [`FOLLOW_SOURCES`].
    pub follow_sources: String,
    /// See [`FOLLOW_SOURCES_CITED`].
    pub follow_sources_cited: String,
    /// See [`UNQUOTED`].
    pub unquoted: String,
    /// See [`REFUSAL`].
    pub refusal: String,
    /// See [`REFUSAL_NOTHING`].
    pub refusal_nothing: String,
}

impl Default for Words {
    /// English.
    fn default() -> Self {
        Self::from_lookup(|_| None)
    }
}

impl Words {
    /// The words with `translation(key)` over English. A translation that drops the `{n}` or
    /// `{list}` its English text has is not used (the answer would lose its citation numbers).
    pub fn from_lookup(translation: impl Fn(&str) -> Option<String>) -> Self {
        let word = |key: &str| -> String {
            let english = KEYS.iter().find(|(k, _)| *k == key).map_or("", |(_, e)| *e);
            let keeps = |t: &str| {
                ["{n}", "{list}"]
                    .iter()
                    .all(|p| !english.contains(p) || t.contains(p))
            };
            translation(key)
                .filter(|t| !t.trim().is_empty() && keeps(t))
                .unwrap_or_else(|| english.to_string())
        };
        Self {
            excerpt_label: word("excerptLabel"),
            from_source: word("fromSource"),
            from_book: word("fromBook"),
            also_relevant: word("alsoRelevant"),
            follow_sources: word("followSources"),
            follow_sources_cited: word("followSourcesCited"),
            unquoted: word("unquoted"),
            refusal: word("refusal"),
            refusal_nothing: word("refusalNothing"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translations_over_english() {
        let w = Words::from_lookup(|k| match k {
            "alsoRelevant" => Some("Voir aussi :".into()),
            // Drops the citation numbers: English kept.
            "fromSource" => Some("D'après la source :".into()),
            "refusal" => Some("  ".into()),
            _ => None,
        });
        assert_eq!(w.also_relevant, "Voir aussi :");
        assert_eq!(w.from_source, FROM_SOURCE);
        assert_eq!(w.refusal, REFUSAL);
        assert_eq!(Words::default().excerpt_label, EXCERPT_LABEL);
    }

    #[test]
    fn every_key_is_read() {
        // Each key's translation lands in a field: a key left out of `from_lookup` would keep
        // English whatever the book says.
        let w = Words::from_lookup(|k| Some(format!("<{k}> {{n}} {{list}}")));
        let fields = [
            &w.excerpt_label,
            &w.from_source,
            &w.from_book,
            &w.also_relevant,
            &w.follow_sources,
            &w.follow_sources_cited,
            &w.unquoted,
            &w.refusal,
            &w.refusal_nothing,
        ];
        assert_eq!(fields.len(), KEYS.len());
        for (k, _) in KEYS {
            assert!(
                fields.iter().any(|f| f.starts_with(&format!("<{k}>"))),
                "{k}"
            );
        }
    }
}

//! BERT uncased WordPiece tokenizer, as `tokenizers`' `BertNormalizer` + `BertPreTokenizer` +
//! `WordPiece` run it for all-MiniLM-L6-v2.
//!
//! Hand-written because the `tokenizers` crate pulls a regex engine and far more code than the
//! browser can afford; `tests/tokenizer_diff.rs` checks this one against it, id for id.

use std::collections::HashMap;

use unicode_general_category::{get_general_category, GeneralCategory};
use unicode_normalization::UnicodeNormalization;

/// Id of `[UNK]` etc. are looked up in the vocabulary; these are the names.
const UNK: &str = "[UNK]";
const CLS: &str = "[CLS]";
const SEP: &str = "[SEP]";
/// Words longer than this (in chars) become `[UNK]`, as in `tokenizers`' WordPiece.
const MAX_INPUT_CHARS_PER_WORD: usize = 100;

/// Why a vocabulary could not be used.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum VocabError {
    /// A required special token is absent.
    #[error("vocabulary has no {0} token")]
    MissingSpecial(&'static str),
    /// The vocabulary is empty or has more entries than ids can hold.
    #[error("vocabulary size {0} is out of range")]
    BadSize(usize),
}

/// A WordPiece tokenizer over a `vocab.txt` style vocabulary (one token per line, id = line number).
#[derive(Debug, Clone)]
pub struct WordPiece {
    ids: HashMap<String, u32>,
    unk: u32,
    cls: u32,
    sep: u32,
}

impl WordPiece {
    /// Builds the tokenizer from the lines of `vocab.txt`.
    pub fn from_vocab_text(text: &str) -> Result<Self, VocabError> {
        let tokens: Vec<&str> = text.lines().collect();
        if tokens.is_empty() || tokens.len() > u32::MAX as usize / 2 {
            return Err(VocabError::BadSize(tokens.len()));
        }
        let mut ids = HashMap::with_capacity(tokens.len());
        for (i, t) in tokens.iter().enumerate() {
            // Later duplicates do not override earlier ids (vocab.txt has none, but be safe).
            ids.entry((*t).to_string()).or_insert(i as u32);
        }
        let get = |name: &'static str| {
            ids.get(name)
                .copied()
                .ok_or(VocabError::MissingSpecial(name))
        };
        Ok(Self {
            unk: get(UNK)?,
            cls: get(CLS)?,
            sep: get(SEP)?,
            ids,
        })
    }

    /// Id of `[UNK]`.
    pub fn unk_id(&self) -> u32 {
        self.unk
    }

    /// Id of `token`, if it is in the vocabulary.
    pub fn id_of(&self, token: &str) -> Option<u32> {
        self.ids.get(token).copied()
    }

    /// Number of entries in the vocabulary (the largest id + 1).
    pub fn vocab_len(&self) -> usize {
        self.ids
            .values()
            .map(|&v| v as usize + 1)
            .max()
            .unwrap_or(0)
    }

    /// Whether vocabulary entry `token` can come out of [`WordPiece::encode`]: its text (without a
    /// leading `##`) survives normalization and pre-tokenization as one word. Entries such as
    /// `[PAD]`, `[unused7]`, accented letters (accents are stripped) or `...` (punctuation is split
    /// off one character at a time) never do, so the encoder need not store anything for them.
    /// A `##` piece must also stay glued to a letter before it (a CJK character never does).
    pub fn can_emit(token: &str) -> bool {
        let word = match token.strip_prefix("##") {
            Some("") => return false,
            Some(body) => format!("a{body}"),
            None => token.to_string(),
        };
        !word.is_empty() && pre_tokenize(&normalize(&word)) == [word]
    }

    /// Token ids of `text` wrapped in `[CLS]` … `[SEP]`, truncated to `max_len` ids in all.
    pub fn encode(&self, text: &str, max_len: usize) -> Vec<u32> {
        let max_len = max_len.max(2);
        let mut out = Vec::with_capacity(32);
        out.push(self.cls);
        'words: for word in pre_tokenize(&normalize(text)) {
            for id in self.word_ids(&word) {
                if out.len() + 1 >= max_len {
                    break 'words;
                }
                out.push(id);
            }
        }
        out.push(self.sep);
        out
    }

    /// Greedy longest-match-first WordPiece of one pre-tokenized word.
    fn word_ids(&self, word: &str) -> Vec<u32> {
        let chars: Vec<(usize, char)> = word.char_indices().collect();
        if chars.len() > MAX_INPUT_CHARS_PER_WORD {
            return vec![self.unk];
        }
        let mut ids = Vec::new();
        let mut start = 0usize; // index into `chars`
        let mut piece = String::with_capacity(word.len() + 2);
        while start < chars.len() {
            let mut end = chars.len();
            let mut found = None;
            while start < end {
                let from = chars[start].0;
                let to = chars.get(end).map_or(word.len(), |c| c.0);
                piece.clear();
                if start > 0 {
                    piece.push_str("##");
                }
                piece.push_str(&word[from..to]);
                if let Some(&id) = self.ids.get(piece.as_str()) {
                    found = Some(id);
                    break;
                }
                end -= 1;
            }
            match found {
                Some(id) => ids.push(id),
                None => return vec![self.unk],
            }
            start = end;
        }
        ids
    }
}

/// `BertNormalizer` with clean_text, handle_chinese_chars, strip_accents (implied by lowercase) and lowercase.
pub fn normalize(text: &str) -> String {
    let mut cleaned = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\0' || c == '\u{fffd}' || is_control(c) {
            continue;
        }
        if is_whitespace(c) {
            cleaned.push(' ');
        } else if is_chinese_char(c) {
            cleaned.push(' ');
            cleaned.push(c);
            cleaned.push(' ');
        } else {
            cleaned.push(c);
        }
    }
    let stripped: String = cleaned
        .nfd()
        .filter(|&c| get_general_category(c) != GeneralCategory::NonspacingMark)
        .collect();
    stripped.chars().flat_map(char::to_lowercase).collect()
}

/// `BertPreTokenizer`: split on whitespace, and isolate every punctuation character.
pub fn pre_tokenize(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
        } else if is_bert_punctuation(c) {
            if !cur.is_empty() {
                words.push(std::mem::take(&mut cur));
            }
            words.push(c.to_string());
        } else {
            cur.push(c);
        }
    }
    if !cur.is_empty() {
        words.push(cur);
    }
    words
}

fn is_whitespace(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r') || c.is_whitespace()
}

fn is_control(c: char) -> bool {
    if matches!(c, '\t' | '\n' | '\r') {
        return false;
    }
    matches!(
        get_general_category(c),
        GeneralCategory::Control
            | GeneralCategory::Format
            | GeneralCategory::Unassigned
            | GeneralCategory::PrivateUse
            | GeneralCategory::Surrogate
    )
}

fn is_bert_punctuation(c: char) -> bool {
    c.is_ascii_punctuation()
        || matches!(
            get_general_category(c),
            GeneralCategory::ConnectorPunctuation
                | GeneralCategory::DashPunctuation
                | GeneralCategory::ClosePunctuation
                | GeneralCategory::FinalPunctuation
                | GeneralCategory::InitialPunctuation
                | GeneralCategory::OtherPunctuation
                | GeneralCategory::OpenPunctuation
        )
}

fn is_chinese_char(c: char) -> bool {
    matches!(c as u32,
        0x4E00..=0x9FFF | 0x3400..=0x4DBF | 0x20000..=0x2A6DF | 0x2A700..=0x2B73F
        | 0x2B740..=0x2B81F | 0x2B920..=0x2CEAF | 0xF900..=0xFAFF | 0x2F800..=0x2FA1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiny() -> WordPiece {
        let vocab = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nhello\nworld\n##s\nun\n##aff\n##able\n,\n!";
        WordPiece::from_vocab_text(vocab).unwrap()
    }

    #[test]
    fn only_pieces_that_survive_normalization_can_be_emitted() {
        for t in ["hello", "##s", ",", "\u{4e2d}"] {
            assert!(WordPiece::can_emit(t), "{t}");
        }
        for t in [
            "[PAD]",
            "[unused7]",
            "\u{e9}",
            "##\u{e9}t\u{e9}",
            "##\u{4e2d}",
            "...",
            "Hello",
            "##",
            "",
        ] {
            assert!(!WordPiece::can_emit(t), "{t}");
        }
    }

    #[test]
    fn splits_words_into_longest_pieces() {
        assert_eq!(
            tiny().encode("Hello, unaffable worlds!", 64),
            vec![2, 4, 10, 7, 8, 9, 5, 6, 11, 3]
        );
    }

    #[test]
    fn unknown_word_is_one_unk() {
        assert_eq!(tiny().encode("helloq", 64), vec![2, 1, 3]);
    }

    #[test]
    fn truncates_but_keeps_sep() {
        assert_eq!(tiny().encode("hello hello hello", 3), vec![2, 4, 3]);
    }

    #[test]
    fn normalizer_strips_accents_and_lowercases() {
        assert_eq!(normalize("Ünïcode\tTÄB\u{200b}"), "unicode tab");
    }

    #[test]
    fn missing_special_is_an_error() {
        assert_eq!(
            WordPiece::from_vocab_text("a\nb").unwrap_err(),
            VocabError::MissingSpecial("[UNK]")
        );
    }
}

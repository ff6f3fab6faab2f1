//! Removal of secrets from upstream error text before it is passed on to a client or a log.
//!
//! Upstreams sometimes echo the key back ("Incorrect API key provided: sk-abc***wxyz"), whole or
//! masked; a word that contains the key, a long piece of it, or looks like an OpenAI-style key
//! is replaced by `[redacted]`.

use crate::config::ApiKey;

/// Longest upstream message passed on, in characters.
pub const MAX_MESSAGE_CHARS: usize = 300;

/// Returns `text` without the key (or pieces of it), shortened to [`MAX_MESSAGE_CHARS`].
pub fn scrub(text: &str, key: Option<&ApiKey>) -> String {
    let key = key.map(ApiKey::expose).unwrap_or("");
    let mut cleaned = if key.is_empty() {
        text.to_string()
    } else {
        text.replace(key, "[redacted]")
    };
    let pieces = key_pieces(key);
    cleaned = cleaned
        .split(' ')
        .map(|word| {
            let lower = word.to_ascii_lowercase();
            let looks_like_key = lower
                .trim_start_matches(|c: char| !c.is_ascii_alphanumeric())
                .starts_with("sk-")
                || pieces.iter().any(|p| word.contains(p.as_str()));
            if looks_like_key {
                "[redacted]"
            } else {
                word
            }
        })
        .collect::<Vec<_>>()
        .join(" ");
    let mut out: String = cleaned.chars().take(MAX_MESSAGE_CHARS).collect();
    if cleaned.chars().count() > MAX_MESSAGE_CHARS {
        out.push('…');
    }
    out
}

/// Leading and trailing pieces of a long key, the parts a masked echo keeps.
fn key_pieces(key: &str) -> Vec<String> {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 16 {
        return Vec::new();
    }
    let head: String = chars[..8].iter().collect();
    let tail: String = chars[chars.len() - 6..].iter().collect();
    vec![head, tail]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> ApiKey {
        ApiKey::new("tok-ABCDEFGH1234567890wxyz").unwrap()
    }

    #[test]
    fn whole_key_removed() {
        let s = scrub("bad key Bearer tok-ABCDEFGH1234567890wxyz!", Some(&key()));
        assert!(!s.contains("ABCDEFGH1234567890"), "{s}");
        assert!(s.contains("[redacted]"));
    }

    #[test]
    fn masked_echo_removed() {
        let s = scrub(
            "Incorrect API key provided: tok-ABCD****7890wxyz.",
            Some(&key()),
        );
        assert!(!s.contains("7890wxyz"), "{s}");
        let s = scrub("Incorrect API key provided: sk-proj-ab***yz.", None);
        assert!(!s.contains("sk-proj"), "{s}");
    }

    #[test]
    fn plain_text_kept_and_shortened() {
        assert_eq!(scrub("model not found", Some(&key())), "model not found");
        let long = "x".repeat(1000);
        assert_eq!(scrub(&long, None).chars().count(), MAX_MESSAGE_CHARS + 1);
    }
}

//! Text analysis for BM25, shared by the builder (documents) and the browser (questions) so both
//! see the same terms.

/// Words too common to say anything about a section.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "between", "both", "but", "by", "can", "cant", "could", "did", "do",
    "does", "doesnt", "doing", "dont", "each", "eg", "explain", "for", "from", "further", "get",
    "had", "has", "have", "having", "he", "her", "here", "him", "his", "how", "i", "ie", "if",
    "im", "in", "into", "is", "isnt", "it", "its", "ive", "just", "know", "make", "makes", "me",
    "more", "most", "my", "need", "no", "nor", "not", "of", "off", "on", "once", "one", "only",
    "or", "other", "our", "out", "over", "own", "please", "s", "same", "she", "should", "so",
    "some", "such", "t", "tell", "than", "that", "the", "their", "them", "then", "there", "these",
    "they", "thing", "things", "this", "those", "through", "to", "too", "under", "until", "up",
    "us", "use", "used", "using", "very", "wanna", "want", "was", "way", "we", "were", "what",
    "whats", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "work",
    "works", "would", "you", "your", "yours",
];

/// Splits text into lowercase, stemmed terms, dropping stop words. `useDocusaurusContext` yields the
/// whole identifier and its camel-case parts, so both ways of asking match.
pub fn analyze(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()) {
        if word.is_empty() {
            continue;
        }
        let parts = camel_parts(word);
        if parts.len() > 1 {
            for p in &parts {
                push_term(&mut terms, p);
            }
        }
        push_term(&mut terms, word);
    }
    terms
}

/// Whether `word` (lowercase) is one of the stop words BM25 ignores; the answer core uses the same
/// list to find a question's topic words.
pub fn is_stop_word(word: &str) -> bool {
    STOP_WORDS.binary_search(&word).is_ok()
}

fn push_term(terms: &mut Vec<String>, word: &str) {
    let lower = word.to_lowercase();
    if lower.chars().count() > 40 || is_stop_word(&lower) {
        return;
    }
    terms.push(stem(&lower));
}

/// `useDocusaurusContext` → `use`, `Docusaurus`, `Context`; `HTTPServer` → `HTTP`, `Server`.
fn camel_parts(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (prev, cur) = (chars[i - 1].1, chars[i].1);
        let next_lower = chars.get(i + 1).is_some_and(|c| c.1.is_lowercase());
        let boundary = (prev.is_lowercase() && cur.is_uppercase())
            || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
            || (prev.is_alphabetic() && cur.is_ascii_digit())
            || (prev.is_ascii_digit() && cur.is_alphabetic());
        if boundary {
            parts.push(&word[start..chars[i].0]);
            start = chars[i].0;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// A light English stemmer (plurals, -ing, -ed, -ly, -ation…).
///
/// Hand-written: the Snowball crates bundle every language (hundreds of KB of wasm) while the
/// widget only needs English conflation of the common inflections.
pub fn stem(word: &str) -> String {
    if word.len() <= 3 || !word.is_ascii() || word.bytes().any(|b| b.is_ascii_digit()) {
        return word.to_string();
    }
    let w = word;
    let rules: &[(&str, &str)] = &[
        ("ational", "ate"),
        ("ization", "ize"),
        ("ations", "ate"),
        ("ation", "ate"),
        ("iveness", "ive"),
        ("fulness", "ful"),
        ("ousness", "ous"),
        ("nesses", ""),
        ("ness", ""),
        ("ments", ""),
        ("ment", ""),
        ("ingly", ""),
        ("ies", "y"),
        ("ied", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("edly", ""),
        ("ed", ""),
        ("ly", ""),
        ("es", "e"),
        ("s", ""),
    ];
    for (suffix, repl) in rules {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.len() < 3
                || (*suffix == "s"
                    && (base.ends_with('s') || base.ends_with('u') || base.ends_with('i')))
            {
                continue;
            }
            let has_vowel = base.bytes().any(|b| b"aeiouy".contains(&b));
            if !has_vowel {
                continue;
            }
            let mut out = format!("{base}{repl}");
            // "running" -> "runn" -> "run"; "stopped" -> "stop".
            if repl.is_empty() && matches!(*suffix, "ing" | "ed") {
                let b = out.as_bytes();
                let n = b.len();
                if n >= 2 && b[n - 1] == b[n - 2] && !b"lsz".contains(&b[n - 1]) {
                    out.pop();
                }
            }
            return out.trim_end_matches('e').to_string();
        }
    }
    w.trim_end_matches('e').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn inflections_conflate() {
        for group in [
            &["publish", "publishes", "publishing", "published"][..],
            &["topic", "topics"],
            &["simulate", "simulation", "simulations"],
            &["run", "running"],
            &["versions", "version", "versioning"],
            &["library", "libraries"],
        ] {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.iter().all(|s| s == &stems[0]),
                "{group:?} -> {stems:?}"
            );
        }
    }

    #[test]
    fn camel_case_and_stop_words() {
        assert_eq!(
            analyze("How do I useDocusaurusContext?"),
            vec!["docusaurus", "context", "usedocusauruscontext"]
        );
        assert_eq!(analyze("ROS2 nodes"), vec!["ros", "2", "ros2", "nod"]);
    }
}

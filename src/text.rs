//! Small word-level helpers shared by follow-up rewriting, extractive answers and suggestions.
//! (Hand-written: a stop-word list and a tokenizer are a few lines; a crate would add wasm size.)

/// English function words that carry no topic.
const STOPWORDS: &[&str] = &[
    "a", "about", "after", "again", "all", "also", "am", "an", "and", "any", "are", "as", "at",
    "be", "because", "been", "before", "being", "between", "both", "but", "by", "can", "could",
    "did", "do", "does", "doing", "each", "explain", "for", "from", "further", "give", "had",
    "has", "have", "having", "he", "her", "here", "how", "i", "if", "in", "into", "is", "it",
    "its", "itself", "just", "me", "more", "most", "my", "no", "not", "now", "of", "on", "once",
    "only", "or", "other", "our", "out", "over", "please", "same", "she", "should", "so", "some",
    "such", "tell", "than", "that", "the", "their", "them", "then", "there", "these", "they",
    "this", "those", "through", "to", "too", "under", "until", "up", "use", "used", "using",
    "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom", "why",
    "will", "with", "would", "you", "your", "example", "examples", "mean", "means", "work",
    "works", "show", "book", "say", "says",
];

/// Whether `w` (lowercase) is a function word.
pub fn is_stopword(w: &str) -> bool {
    STOPWORDS.contains(&w)
}

/// Lowercase word tokens: letters, digits, and inner `-`/`_`/`.` kept (e.g. `ros2`, `rclpy`, `cmd_vel`).
pub fn words(s: &str) -> Vec<String> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .map(|w| {
            w.trim_matches(|c: char| c == '-' || c == '.' || c == '_')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Topic words of `s`: tokens minus stop words and one-letter tokens, first occurrence order, no repeats.
pub fn content_words(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in words(s) {
        if w.chars().count() > 1 && !is_stopword(&w) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// A crude stem so "robots" matches "robot" and "planning" matches "planner": the first 5 characters.
pub fn stem(w: &str) -> String {
    w.chars().take(5).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokenizes_technical_words() {
        assert_eq!(
            words("What is ROS 2's cmd_vel topic?"),
            ["what", "is", "ros", "2", "s", "cmd_vel", "topic"]
        );
        assert_eq!(
            content_words("What is the cmd_vel topic in ROS?"),
            ["cmd_vel", "topic", "ros"]
        );
    }

    #[test]
    fn stems_share_prefix() {
        assert_eq!(stem("robots"), stem("robot"));
        assert_eq!(stem("é"), "é");
    }
}

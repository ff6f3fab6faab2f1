//! Extractive answers: with no LLM (no proxy configured, or the proxy has no upstream), the widget
//! answers with the most relevant sentences of the top sources, quoted, cited and labelled as excerpts.

use crate::source::{cut_at_word, Source};
use crate::text::{content_words, stem, words};

/// Sentences quoted at most.
pub const MAX_SENTENCES: usize = 3;
/// Sources searched for sentences (the best ones).
const MAX_SOURCES: usize = 3;
/// Longest quoted sentence, in characters.
const MAX_SENTENCE_CHARS: usize = 320;

/// The label that opens every extractive answer.
pub const EXCERPT_LABEL: &str =
    "**Excerpts from the book** (no AI summary; the most relevant passages, quoted):";

/// An extractive answer: Markdown with `[n]` citations numbered like `sources`.
#[derive(Debug, Clone, PartialEq)]
pub struct Extract {
    pub markdown: String,
    /// 1-based numbers of the sources quoted.
    pub cited: Vec<usize>,
}

/// Prose sentences of a chunk: code fences, headings, tables and admonition markers skipped.
fn sentences(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut in_fence = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with("```") || t.starts_with("~~~") {
            in_fence = !in_fence;
            prose.push('\n');
            continue;
        }
        if in_fence
            || t.starts_with('#')
            || t.starts_with('|')
            // The index builder writes table rows as `cell | cell | cell`.
            || t.contains(" | ")
            || t.starts_with(":::")
            || t.is_empty()
        {
            prose.push('\n');
            continue;
        }
        let t = t.trim_start_matches(['>', '-', '*', '+', ' ']);
        let t = t.trim_start_matches(|c: char| c.is_ascii_digit());
        let t = t.strip_prefix(". ").unwrap_or(t);
        prose.push_str(t);
        prose.push(' ');
    }
    let mut out = Vec::new();
    for block in prose.split('\n') {
        let mut start = 0;
        let chars: Vec<(usize, char)> = block.char_indices().collect();
        for (k, &(i, c)) in chars.iter().enumerate() {
            let next_is_space = chars.get(k + 1).is_none_or(|&(_, n)| n == ' ');
            if matches!(c, '.' | '!' | '?') && next_is_space {
                let s = block[start..i + c.len_utf8()].trim();
                if !s.is_empty() {
                    out.push(s.to_string());
                }
                start = i + c.len_utf8();
            }
        }
        let s = block[start..].trim();
        if !s.is_empty() {
            out.push(s.to_string());
        }
    }
    out.into_iter()
        .filter(|s| s.split_whitespace().count() >= 4)
        .collect()
}

/// Relevance of a sentence to the query's topic stems (matches, with a little weight for position).
fn score(sentence: &str, query_stems: &[String]) -> f32 {
    let stems: Vec<String> = words(sentence).iter().map(|w| stem(w)).collect();
    let hits = query_stems.iter().filter(|q| stems.contains(q)).count();
    hits as f32 / (1.0 + (stems.len() as f32 / 25.0))
}

/// Builds an extractive answer from ranked `sources` (numbered from 1 in the given order).
pub fn extract(query: &str, sources: &[Source]) -> Option<Extract> {
    let query_stems: Vec<String> = content_words(query).iter().map(|w| stem(w)).collect();
    // (score, source index, sentence order, sentence)
    let mut cands: Vec<(f32, usize, usize, String)> = Vec::new();
    for (si, src) in sources.iter().enumerate().take(MAX_SOURCES) {
        let rank_weight = 1.0 - si as f32 * 0.1;
        for (k, s) in sentences(&src.text).into_iter().enumerate() {
            let sc = score(&s, &query_stems) * rank_weight + if k == 0 { 0.05 } else { 0.0 };
            cands.push((sc, si, k, s));
        }
    }
    if cands.is_empty() {
        return None;
    }
    cands.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    let mut chosen: Vec<(usize, usize, String)> = Vec::new();
    for (sc, si, k, s) in cands.iter().cloned() {
        if chosen.len() >= MAX_SENTENCES {
            break;
        }
        if sc <= 0.05 && !chosen.is_empty() {
            break;
        }
        if chosen.iter().filter(|c| c.0 == si).count() >= 2 {
            continue;
        }
        chosen.push((si, k, s));
    }
    // Read in book order: by source rank, then position in the chunk.
    chosen.sort_by_key(|c| (c.0, c.1));
    let mut md = String::from(EXCERPT_LABEL);
    md.push_str("\n\n");
    let mut cited = Vec::new();
    for (si, _, s) in &chosen {
        let n = si + 1;
        md.push_str(&format!(
            "> “{}” [{n}]\n\n",
            escape_md(&cut_at_word(s, MAX_SENTENCE_CHARS))
        ));
        if !cited.contains(&n) {
            cited.push(n);
        }
    }
    md.push_str("Follow the sources below for the full explanation.");
    cited.sort_unstable();
    Some(Extract {
        markdown: md,
        cited,
    })
}

/// Quoted book text is shown literally: Markdown/HTML-significant characters are escaped.
fn escape_md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn src(n: u32, text: &str) -> Source {
        Source {
            chunk: n,
            chapter: "C".into(),
            section: None,
            url: format!("/c#{n}"),
            text: text.into(),
            score: 1.0,
        }
    }

    #[test]
    fn picks_relevant_sentences_and_cites_them() {
        let sources = vec![
            src(1, "# Nodes\n\nROS 2 has many parts to learn about. A node is a process that performs computation in the graph. Nodes talk over topics.\n```python\nrclpy.init()\n```"),
            src(2, "Topics are named buses over which nodes exchange messages. Services are request and reply."),
        ];
        let e = extract("What is a node in ROS 2?", &sources).unwrap();
        assert!(e.markdown.starts_with(EXCERPT_LABEL));
        assert!(
            e.markdown
                .contains("“A node is a process that performs computation in the graph.” [1]"),
            "{}",
            e.markdown
        );
        assert!(!e.markdown.contains("rclpy"), "code is not quoted");
        assert!(e.cited.contains(&1));
        assert_eq!(crate::citations::cited(&e.markdown, 2), e.cited);
    }

    #[test]
    fn quoted_text_cannot_inject_markup() {
        let sources = vec![src(
            1,
            "The robot <img src=x onerror=alert(1)> moves its arm [9] quickly.",
        )];
        let e = extract("robot arm", &sources).unwrap();
        assert!(e.markdown.contains("\\<img"), "{}", e.markdown);
        assert!(e.markdown.contains("\\[9\\]"));
    }

    #[test]
    fn nothing_to_quote() {
        assert_eq!(extract("x", &[]), None);
        assert_eq!(extract("x", &[src(1, "```\ncode only\n```")]), None);
    }

    #[test]
    fn table_rows_are_not_sentences() {
        let text = "Question | Topic | Service | Action\nContinuous data stream? | yes | no | no\nTopics stream data between many nodes.";
        assert_eq!(
            sentences(text),
            vec!["Topics stream data between many nodes.".to_string()]
        );
    }

    #[test]
    fn sentence_splitting() {
        let s = sentences("1. First step is to install it.\n2. Second step runs the demo now.\n| a | b |\nVersion 2.0 is out today. Done!");
        assert_eq!(
            s,
            [
                "First step is to install it.",
                "Second step runs the demo now.",
                "Version 2.0 is out today."
            ]
        );
    }
}

//! Word-level helpers for follow-up rewriting, quote choice and suggestions. Stop words and stems
//! are the retrieval core's (`book_retrieval::analyzer`), so "what the question is about" means
//! the same thing to the search and to the answer.

use book_retrieval::analyzer;

/// A fixed list of words, written as one string with `|` between them. The answer rules keep
/// some 500 words in such lists; as slices of `&str` each word cost a (pointer, length) pair in
/// the widget's data, about 2 kB gzipped that its budget has no room for.
#[derive(Debug, Clone, Copy)]
pub struct WordList(pub &'static str);

impl WordList {
    /// Whether `w` is one of the words (exactly).
    pub fn contains(&self, w: &str) -> bool {
        self.iter().any(|x| x == w)
    }

    /// The words, in the order written.
    pub fn iter(&self) -> impl Iterator<Item = &'static str> {
        self.0.split('|')
    }
}

/// Words that phrase a request ("give me an example", "show", "the book says") but carry no topic;
/// on top of the analyzer's stop words.
const REQUEST_WORDS: WordList =
    WordList("again|because|example|examples|give|mean|means|now|show|book|say|says|itself");

/// Whether `w` (lowercase) is a function or request word.
pub fn is_stopword(w: &str) -> bool {
    analyzer::is_stop_word(w) || REQUEST_WORDS.contains(w)
}

/// The opening fence of a fenced code block: its character and length ("````md" → four
/// backticks). As in CommonMark, only a line of the same character, at least as long and with
/// nothing after it, closes the block, so a ```` block can show Markdown holding a ``` block (the
/// Docusaurus docs show their own syntax that way); a fence line inside it is code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fence {
    ch: char,
    len: usize,
}

impl Fence {
    /// The fence `line` opens, if it opens one (three or more backticks or tildes).
    pub fn open(line: &str) -> Option<Fence> {
        let t = line.trim_start();
        let ch = t.chars().next().filter(|c| matches!(c, '`' | '~'))?;
        let len = t.chars().take_while(|&c| c == ch).count();
        (len >= 3).then_some(Fence { ch, len })
    }

    /// Whether `line` closes the block this fence opened.
    pub fn closed_by(&self, line: &str) -> bool {
        let t = line.trim();
        let len = t.chars().take_while(|&c| c == self.ch).count();
        // The fence characters are ASCII: `len` bytes.
        len >= self.len && t[len..].trim().is_empty()
    }
}

/// The lines of a chunk's text outside fenced code blocks (the fence lines left out too): its
/// prose, lists and tables, for an excerpt or a count of how the book writes its words.
pub fn prose_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut fence: Option<Fence> = None;
    text.lines().filter(move |line| match fence {
        Some(f) => {
            if f.closed_by(line) {
                fence = None;
            }
            false
        }
        None => {
            fence = Fence::open(line);
            fence.is_none()
        }
    })
}

/// Lowercase word tokens: letters, digits, and inner `-`/`_`/`.` kept (e.g. `ros2`, `rclpy`, `cmd_vel`).
pub fn words(s: &str) -> Vec<String> {
    words_as_written(s).map(str::to_lowercase).collect()
}

/// The whitespace-separated words of `s`, lowercase, with the punctuation around each trimmed and
/// curly apostrophes made straight ("Therefore," → `therefore`, "You’ve" → `you've`): how the
/// excerpt rules read a sentence's opening words, where [`words`] would split "you've" in two.
pub fn plain_words(s: &str) -> impl Iterator<Item = String> + '_ {
    s.split_whitespace().map(|w| {
        w.trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase()
            .replace('’', "'")
    })
}

/// The tokens of [`words`] in the text's own case (to tell a name such as "NITROS" or "Nav2").
pub fn words_as_written(s: &str) -> impl Iterator<Item = &str> {
    s.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .map(|w| w.trim_matches(|c: char| c == '-' || c == '.' || c == '_'))
        .filter(|w| !w.is_empty())
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

/// The stemmed topic terms of `s` as BM25 sees them (request words dropped too), no repeats.
pub fn terms(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in analyzer::analyze(s) {
        if !REQUEST_WORDS.iter().any(|r| analyzer::stem(r) == t) && !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The analyzer's stem of one lowercase word.
pub fn stem(w: &str) -> String {
    analyzer::stem(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_closes_only_with_its_own_kind_at_least_as_long() {
        let f = Fence::open("````md").expect("opens");
        assert!(!f.closed_by("```"));
        assert!(!f.closed_by("```jsx showLineNumbers=3"));
        assert!(!f.closed_by("~~~~"));
        assert!(!f.closed_by("```` x"));
        assert!(f.closed_by("````"));
        assert!(f.closed_by("  `````  "));
        assert_eq!(Fence::open("``inline``"), None);
        assert_eq!(Fence::open("text"), None);
        let text = "a\n````md\n```js\nx\n```\n````\nb\n~~~\ny\n~~~\nc";
        assert_eq!(prose_lines(text).collect::<Vec<_>>(), ["a", "b", "c"]);
    }

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
    fn terms_are_the_analyzers() {
        assert_eq!(terms("Show me examples of robots"), ["robot"]);
        assert_eq!(stem("robots"), stem("robot"));
    }

    #[test]
    fn prose_lines_leave_out_fenced_code() {
        let text = "Intro\n```bash\nls\n```\n~~~\nx\n~~~\n- item\n  ```\n  y\n  ```\nEnd";
        let lines: Vec<&str> = super::prose_lines(text).collect();
        assert_eq!(lines, ["Intro", "- item", "End"]);
    }
}

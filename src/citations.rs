//! Citation markers in answers: `[n]`, `[1, 2]`, `[1][3]`. Numbers that match no source are removed.

/// A piece of answer text: plain text or one citation group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Text between citations, as written.
    Text(String),
    /// Valid 1-based source numbers, in the order written, without repeats.
    Cite(Vec<usize>),
}

/// Longest group considered a citation, e.g. `[1, 2, 3, 4]` (longer bracketed text is left alone).
const MAX_GROUP_LEN: usize = 24;

/// Tries to read a citation group at the start of `s` (which begins with `[`); returns its numbers
/// (all of them, valid or not) and its byte length. `line_start`: the group opens its line.
fn read_group(s: &str, line_start: bool) -> Option<(Vec<usize>, usize)> {
    let end = s[1..].find(']')? + 1;
    if end > MAX_GROUP_LEN {
        return None;
    }
    let inner = &s[1..end];
    if inner.trim().is_empty()
        || !inner
            .chars()
            .all(|c| c.is_ascii_digit() || c == ',' || c == ' ')
    {
        return None;
    }
    let mut nums = Vec::new();
    for part in inner.split(',') {
        let p = part.trim();
        if p.is_empty() {
            return None;
        }
        nums.push(p.parse::<usize>().ok()?);
    }
    // `[1](url)` is a Markdown link and `[1]: url` opening a line a reference definition, not
    // citations ("From [3]:" before a quoted block cites source 3).
    let after = &s[end + 1..];
    if after.starts_with('(') || (line_start && after.starts_with(':')) {
        return None;
    }
    Some((nums, end + 1))
}

/// Splits text into plain pieces and citation groups; numbers outside `1..=n_sources` are dropped,
/// and a group left empty disappears together with the space before it.
pub fn split(text: &str, n_sources: usize) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let mut plain = String::new();
    let mut i = 0;
    while i < text.len() {
        let rest = &text[i..];
        if rest.starts_with('[') {
            // A reference definition may be indented up to three spaces.
            let line = text[..i].rsplit('\n').next().unwrap_or("");
            let line_start = line.len() <= 3 && line.chars().all(|c| c == ' ');
            if let Some((nums, len)) = read_group(rest, line_start) {
                let mut valid: Vec<usize> = Vec::new();
                for n in nums {
                    if n >= 1 && n <= n_sources && !valid.contains(&n) {
                        valid.push(n);
                    }
                }
                if valid.is_empty() {
                    let next = text[i + len..].chars().next();
                    if plain.ends_with(' ')
                        && matches!(
                            next,
                            None | Some('.' | ',' | ';' | ':' | '!' | '?' | ' ' | '\n')
                        )
                    {
                        plain.pop();
                    }
                } else {
                    if !plain.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut plain)));
                    }
                    // Adjacent groups `[1][3]` merge into one.
                    match pieces.last_mut() {
                        Some(Piece::Cite(prev)) if plain.is_empty() => {
                            for n in valid {
                                if !prev.contains(&n) {
                                    prev.push(n);
                                }
                            }
                        }
                        _ => pieces.push(Piece::Cite(valid)),
                    }
                }
                i += len;
                continue;
            }
        }
        let ch = rest.chars().next().unwrap_or(' ');
        plain.push(ch);
        i += ch.len_utf8();
    }
    if !plain.is_empty() {
        pieces.push(Piece::Text(plain));
    }
    pieces
}

/// `text` without its code: fenced blocks and inline code spans, where `data[2]` indexes an array
/// and cites nothing (the answer's renderer splits citations out of plain text only, so the sources
/// listed must be read the same way).
fn without_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in book_answer::text::prose_lines(text) {
        // Inline code: text between matching runs of backticks.
        let mut rest = line;
        while let Some(open) = rest.find('`') {
            out.push_str(&rest[..open]);
            let run = rest[open..].chars().take_while(|&c| c == '`').count();
            let after = &rest[open + run..];
            match after.find(&"`".repeat(run)) {
                Some(close) => rest = &after[close + run..],
                None => {
                    out.push_str(&rest[open..open + run]);
                    rest = after;
                }
            }
        }
        out.push_str(rest);
        out.push('\n');
    }
    out
}

/// The valid source numbers cited in `text` outside its code, ascending.
pub fn cited(text: &str, n_sources: usize) -> Vec<usize> {
    let mut out: Vec<usize> = split(&without_code(text), n_sources)
        .into_iter()
        .filter_map(|p| match p {
            Piece::Cite(v) => Some(v),
            Piece::Text(_) => None,
        })
        .flatten()
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Share of the answer's sentences-bearing paragraphs that carry at least one valid citation (0–1).
pub fn coverage(text: &str, n_sources: usize) -> f32 {
    let paras: Vec<&str> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| p.chars().filter(|c| c.is_alphabetic()).count() >= 20 && !p.starts_with("```"))
        .collect();
    if paras.is_empty() {
        return 0.0;
    }
    let with = paras
        .iter()
        .filter(|p| !cited(p, n_sources).is_empty())
        .count();
    with as f32 / paras.len() as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Piece {
        Piece::Text(s.into())
    }

    #[test]
    fn single_multi_and_adjacent_groups() {
        assert_eq!(
            split("A [1].", 3),
            vec![t("A "), Piece::Cite(vec![1]), t(".")]
        );
        assert_eq!(split("B [1, 2]", 3), vec![t("B "), Piece::Cite(vec![1, 2])]);
        assert_eq!(
            split("C [1][3] d", 3),
            vec![t("C "), Piece::Cite(vec![1, 3]), t(" d")]
        );
        assert_eq!(split("D [2,2]", 3), vec![t("D "), Piece::Cite(vec![2])]);
    }

    #[test]
    fn bad_numbers_are_removed() {
        assert_eq!(split("A [7].", 3), vec![t("A.")]);
        assert_eq!(split("A [0] b", 3), vec![t("A b")]);
        assert_eq!(split("A [1, 9]", 3), vec![t("A "), Piece::Cite(vec![1])]);
        assert_eq!(split("A [4][2]", 3), vec![t("A "), Piece::Cite(vec![2])]);
        assert_eq!(cited("x [5] y [2] z [1][2]", 3), vec![1, 2]);
        assert_eq!(
            split("[99999999999999999999999]", 3),
            vec![t("[99999999999999999999999]")]
        );
    }

    #[test]
    fn non_citations_untouched() {
        for s in [
            "see [the docs](http://x)",
            "[1](http://x)",
            "[1]: http://x",
            "Text.\n  [2]: http://x",
            "array[i]",
            "[a, b]",
            "[]",
            "[ ]",
            "x [1,]",
        ] {
            assert_eq!(split(s, 3), vec![t(s)], "{s}");
        }
    }

    #[test]
    fn a_citation_before_a_colon_mid_line_cites() {
        // An excerpt answer introduces a quoted block with "From [3]:": source 3 is cited (and
        // listed under the answer), unlike a reference definition opening its line.
        assert_eq!(cited("From [3]:\n\n```python\nx = 1\n```", 3), vec![3]);
        assert_eq!(cited("[3]: http://x", 3), Vec::<usize>::new());
    }

    #[test]
    fn code_cites_nothing() {
        let answer = "“Read the joint state” [1]\n\nFrom [1]:\n\n```python\nq = msg.position[2]\n```\n\nUse `data[3]` for the last one.";
        assert_eq!(cited(answer, 3), vec![1]);
        // An unclosed backtick is text.
        assert_eq!(cited("a ` b [2]", 3), vec![2]);
    }

    #[test]
    fn coverage_counts_cited_paragraphs() {
        let a =
            "Nodes are processes that compute things [1].\n\nTopics are named buses for messages.";
        assert!((coverage(a, 2) - 0.5).abs() < 1e-6);
        assert_eq!(coverage("", 2), 0.0);
        assert_eq!(
            coverage("Nodes are processes that compute things [9].", 2),
            0.0
        );
    }
}

//! Markdown as a DOM-free tree, the contract between the Markdown module (`markdown-wasm`, which
//! parses model output and book snippets with pulldown-cmark) and the widget (which draws the tree
//! with text nodes and a fixed set of elements, so nothing the model writes can become markup,
//! script, an event handler or a dangerous URL).
//!
//! The parser is behind the `parse` feature: the widget's own wasm links only the types, which keeps
//! pulldown-cmark (about 67 kB gzipped with its entity table) out of the module every reader downloads.
#![warn(missing_docs)]

#[cfg(feature = "parse")]
mod parse;
#[cfg(feature = "parse")]
pub use parse::parse;
pub mod wire;

/// One node of rendered Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Plain text; the widget splits it around citation markers (never inside a link).
    Text(String),
    /// Inline code.
    Code(String),
    /// A citation group: 1-based source numbers.
    Cite(Vec<usize>),
    /// A soft line break inside a paragraph; rendered as a space.
    SoftBreak,
    /// A hard line break (two trailing spaces or a backslash).
    HardBreak,
    /// A thematic break (`---`).
    Rule,
    /// A fenced or indented code block (gets a copy button): the first word of the fence's info
    /// string (e.g. `rust`; `None` for indented blocks or a bare fence), and the block's text
    /// verbatim, never parsed for citations or Markdown.
    CodeBlock(Option<String>, String),
    /// A container element from the fixed set in [`Kind`], with its children in document order.
    Element(Kind, Vec<Node>),
}

/// The elements the renderer may create.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A paragraph.
    Paragraph,
    /// A heading, with its level 1–6.
    Heading(u8),
    /// A block quote.
    BlockQuote,
    /// A list: ordered when it has the number of its first item, bulleted otherwise.
    List(Option<u64>),
    /// One list item.
    Item,
    /// Emphasis (`*x*`).
    Emphasis,
    /// Strong emphasis (`**x**`).
    Strong,
    /// Strikethrough (`~~x~~`).
    Strikethrough,
    /// A safe link (the URL as returned by [`safe_href`]); unsafe ones are rendered as their text only.
    Link(String),
    /// A GFM table.
    Table,
    /// A table row; the header row is a row too.
    TableRow,
    /// One table cell.
    TableCell,
}

/// Returns the URL if it is safe to make clickable: `http(s)://…`, or a same-site relative URL
/// (`/path`, `#anchor`, `./x`, `../x`, `x/y`). Everything else (`javascript:`, `data:`, `//host`…) is `None`.
pub fn safe_href(raw: &str) -> Option<String> {
    // Browsers drop ASCII tabs/newlines inside URLs and trim controls and spaces at the ends.
    let cleaned: String = raw
        .chars()
        .filter(|c| !matches!(c, '\t' | '\n' | '\r'))
        .collect();
    let cleaned = cleaned
        .trim_matches(|c: char| c.is_ascii_control() || c == ' ')
        .to_string();
    if cleaned.is_empty() || cleaned.chars().any(|c| c.is_control()) {
        return None;
    }
    let lower = cleaned.to_ascii_lowercase();
    if lower.starts_with("//") || lower.starts_with("\\") || lower.starts_with("/\\") {
        return None;
    }
    let scheme_end = lower.find(':');
    let path_start = lower.find(['/', '?', '#']);
    let has_scheme = match (scheme_end, path_start) {
        (Some(c), Some(p)) => c < p,
        (Some(_), None) => true,
        _ => false,
    };
    if has_scheme {
        if (lower.starts_with("https://") || lower.starts_with("http://"))
            && cleaned.len() > lower.find("//")? + 2
        {
            return Some(cleaned);
        }
        return None;
    }
    Some(cleaned)
}

/// All text of a tree, for copying and for tests.
pub fn plain_text(nodes: &[Node]) -> String {
    let mut s = String::new();
    for n in nodes {
        match n {
            Node::Text(t) | Node::Code(t) => s.push_str(t),
            Node::CodeBlock(_, code) => s.push_str(code),
            Node::Cite(v) => {
                s.push('[');
                s.push_str(
                    &v.iter()
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                );
                s.push(']');
            }
            Node::SoftBreak | Node::HardBreak => s.push(' '),
            Node::Rule => {}
            Node::Element(_, children) => {
                s.push_str(&plain_text(children));
                if matches!(
                    n,
                    Node::Element(Kind::Paragraph | Kind::Heading(_) | Kind::Item, _)
                ) {
                    s.push('\n');
                }
            }
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn safe_hrefs() {
        for ok in [
            "https://ros.org/x",
            "http://a.b",
            "/docs/intro#x",
            "#anchor",
            "./x",
            "../y",
            "intro",
            "a/b?c=d:e",
        ] {
            assert!(safe_href(ok).is_some(), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            "java\nscript:alert(1)",
            " javascript:alert(1)",
            "\u{1}javascript:alert(1)",
            "data:text/html,<script>",
            "vbscript:x",
            "//evil.example",
            "/\\evil.example",
            "\\\\evil",
            "https://",
            "mailto:a@b",
            "",
        ] {
            assert_eq!(safe_href(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn plain_text_of_a_tree() {
        let tree = vec![Node::Element(
            Kind::Paragraph,
            vec![
                Node::Text("a ".into()),
                Node::Cite(vec![1, 2]),
                Node::SoftBreak,
            ],
        )];
        assert_eq!(plain_text(&tree), "a [1, 2] \n");
    }
}

//! Markdown for the widget: model answers, excerpt answers and source snippets as a safe tree
//! ([`book_markdown::Node`]) with citation markers turned into `Cite` nodes.
//!
//! The parser (pulldown-cmark) lives in its own wasm module, `markdown-wasm`, which the widget
//! imports when the panel opens and [`install`]s here; until then, or if it failed to load, text is
//! shown unformatted (paragraphs of plain text, citations still linked).

use std::cell::RefCell;
use std::rc::Rc;

pub use book_markdown::{plain_text, safe_href, Kind, Node};

use crate::citations::{self, Piece};

/// A Markdown parser: the tree of `markdown`, or `None` when parsing failed (plain text is shown).
pub type Parser = Rc<dyn Fn(&str) -> Option<Vec<Node>>>;

thread_local! {
    static PARSER: RefCell<Option<Parser>> = const { RefCell::new(None) };
}

/// Makes `parser` the one [`render`] uses (the Markdown module once loaded; the tests install
/// `book_markdown::parse` directly).
pub fn install(parser: Parser) {
    PARSER.with(|p| *p.borrow_mut() = Some(parser));
}

/// Whether a parser is installed (else [`render`] gives plain paragraphs).
pub fn has_parser() -> bool {
    PARSER.with(|p| p.borrow().is_some())
}

/// Markdown as a safe tree; `n_sources` bounds the valid citation numbers (0 = no citations).
pub fn render(markdown: &str, n_sources: usize) -> Vec<Node> {
    let parser = PARSER.with(|p| p.borrow().clone());
    let tree = parser
        .and_then(|parse| parse(markdown))
        .unwrap_or_else(|| plain(markdown));
    cite(tree, n_sources)
}

/// The text without a parser: one paragraph per blank-line-separated block, shown as typed.
fn plain(markdown: &str) -> Vec<Node> {
    markdown
        .split("\n\n")
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .map(|b| Node::Element(Kind::Paragraph, vec![Node::Text(b.to_string())]))
        .collect()
}

/// Splits every text node outside a link around its citation markers (a link's text stays text).
fn cite(nodes: Vec<Node>, n_sources: usize) -> Vec<Node> {
    let mut out = Vec::with_capacity(nodes.len());
    for n in nodes {
        match n {
            Node::Text(t) => out.extend(citations::split(&t, n_sources).into_iter().map(
                |p| match p {
                    Piece::Text(s) => Node::Text(s),
                    Piece::Cite(v) => Node::Cite(v),
                },
            )),
            Node::Element(kind, children) => {
                let children = if matches!(kind, Kind::Link(_)) {
                    children
                } else {
                    cite(children, n_sources)
                };
                out.push(Node::Element(kind, children));
            }
            other => out.push(other),
        }
    }
    out
}

/// A snippet whose table was flattened into one line upstream (`A | B C | D …`) cannot be shown as a
/// table: keep the text before it (up to its last sentence end) and mark the rest as left out, so
/// readers never see pipe soup. Real Markdown tables (rows on their own lines) are kept.
pub fn drop_flat_tables(text: &str) -> String {
    let is_row = |l: &str| l.trim_start().starts_with('|') || l.trim_end().ends_with('|');
    let flat = text
        .lines()
        .any(|l| l.matches(" | ").count() >= 2 && !is_row(l));
    if !flat {
        return text.to_string();
    }
    let Some(pipe) = text.find(" | ") else {
        return text.to_string();
    };
    let head = &text[..pipe];
    let cut = head
        .rfind(['.', ':', '?', '!', '\n'])
        .map(|i| &head[..=i])
        .unwrap_or("");
    let cut = cut.trim();
    if cut.is_empty() {
        "(A table: open the section to read it.)".to_string()
    } else {
        format!("{cut} (A table follows in the section.)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flattened_tables_are_left_out() {
        let soup = "Practical experience suggests: Training recipe | Typical outcome Real only | Good Synthetic | Brittle";
        assert_eq!(
            drop_flat_tables(soup),
            "Practical experience suggests: (A table follows in the section.)"
        );
        assert_eq!(
            drop_flat_tables(
                "Question | Topic | Service | Action Continuous data stream? | Yes | No"
            ),
            "(A table: open the section to read it.)"
        );
        let real = "Intro.\n\n| a | b |\n|---|---|\n| 1 | 2 |";
        assert_eq!(drop_flat_tables(real), real);
        assert_eq!(drop_flat_tables("a | b"), "a | b");
    }

    /// The parser the Markdown module runs, linked directly (the tests' thread has no module).
    fn with_parser() {
        install(Rc::new(|md: &str| Some(book_markdown::parse(md))));
    }

    #[test]
    fn citations_become_nodes_and_bad_ones_vanish() {
        with_parser();
        let tree = render("Nodes are processes [1][2]. Topics too [7].", 2);
        let Node::Element(Kind::Paragraph, children) = &tree[0] else {
            panic!("{tree:?}")
        };
        assert_eq!(
            children,
            &vec![
                Node::Text("Nodes are processes ".into()),
                Node::Cite(vec![1, 2]),
                Node::Text(". Topics too.".into())
            ]
        );
    }

    #[test]
    fn citations_not_parsed_in_code_or_links() {
        with_parser();
        let tree = render("`a[1]`\n\n```rust\nlet x = v[1];\n```", 3);
        assert_eq!(plain_text(&tree), "a[1]\nlet x = v[1];\n");
        assert!(matches!(&tree[1], Node::CodeBlock(Some(l), _) if l == "rust"));
        let tree = render("[see [1]](/docs/a) and [2]", 3);
        assert_eq!(plain_text(&tree), "see [1] and [2]\n");
        let Node::Element(_, children) = &tree[0] else {
            panic!("{tree:?}")
        };
        assert_eq!(children.last(), Some(&Node::Cite(vec![2])));
    }

    #[test]
    fn without_the_module_text_is_shown_plain_with_citations() {
        PARSER.with(|p| *p.borrow_mut() = None);
        assert!(!has_parser());
        let tree = render("**Excerpts** here [1].\n\n> “A quote.” [2]", 2);
        assert_eq!(
            plain_text(&tree),
            "**Excerpts** here [1].\n> “A quote.” [2]\n"
        );
        assert_eq!(tree.len(), 2);
        let Node::Element(_, children) = &tree[1] else {
            panic!("{tree:?}")
        };
        assert_eq!(children[1], Node::Cite(vec![2]));
    }
}

//! Model output as a DOM-free tree: Markdown parsed with pulldown-cmark, raw HTML dropped, only
//! http(s) and same-site relative links kept, citation markers turned into `Cite` nodes.
//!
//! The UI builds DOM nodes from this tree with text nodes and a fixed set of elements, so nothing the
//! model writes can become markup, script, an event handler or a dangerous URL.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::citations::{self, Piece};

/// One node of rendered Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Node {
    /// Plain text, already split around citation markers.
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
    /// A fenced or indented code block (gets a copy button).
    CodeBlock {
        /// The first word of the fence's info string (e.g. `rust`); `None` for indented blocks or a bare fence.
        lang: Option<String>,
        /// The block's text verbatim, never parsed for citations or Markdown.
        code: String,
    },
    /// A container element from the fixed set in [`Kind`], with its parsed children.
    Element {
        /// Which element to create.
        kind: Kind,
        /// The nodes inside it, in document order.
        children: Vec<Node>,
    },
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
    /// A list: ordered when `start` is set, bulleted otherwise.
    List {
        /// The number of the first item of an ordered list; `None` for a bulleted list.
        start: Option<u64>,
    },
    /// One list item.
    Item,
    /// Emphasis (`*x*`).
    Emphasis,
    /// Strong emphasis (`**x**`).
    Strong,
    /// Strikethrough (`~~x~~`).
    Strikethrough,
    /// A safe link; unsafe ones are rendered as their text only.
    Link {
        /// The URL as returned by [`safe_href`].
        href: String,
    },
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

fn heading_level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Parses Markdown into a safe tree; `n_sources` bounds the valid citation numbers (0 = no citations).
pub fn render(markdown: &str, n_sources: usize) -> Vec<Node> {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    // Stack of open elements; `None` marks a container we flatten (e.g. an unsafe link or an image).
    let mut stack: Vec<Frame> = vec![(None, Vec::new())];
    let mut code_block: Option<(Option<String>, String)> = None;
    let mut text = String::new();

    fn flush(text: &mut String, stack: &mut [Frame], n_sources: usize, in_link: bool) {
        if text.is_empty() {
            return;
        }
        let t = std::mem::take(text);
        let Some(top) = stack.last_mut() else { return };
        if in_link {
            top.1.push(Node::Text(t));
            return;
        }
        for p in citations::split(&t, n_sources) {
            top.1.push(match p {
                Piece::Text(s) => Node::Text(s),
                Piece::Cite(v) => Node::Cite(v),
            });
        }
    }
    let in_link = |stack: &[Frame]| {
        stack
            .iter()
            .any(|(k, _)| matches!(k, Some(Kind::Link { .. })))
    };

    for ev in Parser::new_ext(markdown, opts) {
        if let Some((_, code)) = code_block.as_mut() {
            match ev {
                Event::Text(t) => code.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, code) = code_block.take().unwrap_or_default();
                    if let Some(top) = stack.last_mut() {
                        top.1.push(Node::CodeBlock { lang, code });
                    }
                }
                _ => {}
            }
            continue;
        }
        match ev {
            Event::Text(t) => text.push_str(&t),
            // Raw HTML never reaches the DOM, not even as markup-looking text.
            Event::Html(_) | Event::InlineHtml(_) => {}
            other => {
                let il = in_link(&stack);
                flush(&mut text, &mut stack, n_sources, il);
                match other {
                    Event::Code(c) => push(&mut stack, Node::Code(c.to_string())),
                    Event::SoftBreak => push(&mut stack, Node::SoftBreak),
                    Event::HardBreak => push(&mut stack, Node::HardBreak),
                    Event::Rule => push(&mut stack, Node::Rule),
                    Event::Start(Tag::CodeBlock(kind)) => {
                        let lang = match kind {
                            CodeBlockKind::Fenced(l) => {
                                let l = l.split_whitespace().next().unwrap_or("").to_string();
                                (!l.is_empty()).then_some(l)
                            }
                            CodeBlockKind::Indented => None,
                        };
                        code_block = Some((lang, String::new()));
                    }
                    Event::Start(tag) => {
                        let kind = match tag {
                            Tag::Paragraph => Some(Kind::Paragraph),
                            Tag::Heading { level, .. } => Some(Kind::Heading(heading_level(level))),
                            Tag::BlockQuote(_) => Some(Kind::BlockQuote),
                            Tag::List(start) => Some(Kind::List { start }),
                            Tag::Item => Some(Kind::Item),
                            Tag::Emphasis => Some(Kind::Emphasis),
                            Tag::Strong => Some(Kind::Strong),
                            Tag::Strikethrough => Some(Kind::Strikethrough),
                            Tag::Link { dest_url, .. } => {
                                safe_href(&dest_url).map(|href| Kind::Link { href })
                            }
                            Tag::Table(_) => Some(Kind::Table),
                            Tag::TableHead | Tag::TableRow => Some(Kind::TableRow),
                            Tag::TableCell => Some(Kind::TableCell),
                            // Images are never loaded: their alt text is shown inline.
                            _ => None,
                        };
                        stack.push((kind, Vec::new()));
                    }
                    Event::End(_) if stack.len() > 1 => close_top(&mut stack),
                    _ => {}
                }
            }
        }
    }
    // A streamed answer may stop mid-block: close whatever is open.
    if let Some((lang, code)) = code_block.take() {
        push(&mut stack, Node::CodeBlock { lang, code });
    }
    let il = in_link(&stack);
    flush(&mut text, &mut stack, n_sources, il);
    while stack.len() > 1 {
        close_top(&mut stack);
    }
    stack.pop().map(|(_, c)| c).unwrap_or_default()
}

/// Closes the innermost open element into its parent (a flattened container gives its children).
fn close_top(stack: &mut Vec<Frame>) {
    if let Some((kind, children)) = stack.pop() {
        match kind {
            Some(kind) => push(stack, Node::Element { kind, children }),
            None => {
                if let Some(top) = stack.last_mut() {
                    top.1.extend(children);
                }
            }
        }
    }
}

/// An open element: its kind (`None` = flattened) and children so far.
type Frame = (Option<Kind>, Vec<Node>);

fn push(stack: &mut [Frame], node: Node) {
    if let Some(top) = stack.last_mut() {
        top.1.push(node);
    }
}

/// All text of a tree, for copying and for tests.
pub fn plain_text(nodes: &[Node]) -> String {
    let mut s = String::new();
    for n in nodes {
        match n {
            Node::Text(t) | Node::Code(t) => s.push_str(t),
            Node::CodeBlock { code, .. } => s.push_str(code),
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
            Node::Element { children, .. } => {
                s.push_str(&plain_text(children));
                if matches!(
                    n,
                    Node::Element {
                        kind: Kind::Paragraph | Kind::Heading(_) | Kind::Item,
                        ..
                    }
                ) {
                    s.push('\n');
                }
            }
        }
    }
    s
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
    use super::*;

    fn links(nodes: &[Node], out: &mut Vec<String>) {
        for n in nodes {
            if let Node::Element { kind, children } = n {
                if let Kind::Link { href } = kind {
                    out.push(href.clone());
                }
                links(children, out);
            }
        }
    }

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
    fn raw_html_is_dropped() {
        let md = "Hello <img src=x onerror=alert(1)> world\n\n<script>alert(1)</script>\n\n<div onclick=x>hi</div>";
        let tree = render(md, 0);
        let text = plain_text(&tree);
        assert!(!text.contains("<"), "{text}");
        assert!(!text.contains("alert"), "{text}");
        assert!(text.contains("Hello") && text.contains("world"));
    }

    #[test]
    fn unsafe_links_lose_their_href_but_keep_text() {
        let md = "[click](javascript:alert(1)) and [ok](/docs/a#b) and <javascript:alert(2)> and ![img](https://x/y.png \"t\")";
        let tree = render(md, 0);
        let mut hrefs = Vec::new();
        links(&tree, &mut hrefs);
        assert_eq!(hrefs, ["/docs/a#b"]);
        let text = plain_text(&tree);
        assert!(text.contains("click") && text.contains("img"));
    }

    #[test]
    fn citations_become_nodes_and_bad_ones_vanish() {
        let tree = render("Nodes are processes [1][2]. Topics too [7].", 2);
        let Node::Element {
            kind: Kind::Paragraph,
            children,
        } = &tree[0]
        else {
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
    fn citations_not_parsed_in_code() {
        let tree = render("`a[1]`\n\n```rust\nlet x = v[1];\n```", 3);
        assert_eq!(plain_text(&tree), "a[1]\nlet x = v[1];\n");
        assert!(matches!(&tree[1], Node::CodeBlock { lang: Some(l), .. } if l == "rust"));
    }

    #[test]
    fn unfinished_stream_is_closed() {
        let tree = render("Some **bold\n\n```py\nprint(1)", 0);
        assert!(plain_text(&tree).contains("print(1)"));
        let tree = render("* item [1", 1);
        assert!(plain_text(&tree).contains("item [1"));
    }

    #[test]
    fn lists_headings_tables() {
        let tree = render(
            "## Title\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |",
            0,
        );
        assert!(matches!(
            &tree[0],
            Node::Element {
                kind: Kind::Heading(2),
                ..
            }
        ));
        assert!(matches!(
            &tree[1],
            Node::Element {
                kind: Kind::List { start: Some(1) },
                ..
            }
        ));
        assert!(matches!(
            &tree[2],
            Node::Element {
                kind: Kind::Table,
                ..
            }
        ));
    }
}

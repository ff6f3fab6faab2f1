//! pulldown-cmark events to the safe tree: raw HTML dropped, only [`safe_href`] links kept,
//! images flattened to their alt text, unfinished blocks of a streamed answer closed.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

use crate::{safe_href, Kind, Node};

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

/// Parses Markdown (GFM tables and strikethrough) into a safe tree.
pub fn parse(markdown: &str) -> Vec<Node> {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    // Stack of open elements; `None` marks a container we flatten (e.g. an unsafe link or an image).
    let mut stack: Vec<Frame> = vec![(None, Vec::new())];
    let mut code_block: Option<(Option<String>, String)> = None;
    let mut text = String::new();

    // Consecutive text events become one `Text` node (the widget finds citation markers in it).
    fn flush(text: &mut String, stack: &mut [Frame]) {
        if text.is_empty() {
            return;
        }
        push(stack, Node::Text(std::mem::take(text)));
    }

    for ev in Parser::new_ext(markdown, opts) {
        if let Some((_, code)) = code_block.as_mut() {
            match ev {
                Event::Text(t) => code.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, code) = code_block.take().unwrap_or_default();
                    if let Some(top) = stack.last_mut() {
                        top.1.push(Node::CodeBlock(lang, code));
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
                flush(&mut text, &mut stack);
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
                            Tag::List(start) => Some(Kind::List(start)),
                            Tag::Item => Some(Kind::Item),
                            Tag::Emphasis => Some(Kind::Emphasis),
                            Tag::Strong => Some(Kind::Strong),
                            Tag::Strikethrough => Some(Kind::Strikethrough),
                            Tag::Link { dest_url, .. } => safe_href(&dest_url).map(Kind::Link),
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
        push(&mut stack, Node::CodeBlock(lang, code));
    }
    flush(&mut text, &mut stack);
    while stack.len() > 1 {
        close_top(&mut stack);
    }
    stack.pop().map(|(_, c)| c).unwrap_or_default()
}

/// Closes the innermost open element into its parent (a flattened container gives its children).
fn close_top(stack: &mut Vec<Frame>) {
    if let Some((kind, children)) = stack.pop() {
        match kind {
            Some(kind) => push(stack, Node::Element(kind, children)),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plain_text;

    fn links(nodes: &[Node], out: &mut Vec<String>) {
        for n in nodes {
            if let Node::Element(kind, children) = n {
                if let Kind::Link(href) = kind {
                    out.push(href.clone());
                }
                links(children, out);
            }
        }
    }

    #[test]
    fn raw_html_is_dropped() {
        let md = "Hello <img src=x onerror=alert(1)> world\n\n<script>alert(1)</script>\n\n<div onclick=x>hi</div>";
        let text = plain_text(&parse(md));
        assert!(!text.contains("<"), "{text}");
        assert!(!text.contains("alert"), "{text}");
        assert!(text.contains("Hello") && text.contains("world"));
    }

    #[test]
    fn unsafe_links_lose_their_href_but_keep_text() {
        let md = "[click](javascript:alert(1)) and [ok](/docs/a#b) and <javascript:alert(2)> and ![img](https://x/y.png \"t\")";
        let tree = parse(md);
        let mut hrefs = Vec::new();
        links(&tree, &mut hrefs);
        assert_eq!(hrefs, ["/docs/a#b"]);
        let text = plain_text(&tree);
        assert!(text.contains("click") && text.contains("img"));
    }

    #[test]
    fn text_runs_are_one_node() {
        // pulldown-cmark splits `[1]` into several text events; the tree keeps one run.
        let tree = parse("Nodes are processes [1][2]. Topics too [7].");
        assert_eq!(
            tree,
            vec![Node::Element(
                Kind::Paragraph,
                vec![Node::Text(
                    "Nodes are processes [1][2]. Topics too [7].".into()
                )],
            )]
        );
    }

    #[test]
    fn unfinished_stream_is_closed() {
        assert!(plain_text(&parse("Some **bold\n\n```py\nprint(1)")).contains("print(1)"));
        assert!(plain_text(&parse("* item [1")).contains("item [1"));
    }

    #[test]
    fn lists_headings_tables_code() {
        let tree = parse("## Title\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```rust x\nlet a = v[1];\n```");
        assert!(matches!(&tree[0], Node::Element(Kind::Heading(2), _)));
        assert!(matches!(&tree[1], Node::Element(Kind::List(Some(1)), _)));
        assert!(matches!(&tree[2], Node::Element(Kind::Table, _)));
        assert_eq!(
            tree[3],
            Node::CodeBlock(Some("rust".into()), "let a = v[1];\n".into())
        );
    }
}

//! The tree as it crosses from the Markdown module to the widget: a pre-order list of numbers and a
//! list of strings (a `Uint32Array` and a JS array of strings on the wire).
//!
//! Hand-written rather than serde: decoding a nested enum through serde-wasm-bindgen cost the widget
//! about 9 KB of wasm (2.5 kB gzipped) of its 300 KB budget; this decoder is a few hundred bytes.
//! Both sides call these two functions, so the format is defined once, here.

use crate::{Kind, Node};

/// The flat form of a tree: `ops` in pre-order, `texts` in the order the ops use them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Wire {
    /// Node tags with their numbers (counts, levels, citation numbers).
    pub ops: Vec<u32>,
    /// The nodes' strings (text, code, language, link URL).
    pub texts: Vec<String>,
}

// Node tags.
const TEXT: u32 = 0;
const CODE: u32 = 1;
const CITE: u32 = 2;
const SOFT_BREAK: u32 = 3;
const HARD_BREAK: u32 = 4;
const RULE: u32 = 5;
const CODE_BLOCK: u32 = 6;
const CODE_BLOCK_LANG: u32 = 7;
const ELEMENT: u32 = 8;

// Element kinds (after ELEMENT; then the kind's number or string, then the child count).
const PARAGRAPH: u32 = 0;
const HEADING: u32 = 1;
const BLOCK_QUOTE: u32 = 2;
const BULLET_LIST: u32 = 3;
const ORDERED_LIST: u32 = 4;
const ITEM: u32 = 5;
const EMPHASIS: u32 = 6;
const STRONG: u32 = 7;
const STRIKETHROUGH: u32 = 8;
const LINK: u32 = 9;
const TABLE: u32 = 10;
const TABLE_ROW: u32 = 11;
const TABLE_CELL: u32 = 12;

/// Flattens `nodes` (the Markdown module's side).
pub fn encode(nodes: &[Node]) -> Wire {
    let mut w = Wire::default();
    w.ops.push(count(nodes.len()));
    for n in nodes {
        encode_node(n, &mut w);
    }
    w
}

fn count(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

fn encode_node(n: &Node, w: &mut Wire) {
    match n {
        Node::Text(t) => {
            w.ops.push(TEXT);
            w.texts.push(t.clone());
        }
        Node::Code(t) => {
            w.ops.push(CODE);
            w.texts.push(t.clone());
        }
        Node::Cite(v) => {
            w.ops.push(CITE);
            w.ops.push(count(v.len()));
            w.ops.extend(v.iter().map(|&n| count(n)));
        }
        Node::SoftBreak => w.ops.push(SOFT_BREAK),
        Node::HardBreak => w.ops.push(HARD_BREAK),
        Node::Rule => w.ops.push(RULE),
        Node::CodeBlock(lang, code) => {
            if let Some(l) = lang {
                w.ops.push(CODE_BLOCK_LANG);
                w.texts.push(l.clone());
            } else {
                w.ops.push(CODE_BLOCK);
            }
            w.texts.push(code.clone());
        }
        Node::Element(kind, children) => {
            w.ops.push(ELEMENT);
            match kind {
                Kind::Paragraph => w.ops.push(PARAGRAPH),
                Kind::Heading(l) => w.ops.extend([HEADING, u32::from(*l)]),
                Kind::BlockQuote => w.ops.push(BLOCK_QUOTE),
                Kind::List(None) => w.ops.push(BULLET_LIST),
                Kind::List(Some(s)) => w
                    .ops
                    .extend([ORDERED_LIST, u32::try_from(*s).unwrap_or(u32::MAX)]),
                Kind::Item => w.ops.push(ITEM),
                Kind::Emphasis => w.ops.push(EMPHASIS),
                Kind::Strong => w.ops.push(STRONG),
                Kind::Strikethrough => w.ops.push(STRIKETHROUGH),
                Kind::Link(href) => {
                    w.ops.push(LINK);
                    w.texts.push(href.clone());
                }
                Kind::Table => w.ops.push(TABLE),
                Kind::TableRow => w.ops.push(TABLE_ROW),
                Kind::TableCell => w.ops.push(TABLE_CELL),
            }
            w.ops.push(count(children.len()));
            for c in children {
                encode_node(c, w);
            }
        }
    }
}

/// Rebuilds the tree (the widget's side); `None` if `wire` is not a whole, valid encoding.
pub fn decode(wire: &Wire) -> Option<Vec<Node>> {
    let mut r = Reader {
        ops: wire.ops.iter(),
        texts: wire.texts.iter(),
    };
    let n = r.op()?;
    let nodes = r.nodes(n, 0)?;
    // Trailing data means the two sides disagree on the format.
    (r.ops.next().is_none() && r.texts.next().is_none()).then_some(nodes)
}

/// Deepest nesting decoded: a malformed list cannot recurse without bound.
const MAX_DEPTH: usize = 256;

struct Reader<'a> {
    ops: std::slice::Iter<'a, u32>,
    texts: std::slice::Iter<'a, String>,
}

impl Reader<'_> {
    fn op(&mut self) -> Option<u32> {
        self.ops.next().copied()
    }

    fn text(&mut self) -> Option<String> {
        self.texts.next().cloned()
    }

    fn nodes(&mut self, n: u32, depth: usize) -> Option<Vec<Node>> {
        if depth > MAX_DEPTH || n as usize > self.ops.len() {
            return None;
        }
        (0..n).map(|_| self.node(depth)).collect()
    }

    fn node(&mut self, depth: usize) -> Option<Node> {
        Some(match self.op()? {
            TEXT => Node::Text(self.text()?),
            CODE => Node::Code(self.text()?),
            CITE => {
                let n = self.op()?;
                if n as usize > self.ops.len() {
                    return None;
                }
                Node::Cite(
                    (0..n)
                        .map(|_| self.op().map(|v| v as usize))
                        .collect::<Option<_>>()?,
                )
            }
            SOFT_BREAK => Node::SoftBreak,
            HARD_BREAK => Node::HardBreak,
            RULE => Node::Rule,
            CODE_BLOCK => Node::CodeBlock(None, self.text()?),
            CODE_BLOCK_LANG => {
                let lang = self.text()?;
                Node::CodeBlock(Some(lang), self.text()?)
            }
            ELEMENT => {
                let kind = match self.op()? {
                    PARAGRAPH => Kind::Paragraph,
                    HEADING => Kind::Heading(u8::try_from(self.op()?).ok()?),
                    BLOCK_QUOTE => Kind::BlockQuote,
                    BULLET_LIST => Kind::List(None),
                    ORDERED_LIST => Kind::List(Some(u64::from(self.op()?))),
                    ITEM => Kind::Item,
                    EMPHASIS => Kind::Emphasis,
                    STRONG => Kind::Strong,
                    STRIKETHROUGH => Kind::Strikethrough,
                    LINK => Kind::Link(self.text()?),
                    TABLE => Kind::Table,
                    TABLE_ROW => Kind::TableRow,
                    TABLE_CELL => Kind::TableCell,
                    _ => return None,
                };
                let n = self.op()?;
                Node::Element(kind, self.nodes(n, depth + 1)?)
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Vec<Node> {
        vec![
            Node::Element(Kind::Heading(2), vec![Node::Text("Title".into())]),
            Node::Element(
                Kind::Paragraph,
                vec![
                    Node::Text("a ".into()),
                    Node::Code("x".into()),
                    Node::Cite(vec![1, 3]),
                    Node::SoftBreak,
                    Node::HardBreak,
                    Node::Element(
                        Kind::Link("/docs/a#b".into()),
                        vec![Node::Element(Kind::Strong, vec![Node::Text("l".into())])],
                    ),
                ],
            ),
            Node::Rule,
            Node::CodeBlock(Some("rust".into()), "let a = 1;\n".into()),
            Node::CodeBlock(None, "plain\n".into()),
            Node::Element(
                Kind::List(Some(3)),
                vec![Node::Element(Kind::Item, vec![Node::Text("i".into())])],
            ),
            Node::Element(Kind::List(None), vec![]),
            Node::Element(
                Kind::Table,
                vec![Node::Element(
                    Kind::TableRow,
                    vec![Node::Element(Kind::TableCell, vec![Node::Text("c".into())])],
                )],
            ),
            Node::Element(
                Kind::BlockQuote,
                vec![
                    Node::Element(Kind::Emphasis, vec![]),
                    Node::Element(Kind::Strikethrough, vec![]),
                ],
            ),
        ]
    }

    #[test]
    fn round_trips() {
        let tree = sample();
        assert_eq!(decode(&encode(&tree)), Some(tree));
        assert_eq!(decode(&encode(&[])), Some(vec![]));
    }

    #[test]
    fn malformed_wires_are_none() {
        let w = encode(&sample());
        // Cut anywhere, or with a string missing or extra, or an unknown tag: never a wrong tree.
        for cut in 0..w.ops.len() {
            let short = Wire {
                ops: w.ops[..cut].to_vec(),
                texts: w.texts.clone(),
            };
            assert_eq!(decode(&short), None, "cut at {cut}");
        }
        let mut fewer = w.clone();
        fewer.texts.pop();
        assert_eq!(decode(&fewer), None);
        let mut more = w.clone();
        more.texts.push("x".into());
        assert_eq!(decode(&more), None);
        assert_eq!(
            decode(&Wire {
                ops: vec![1, 99],
                texts: vec![]
            }),
            None
        );
        assert_eq!(
            decode(&Wire {
                ops: vec![u32::MAX],
                texts: vec![]
            }),
            None
        );
        // Nesting deeper than MAX_DEPTH is refused, not recursed into.
        let mut deep = vec![1];
        for _ in 0..=MAX_DEPTH + 1 {
            deep.extend([ELEMENT, ITEM, 1]);
        }
        deep.push(RULE);
        assert_eq!(
            decode(&Wire {
                ops: deep,
                texts: vec![]
            }),
            None
        );
    }
}

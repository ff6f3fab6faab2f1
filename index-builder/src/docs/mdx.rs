//! Parses a page body into a Markdown syntax tree (mdast) with the `markdown` crate (1.x):
//! MDX (JSX, ESM, `{expressions}`) for MDX pages, CommonMark for `.md` pages under
//! `format: 'detect'`; GFM tables, strikethrough, task lists and footnotes (remark-gfm, which
//! Docusaurus enables) and `$$` math blocks in both.
//!
//! Two Docusaurus steps have no counterpart in the crate and are done here by hand, on the
//! lines of the body, before the final parse. Both act only on lines that the crate's own tree
//! puts outside code (fenced code, inline code, math, ESM, expressions, HTML), so they never
//! touch an example:
//!
//! * ```` ```mdx-code-block ```` fences are unwrapped (Docusaurus `unwrapMdxCodeBlocks`, a text
//!   replacement before its MDX parse): their content is MDX, where the crate sees code.
//! * `:::tip Title` / `:::note[Title]` / `:::` admonition fences (Docusaurus' directive syntax,
//!   which the crate does not have and leaves as paragraph text) become a paragraph
//!   `Tip: Title` (or `Tip:`) between blank lines; the body stays.
//!
//! Three more small hand-written parts, each answering a question the crate leaves to its
//! caller or handles too slowly: whether a `{...}` expression is complete JavaScript
//! ([`js_is_complete`], brackets only; Docusaurus uses acorn), where to cut a long page into
//! pieces ([`pieces`]), and container nesting beyond any real page ([`cap_nesting`]).
//!
//! Fallback: the crate stops at the first construct MDX does not allow (an unclosed tag, a
//! stray `{`), and 1.0.0 panics on a few broken inputs. Such a page (or piece) is parsed
//! again in CommonMark mode, where nothing is an error: tags are HTML (the walker keeps the
//! text between them), braces and `import` lines are text. So no word is lost, and a warning
//! names the file and the line of the MDX error.

use markdown::mdast::Node;
use markdown::{Constructs, ParseOptions};

/// Which syntax the body is written in (Docusaurus `markdown.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Syntax {
    /// MDX (Docusaurus 3 default for `.md` and `.mdx`): JSX, ESM and `{expressions}` exist.
    #[default]
    Mdx,
    /// CommonMark (`.md` files under `format: 'detect'`): tags are HTML, braces are text.
    CommonMark,
}

/// A parsed page body: one tree per piece (see [`parse`]).
#[derive(Debug, Clone, PartialEq)]
pub struct Tree {
    /// The pieces of the page in order.
    pub parts: Vec<Part>,
    /// The syntax the page was parsed with: `CommonMark` also for an MDX page that failed.
    pub syntax: Syntax,
    /// Problems found, as (0-based line in the body, message).
    pub problems: Vec<(usize, String)>,
}

/// One piece of a page and its tree.
#[derive(Debug, Clone, PartialEq)]
pub struct Part {
    /// The mdast root.
    pub root: Node,
    /// The text the tree's positions point into (the piece after the two pre-passes).
    pub text: String,
}

/// Pages longer than this are parsed in pieces: the crate's parse time grows faster than
/// the page (markdown-rs issue #113; measured in release: 0.5 s for 250 KB, 9.7 s for
/// 1 MB of short sections; the same page read and chunked in 16 KB pieces: 0.44 s).
const PIECE_BYTES: usize = 16 * 1024;

/// Parse a page body (front matter already removed, LF line endings).
///
/// A page longer than [`PIECE_BYTES`] is cut before ATX headings at column 0 (outside
/// fenced code) into pieces of at least that size, parsed one by one. A JSX element open
/// across such a cut makes its pieces fall back to CommonMark (see the module comment).
pub fn parse(body: &str, syntax: Syntax) -> Tree {
    let mut tree = Tree {
        parts: Vec::new(),
        syntax,
        problems: Vec::new(),
    };
    for (first_line, piece) in pieces(body) {
        let (part, mode, problems) = parse_piece(piece, first_line, syntax);
        tree.parts.push(part);
        tree.problems.extend(problems);
        if mode != syntax {
            tree.syntax = mode;
        }
    }
    tree
}

/// The body cut into pieces, each with its first line (0-based).
fn pieces(body: &str) -> Vec<(usize, &str)> {
    if body.len() <= PIECE_BYTES {
        return vec![(0, body)];
    }
    let mut out = Vec::new();
    let (mut start, mut start_line) = (0, 0);
    let mut fence: Option<(u8, usize)> = None;
    let mut prev_blank = true;
    let mut at = 0;
    for (n, line) in body.split('\n').enumerate() {
        let indent = line.len() - line.trim_start_matches(' ').len();
        let rest = &line[indent..];
        let run_of = |ch: u8| rest.bytes().take_while(|&b| b == ch).count();
        match fence {
            Some((ch, len)) => {
                if indent < 4 && run_of(ch) >= len && rest[run_of(ch)..].trim().is_empty() {
                    fence = None;
                }
            }
            None => {
                let heading = line.starts_with('#')
                    && matches!(line.trim_start_matches('#').as_bytes().first(), Some(b' '));
                if heading && prev_blank && at - start >= PIECE_BYTES {
                    out.push((start_line, &body[start..at]));
                    (start, start_line) = (at, n);
                }
                for ch in [b'`', b'~'] {
                    if indent < 4 && run_of(ch) >= 3 {
                        fence = Some((ch, run_of(ch)));
                    }
                }
            }
        }
        prev_blank = line.trim().is_empty();
        at = (at + line.len() + 1).min(body.len());
    }
    out.push((start_line, &body[start..]));
    out
}

/// Parse one piece whose first line is body line `first_line`: the tree, the syntax used
/// and the problems found.
fn parse_piece(
    piece: &str,
    first_line: usize,
    syntax: Syntax,
) -> (Part, Syntax, Vec<(usize, String)>) {
    let mut lines = Lines::new(piece, first_line);
    let mut problems = Vec::new();
    let mut mdx_error: Option<(usize, String)> = None;
    let mut mode = syntax;
    // Unwrapping can reveal further (nested) mdx-code-block fences; a few rounds suffice for
    // real pages, and the bound keeps hostile ones linear.
    let mut root = to_tree(&lines, &mut mode, &mut mdx_error);
    for _ in 0..4 {
        if !lines.unwrap_mdx_code_blocks(&root) {
            break;
        }
        root = to_tree(&lines, &mut mode, &mut mdx_error);
    }
    if lines.admonitions(&root) {
        root = to_tree(&lines, &mut mode, &mut mdx_error);
    }
    let text = lines.joined();
    for line in unclosed_fences(&root, &text) {
        problems.push((
            lines.source_line(line),
            "code fence is never closed; the rest of the page is read as code".into(),
        ));
    }
    if let Some((line, reason)) = mdx_error {
        problems.push((
            line,
            format!("not valid MDX ({reason}); the page is read as CommonMark"),
        ));
    }
    (Part { root, text }, mode, problems)
}

fn options(syntax: Syntax) -> ParseOptions {
    let base = match syntax {
        Syntax::Mdx => Constructs::mdx(),
        Syntax::CommonMark => Constructs::default(),
    };
    ParseOptions {
        constructs: Constructs {
            gfm_footnote_definition: true,
            gfm_label_start_footnote: true,
            gfm_strikethrough: true,
            gfm_table: true,
            gfm_task_list_item: true,
            math_flow: true,
            ..base
        },
        // The crate reads an ESM block (up to a blank line, as MDX does) only when given a
        // JavaScript parser to check it; the block is dropped, so any text is accepted.
        mdx_esm_parse: Some(Box::new(|_| markdown::MdxSignal::Ok)),
        // Without a JavaScript parser the crate ends `{...}` at the first balanced `}`, also
        // inside a string (`{'a {#b}'}`); this check keeps the expression open until its
        // braces outside strings and comments balance, as Docusaurus' acorn does.
        mdx_expression_parse: Some(Box::new(|value, _| {
            if js_is_complete(value) {
                markdown::MdxSignal::Ok
            } else {
                markdown::MdxSignal::Eof(
                    "expected a closing brace".into(),
                    Box::new("book-chat".into()),
                    Box::new("unclosed-expression".into()),
                )
            }
        })),
        ..ParseOptions::default()
    }
}

/// Whether a JavaScript expression's source is complete as far as its brackets go: braces
/// balanced outside string and template literals and comments, none of these left open.
/// Hand-written: the crate leaves JavaScript to the caller (Docusaurus uses acorn), and this
/// is the only question we need answered.
fn js_is_complete(src: &str) -> bool {
    let b = src.as_bytes();
    // Open contexts: `{` a brace (also `${` in a template), `` ` `` a template literal.
    let mut stack: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if stack.last() == Some(&b'`') {
            match c {
                b'\\' => i += 1,
                b'`' => {
                    stack.pop();
                }
                b'$' if b.get(i + 1) == Some(&b'{') => {
                    stack.push(b'{');
                    i += 1;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        match c {
            b'\'' | b'"' => {
                i += 1;
                while i < b.len() && b[i] != c {
                    if b[i] == b'\n' {
                        return false;
                    }
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
                if i >= b.len() {
                    return false;
                }
            }
            b'`' => stack.push(b'`'),
            b'/' if b.get(i + 1) == Some(&b'*') => match src[i + 2..].find("*/") {
                Some(k) => i += k + 3,
                None => return false,
            },
            b'/' if b.get(i + 1) == Some(&b'/') => {
                i = src[i..].find('\n').map_or(b.len(), |k| i + k);
            }
            b'{' => stack.push(b'{'),
            // The guard pops a matching brace; an unmatched one ends the expression.
            b'}' if stack.pop().is_none() => return true,
            _ => {}
        }
        i += 1;
    }
    stack.is_empty()
}

/// Parse the current text; on the first MDX error switch `mode` to CommonMark for good and
/// remember where the error was (as a body line). Should the crate panic (1.0.0 does on a
/// few broken inputs, e.g. a JSX tag followed by a fence and `- `), the same fallback applies,
/// and if CommonMark panics too the text is one plain paragraph.
fn to_tree(lines: &Lines, mode: &mut Syntax, mdx_error: &mut Option<(usize, String)>) -> Node {
    let text = lines.joined();
    if *mode == Syntax::Mdx {
        match catch_parse(&text, Syntax::Mdx) {
            Ok(root) => return root,
            Err((line, reason)) => {
                *mdx_error = Some((lines.source_line(line.saturating_sub(1)), reason));
                *mode = Syntax::CommonMark;
            }
        }
    }
    catch_parse(&text, Syntax::CommonMark).unwrap_or_else(|(line, reason)| {
        if mdx_error.is_none() {
            *mdx_error = Some((lines.source_line(line.saturating_sub(1)), reason));
        }
        plain_text(&text)
    })
}

/// The crate's parse, with its error or panic as (1-based line, reason).
fn catch_parse(text: &str, syntax: Syntax) -> Result<Node, (usize, String)> {
    let options = options(syntax);
    let parsed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        markdown::to_mdast(text, &options)
    }));
    match parsed {
        Ok(Ok(root)) => Ok(root),
        Ok(Err(message)) => {
            let line = match message.place.as_deref() {
                Some(markdown::message::Place::Point(p)) => p.line,
                Some(markdown::message::Place::Position(p)) => p.start.line,
                None => 1,
            };
            Err((line, message.reason))
        }
        Err(_) => Err((1, "the markdown parser failed on this page".into())),
    }
}

/// A tree holding `text` as one paragraph.
fn plain_text(text: &str) -> Node {
    use markdown::mdast::{Paragraph, Root, Text};
    Node::Root(Root {
        children: vec![Node::Paragraph(Paragraph {
            children: vec![Node::Text(Text {
                value: text.to_string(),
                position: None,
            })],
            position: None,
        })],
        position: None,
    })
}

/// The body as lines, each with the body line it came from, so that warnings point at the
/// file's lines after the pre-passes removed or added some.
struct Lines {
    lines: Vec<(String, usize)>,
}

impl Lines {
    fn new(body: &str, first_line: usize) -> Self {
        Lines {
            lines: body
                .split('\n')
                .enumerate()
                .map(|(n, l)| (cap_nesting(l), first_line + n))
                .collect(),
        }
    }

    fn joined(&self) -> String {
        let mut out = String::with_capacity(self.lines.iter().map(|l| l.0.len() + 1).sum());
        for (n, (line, _)) in self.lines.iter().enumerate() {
            if n > 0 {
                out.push('\n');
            }
            out.push_str(line);
        }
        out
    }

    /// Body line (0-based) of the current line `n` (0-based).
    fn source_line(&self, n: usize) -> usize {
        self.lines
            .get(n)
            .or(self.lines.last())
            .map_or(0, |(_, src)| *src)
    }

    /// Line index of each byte offset's line: the start offsets of all lines.
    fn starts(&self) -> Vec<usize> {
        let mut starts = Vec::with_capacity(self.lines.len());
        let mut at = 0;
        for (line, _) in &self.lines {
            starts.push(at);
            at += line.len() + 1;
        }
        starts
    }

    /// Remove the fence lines of every ```` ```mdx-code-block ```` the tree shows; true if any.
    fn unwrap_mdx_code_blocks(&mut self, root: &Node) -> bool {
        let starts = self.starts();
        let mut drop = Vec::new();
        visit(root, &mut |node| {
            let Node::Code(code) = node else { return };
            let (Some("mdx-code-block"), Some(pos)) = (code.lang.as_deref(), &code.position) else {
                return;
            };
            let first = line_of(&starts, pos.start.offset);
            drop.push(first);
            // The end offset is just after the closing fence, or the end of the page.
            let last = line_of(&starts, pos.end.offset.saturating_sub(1));
            if last > first && is_fence_line(&self.lines[last].0, b'`') {
                drop.push(last);
            }
        });
        if drop.is_empty() {
            return false;
        }
        drop.sort_unstable();
        drop.dedup();
        for n in drop.into_iter().rev() {
            self.lines.remove(n);
        }
        true
    }

    /// Turn every `:::` admonition fence outside code into its paragraph; true if any.
    fn admonitions(&mut self, root: &Node) -> bool {
        if !self.lines.iter().any(|(l, _)| l.contains(":::")) {
            return false;
        }
        let mut code = Vec::new();
        visit(root, &mut |node| {
            let verbatim = matches!(
                node,
                Node::Code(_)
                    | Node::Math(_)
                    | Node::InlineCode(_)
                    | Node::Html(_)
                    | Node::MdxjsEsm(_)
                    | Node::MdxFlowExpression(_)
                    | Node::MdxTextExpression(_)
            );
            if let (true, Some(pos)) = (verbatim, node.position()) {
                code.push((pos.start.offset, pos.end.offset));
            }
        });
        let starts = self.starts();
        let mut out = Vec::with_capacity(self.lines.len());
        let mut changed = false;
        for (n, (line, src)) in std::mem::take(&mut self.lines).into_iter().enumerate() {
            let (prefix, rest) = split_prefix(&line);
            let at = starts[n] + prefix.len();
            let in_code = code.iter().any(|&(s, e)| s <= at && at < e);
            match admonition(rest).filter(|_| !in_code) {
                Some(title) => {
                    changed = true;
                    let blank = prefix.trim_end().to_string();
                    if !title.is_empty() {
                        out.push((blank.clone(), src));
                        out.push((format!("{prefix}{title}"), src));
                    }
                    out.push((blank, src));
                }
                None => out.push((line, src)),
            }
        }
        self.lines = out;
        changed
    }
}

/// Containers (`>`, list markers) opened on one line beyond this depth are escaped to text:
/// the crate's time grows with the cube of that depth (13 000 `1. ` on one line: 80 s), and
/// no page nests this deep.
const MAX_NESTING: usize = 32;

/// `line` with the container markers after the first [`MAX_NESTING`] escaped.
fn cap_nesting(line: &str) -> String {
    let b = line.as_bytes();
    let (mut i, mut depth) = (0, 0);
    loop {
        while b.get(i).is_some_and(|c| *c == b' ' || *c == b'\t') {
            i += 1;
        }
        let marker = match b.get(i) {
            Some(b'>') => 1,
            Some(b'-' | b'*' | b'+') if matches!(b.get(i + 1), Some(b' ' | b'\t')) => 1,
            Some(c) if c.is_ascii_digit() => {
                let digits = b[i..]
                    .iter()
                    .take(9)
                    .take_while(|c| c.is_ascii_digit())
                    .count();
                match (b.get(i + digits), b.get(i + digits + 1)) {
                    (Some(b'.' | b')'), Some(b' ' | b'\t')) => digits + 1,
                    _ => 0,
                }
            }
            _ => 0,
        };
        if marker == 0 {
            return line.to_string();
        }
        depth += 1;
        if depth > MAX_NESTING {
            // Escape the marker's punctuation so it, and what follows, is text.
            let punct = i + marker - 1;
            return format!("{}\\{}", &line[..punct], &line[punct..]);
        }
        i += marker;
    }
}

/// Call `f` on `node` and every node below it.
fn visit(node: &Node, f: &mut impl FnMut(&Node)) {
    f(node);
    if let Some(children) = node.children() {
        for child in children {
            visit(child, f);
        }
    }
}

/// Index of the line holding byte `offset`.
fn line_of(starts: &[usize], offset: usize) -> usize {
    starts.partition_point(|&s| s <= offset).saturating_sub(1)
}

/// Leading blockquote markers and indentation, and the rest of the line.
fn split_prefix(line: &str) -> (&str, &str) {
    let rest = line.trim_start_matches([' ', '\t', '>']);
    (&line[..line.len() - rest.len()], rest)
}

/// A line that is only a fence of `ch` (after container prefixes).
fn is_fence_line(line: &str, ch: u8) -> bool {
    let (_, rest) = split_prefix(line);
    let run = rest.bytes().take_while(|&b| b == ch).count();
    run >= 3 && rest[run..].trim().is_empty()
}

/// Start lines (0-based, in `text`) of fenced code blocks that have no closing fence.
fn unclosed_fences(root: &Node, text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    visit(root, &mut |node| {
        let Node::Code(code) = node else { return };
        let Some(pos) = &code.position else { return };
        let Some(src) = text.get(pos.start.offset..pos.end.offset) else {
            return;
        };
        let Some(&ch) = src.as_bytes().first().filter(|c| matches!(c, b'`' | b'~')) else {
            return; // indented code
        };
        let open = src.bytes().take_while(|&b| b == ch).count();
        let closed = src
            .trim_end_matches('\n')
            .rsplit_once('\n')
            .is_some_and(|(_, last)| {
                let (_, rest) = split_prefix(last);
                let run = rest.bytes().take_while(|&b| b == ch).count();
                run >= open && rest[run..].trim().is_empty()
            });
        if !closed {
            out.push(pos.start.line.saturating_sub(1));
        }
    });
    out
}

/// An admonition fence line: the text to keep for it (`Tip: Title`, `Tip:`), or an empty
/// string for a closing `:::`. `None` if the line is not an admonition fence.
fn admonition(rest: &str) -> Option<String> {
    let colons = rest.bytes().take_while(|&b| b == b':').count();
    if colons < 3 {
        return None;
    }
    let after = &rest[colons..];
    let name_len = after
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'-' || *b == b'_')
        .count();
    if name_len == 0 {
        return after.trim().is_empty().then(String::new);
    }
    if !after.as_bytes()[0].is_ascii_alphabetic() {
        return None;
    }
    let name = &after[..name_len];
    let mut tail = after[name_len..].trim();
    let title = if let Some(label) = tail.strip_prefix('[') {
        match label.rfind(']') {
            Some(k) => label[..k].trim(),
            None => label.trim(),
        }
    } else {
        // Legacy `:::tip Title`; drop a trailing `{attributes}` block.
        if tail.ends_with('}') {
            if let Some(k) = tail.rfind('{') {
                tail = tail[..k].trim_end();
            }
        }
        tail
    };
    let mut kind: String = name[..1].to_ascii_uppercase();
    kind.push_str(&name[1..]);
    Some(if title.is_empty() {
        format!("{kind}:")
    } else {
        format!("{kind}: {title}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> String {
        parse(s, Syntax::Mdx).parts[0].text.clone()
    }

    #[test]
    fn admonitions() {
        let out = text(":::tip How to upgrade\n\nDo this.\n\n:::\n");
        assert!(out.contains("\nTip: How to upgrade\n"), "{out}");
        assert!(out.contains("Do this."));
        assert!(!out.contains(":::"), "{out}");
        let out = text(":::note[Your Title **with** _Markdown_]\nBody\n:::\n");
        assert!(
            out.contains("Note: Your Title **with** _Markdown_\n"),
            "{out}"
        );
        let out = text(":::::info Parent\n::::danger Child\nx\n::::\n:::::\n");
        assert!(
            out.contains("Info: Parent") && out.contains("Danger: Child"),
            "{out}"
        );
        assert!(!out.contains(":::"));
        let out = text(":::warning\nBe careful\n:::\n");
        assert!(out.contains("Warning:\n"), "{out}");
        // inside a blockquote
        let out = text("> :::tip Quoted\n> body\n> :::\n");
        assert!(out.contains("> Tip: Quoted"), "{out}");
        // `:::` in fenced or inline code is untouched
        assert!(text("```\n:::tip x\n```\n").contains(":::tip x"));
        assert!(text("`\n:::tip x\n`\n").contains(":::tip x"));
        // not a fence: `::` or a digit after the colons
        assert!(text("::tip x\n").contains("::tip x"));
        assert!(text(":::1 x\n").contains(":::1 x"));
    }

    #[test]
    fn mdx_code_blocks_are_unwrapped() {
        let t = parse(
            "```mdx-code-block\nimport A from 'a';\n\n<A>\n\nInside\n\n</A>\n```\nAfter\n",
            Syntax::Mdx,
        );
        let t = &t.parts[0];
        assert!(
            !t.text.contains("mdx-code-block") && !t.text.contains("```"),
            "{}",
            t.text
        );
        let mut esm = 0;
        visit(&t.root, &mut |n| {
            esm += usize::from(matches!(n, Node::MdxjsEsm(_)))
        });
        assert_eq!(esm, 1, "the content is parsed as MDX");
        // nested: the inner wrapper is found once the outer one is gone
        let out = text("````mdx-code-block\n```mdx-code-block\nX\n```\n````\n");
        assert_eq!(out.trim(), "X");
        // an ordinary fence is code
        assert!(text("```js\nimport a from 'b'\n```\n").contains("```js"));
    }

    #[test]
    fn expressions_end_where_javascript_ends_them() {
        for (src, complete) in [
            ("x", true),
            ("'a {#b}'", true),
            ("'a {#b", false),
            ("`a ${b} {`", true),
            ("`a ${b", false),
            ("a /* } */", true),
            ("a /* }", false),
            ("{a: 1}", true),
            ("{a: 1", false),
            ("\"x\\\" {\"", true),
            ("a // }\n", true),
        ] {
            assert_eq!(js_is_complete(src), complete, "{src}");
        }
        let t = parse("<Code>{'### Hello \\u007B#id}\\n'}</Code>\n", Syntax::Mdx);
        let mut values = Vec::new();
        visit(&t.parts[0].root, &mut |n| match n {
            Node::MdxTextExpression(e) => values.push(e.value.clone()),
            Node::MdxFlowExpression(e) => values.push(e.value.clone()),
            _ => {}
        });
        assert_eq!(values, vec!["'### Hello \\u007B#id}\\n'".to_string()]);
    }

    #[test]
    fn problems_name_body_lines() {
        let t = parse("text\n\n```python\nprint(1)\n", Syntax::Mdx);
        assert_eq!(t.problems.len(), 1);
        assert_eq!(t.problems[0].0, 2);
        // lines removed by the pre-passes do not shift the reported line
        let t = parse(
            "```mdx-code-block\nx\n```\n:::tip\nA\n:::\n\n~~~\nopen\n",
            Syntax::Mdx,
        );
        assert_eq!(t.problems, vec![(7, t.problems[0].1.clone())]);
        // an MDX error falls back to CommonMark and names its line
        let t = parse("fine\n\n<div>\n\ntext {\n", Syntax::Mdx);
        assert_eq!(t.syntax, Syntax::CommonMark);
        assert_eq!(t.problems.len(), 1, "{:?}", t.problems);
        assert!(
            t.problems[0].1.contains("not valid MDX"),
            "{:?}",
            t.problems
        );
        // a closed fence and indented code are no problem
        assert!(parse("```\nx\n```\n", Syntax::Mdx).problems.is_empty());
        assert!(parse("a\n\n    code\n", Syntax::CommonMark)
            .problems
            .is_empty());
    }

    /// The crate is superlinear on some shapes (measured in release on 40 KB in one
    /// paragraph: emphasis markers `a*a*…` 1.6 s, `/*/*…` 1.3 s; markdown-rs issue #113),
    /// so hostile pages are kept to 20 KB here; the old hand scanner took 200 KB of each in
    /// under 5 s.
    #[test]
    fn hostile_input_is_safe() {
        for unit in [
            "<a ", "{", "`", "<!--", "{/*", "<", "<a b={", "\\", ":::", "```", "- ",
        ] {
            let s = unit.repeat(20_000 / unit.len());
            let t = std::time::Instant::now();
            let _ = parse(&s, Syntax::Mdx);
            assert!(t.elapsed().as_secs() < 10, "{unit:?} too slow");
        }
        for s in ["é<é{é`é\\é<!--é", "\\", "<", "{", ""] {
            let _ = parse(s, Syntax::Mdx);
        }
    }

    #[test]
    fn deep_nesting_on_one_line_is_capped() {
        assert_eq!(cap_nesting("> - 1. a"), "> - 1. a");
        let deep = "> ".repeat(40);
        let capped = cap_nesting(&deep);
        assert_eq!(capped.matches("\\>").count(), 1);
        assert!(capped.starts_with(&"> ".repeat(MAX_NESTING)));
        assert_eq!(cap_nesting(&"1. ".repeat(40)).matches("1\\.").count(), 1);
        for unit in ["1. ", "> ", "- "] {
            let t = std::time::Instant::now();
            let _ = parse(&unit.repeat(40_000 / unit.len()), Syntax::Mdx);
            assert!(t.elapsed().as_secs() < 10, "{unit:?} too slow");
        }
    }

    #[test]
    fn a_panic_in_the_crate_is_a_warning() {
        let t = parse("<TabItem value=\"a\"\n label='b'>```js\n- ", Syntax::Mdx);
        assert_eq!(t.problems.len(), 1, "{:?}", t.problems);
    }

    #[test]
    fn long_pages_are_cut_before_headings_outside_code() {
        let section = format!("## Part\n\n{}\n\n", "word ".repeat(2000));
        let fence = format!("```md\n{}\n## in code\n```\n\n", "x".repeat(PIECE_BYTES));
        let body = format!("{fence}{}", section.repeat(30));
        let cuts = pieces(&body);
        assert!(cuts.len() > 2, "{}", cuts.len());
        assert_eq!(cuts.iter().map(|c| c.1).collect::<String>(), body);
        assert!(cuts[0].1.contains("## in code"));
        for (line, piece) in &cuts[1..] {
            assert!(piece.starts_with("## Part"));
            assert_eq!(body.split('\n').nth(*line), Some("## Part"));
        }
        assert_eq!(pieces("short").len(), 1);
    }
}

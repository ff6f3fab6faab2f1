//! Split a page's syntax tree (from [`super::mdx::parse`]) into heading sections with
//! readable text.
//!
//! Heading text is what `mdast-util-to-string` gives (Docusaurus builds anchors from it):
//! inline code unwrapped, JSX tags dropped with their children kept, `{expressions}` as their
//! source; the `{#id}` suffix stays for `super::read_page`, which applies Docusaurus' rule.
//!
//! Text rendering: emphasis markers dropped, links become their text, images their alt
//! text, inline code keeps its backticks, list items get `- ` / `1. ` markers, table rows
//! become `a | b | c` lines, fenced code is re-emitted as a fence with its language. JSX
//! elements keep their children (`<img>` its alt text, `<br>` a space); ESM, comments and
//! expressions are dropped, except string literals (`{' '}`), which keep their text. HTML (a
//! CommonMark page) keeps the text between its tags. Indented code (CommonMark only: MDX has
//! none) is read as plain text, as before.

use markdown::mdast::{AttributeContent, AttributeValue, Node};

use super::mdx::Tree;
use super::props::{component_text, PropValue};

/// A heading as found in the Markdown, before anchors are assigned.
#[derive(Debug, Clone, PartialEq)]
pub struct RawHeading {
    /// 1..=6.
    pub level: u8,
    /// The heading's text as `mdast-util-to-string` gives it (inline code unwrapped, soft
    /// line breaks kept as `\n`, JSX tags dropped with their children kept, an MDX comment
    /// kept as its source `/* … */`): what Docusaurus slugs. The `{#id}` suffix, if any, is
    /// still there.
    pub raw: String,
    /// The heading as the page shows it: `raw` without MDX comments.
    pub shown: String,
    /// The id of a trailing comment `{/* #id */}` (or `<!-- #id -->` on a CommonMark page),
    /// which Docusaurus 3.10 and later give the heading instead of a slug.
    pub comment_id: Option<String>,
    /// The heading is one inline code span (`` ### `future` ``): a name from the code, such as
    /// an option or a function, not a word of the prose.
    pub code: bool,
}

/// A run of content: the page top (no heading) or one heading and what follows it.
#[derive(Debug, Clone, PartialEq)]
pub struct RawSection {
    /// `None` for content before the first heading.
    pub heading: Option<RawHeading>,
    /// Readable text of the section body.
    pub text: String,
    /// Whether a fenced code block is in `text`.
    pub has_code: bool,
}

/// The parsed page.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The leading `# H1` used as page title (only when asked for and present).
    pub title_heading: Option<RawHeading>,
    /// Page top first (always present, maybe empty), then one per heading.
    pub sections: Vec<RawSection>,
}

enum Target {
    Body,
    Heading(HeadingText),
    Cell,
}

/// A heading being read: its level, its texts so far (see [`RawHeading`]), whether it is the
/// page's title and the id of a trailing comment.
struct HeadingText {
    level: u8,
    raw: String,
    shown: String,
    is_title: bool,
    comment_id: Option<String>,
    code: bool,
}

struct Builder<'a> {
    text: &'a str,
    sections: Vec<RawSection>,
    title_heading: Option<RawHeading>,
    target: Target,
    cell: String,
    row: Vec<String>,
    /// Open lists: the next number of an ordered one.
    lists: Vec<Option<u64>>,
    /// Just after a list item's marker: the item's first paragraph stays on its line.
    after_marker: bool,
    seen_block: bool,
    want_title: bool,
}

/// Split a parsed page into sections. When `title_from_h1` is true and the first block is an
/// H1, that heading is returned as `title_heading` instead of starting a section.
pub fn parse(tree: &Tree, title_from_h1: bool) -> Parsed {
    let mut b = Builder {
        text: "",
        sections: vec![RawSection {
            heading: None,
            text: String::new(),
            has_code: false,
        }],
        title_heading: None,
        target: Target::Body,
        cell: String::new(),
        row: Vec::new(),
        lists: Vec::new(),
        after_marker: false,
        seen_block: false,
        want_title: title_from_h1,
    };
    for part in &tree.parts {
        b.text = &part.text;
        b.node(&part.root);
    }
    for s in &mut b.sections {
        s.text = tidy(&s.text);
    }
    Parsed {
        title_heading: b.title_heading,
        sections: b.sections,
    }
}

impl Builder<'_> {
    fn body(&mut self) -> &mut RawSection {
        // `sections` always holds at least the page-top section.
        let last = self.sections.len() - 1;
        &mut self.sections[last]
    }

    fn push(&mut self, s: &str) {
        self.after_marker = false;
        match &mut self.target {
            Target::Body => self.body().text.push_str(s),
            Target::Heading(h) => {
                h.raw.push_str(s);
                h.shown.push_str(s);
            }
            Target::Cell => self.cell.push_str(s),
        }
    }

    fn newline(&mut self) {
        if matches!(self.target, Target::Body) {
            let t = &mut self.body().text;
            if !t.is_empty() && !t.ends_with('\n') {
                t.push('\n');
            }
        }
    }

    fn blank_line(&mut self) {
        self.newline();
        if matches!(self.target, Target::Body) {
            let t = &mut self.body().text;
            if !t.is_empty() && !t.ends_with("\n\n") {
                t.push('\n');
            }
        }
    }

    fn in_heading(&self) -> bool {
        matches!(self.target, Target::Heading(..))
    }

    fn children(&mut self, children: &[Node]) {
        for child in children {
            self.node(child);
        }
    }

    /// Text from the tree: at the start of a line its indentation (JSX source layout) is
    /// dropped.
    fn push_text(&mut self, s: &str) {
        let at_line_start = matches!(self.target, Target::Body) && {
            let t = &self.sections[self.sections.len() - 1].text;
            t.is_empty() || t.ends_with('\n')
        };
        if at_line_start {
            self.push(s.trim_start_matches([' ', '\t']));
        } else {
            self.push(s);
        }
    }

    /// Start or end of a paragraph: a blank line, or in a list a line break (none right
    /// after the item's marker).
    fn paragraph_break(&mut self) {
        if self.lists.is_empty() {
            self.blank_line();
        } else if !self.after_marker {
            self.newline();
        }
    }

    fn node(&mut self, node: &Node) {
        let first_block = !self.seen_block;
        if !matches!(
            node,
            Node::Root(_) | Node::MdxjsEsm(_) | Node::MdxFlowExpression(_) | Node::Definition(_)
        ) {
            self.seen_block = true;
        }
        match node {
            Node::Root(n) => self.children(&n.children),
            Node::Heading(h) => {
                let is_title = first_block && self.want_title && h.depth == 1;
                self.target = Target::Heading(HeadingText {
                    level: h.depth,
                    raw: String::new(),
                    shown: String::new(),
                    is_title,
                    comment_id: trailing_comment_id(&h.children),
                    code: only_code(&h.children),
                });
                self.children(&h.children);
                self.end_heading();
            }
            Node::Paragraph(p) => {
                self.paragraph_break();
                self.children(&p.children);
                self.paragraph_break();
            }
            Node::Text(t) => self.push_text(&t.value),
            Node::InlineCode(c) => {
                if self.in_heading() {
                    self.push(&c.value);
                } else {
                    let ticks = if c.value.contains('`') { "``" } else { "`" };
                    let pad = if c.value.starts_with('`') || c.value.ends_with('`') {
                        " "
                    } else {
                        ""
                    };
                    self.push(&format!("{ticks}{pad}{}{pad}{ticks}", c.value));
                }
            }
            Node::Code(c) => self.code(c),
            Node::Math(m) => {
                self.blank_line();
                self.push(&format!("$$\n{}\n$$", m.value));
                self.blank_line();
            }
            Node::InlineMath(m) => self.push(&m.value),
            Node::Emphasis(n) => self.children(&n.children),
            Node::Strong(n) => self.children(&n.children),
            Node::Delete(n) => self.children(&n.children),
            Node::Link(n) => self.children(&n.children),
            Node::LinkReference(n) => self.children(&n.children),
            Node::Image(i) => self.push(&i.alt),
            Node::ImageReference(i) => self.push(&i.alt),
            Node::Break(_) => {
                if !self.in_heading() {
                    self.push("\n");
                }
            }
            Node::ThematicBreak(_) => self.blank_line(),
            Node::List(l) => {
                self.newline();
                let start = l.ordered.then(|| u64::from(l.start.unwrap_or(1)));
                self.lists.push(start);
                self.children(&l.children);
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank_line();
                } else {
                    self.newline();
                }
            }
            Node::ListItem(i) => {
                self.newline();
                let depth = self.lists.len().saturating_sub(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        let m = format!("{n}. ");
                        *n = n.saturating_add(1);
                        m
                    }
                    _ => "- ".to_string(),
                };
                self.push(&"  ".repeat(depth));
                self.push(&marker);
                if let Some(done) = i.checked {
                    self.push(if done { "[x] " } else { "[ ] " });
                }
                self.after_marker = true;
                self.children(&i.children);
                self.newline();
            }
            Node::Table(t) => {
                self.blank_line();
                self.children(&t.children);
                self.blank_line();
            }
            Node::TableRow(r) => {
                self.row.clear();
                self.children(&r.children);
                let line = self.row.join(" | ");
                self.row.clear();
                self.push(&line);
                self.push("\n");
            }
            Node::TableCell(c) => {
                self.cell.clear();
                let outer = std::mem::replace(&mut self.target, Target::Cell);
                self.children(&c.children);
                self.target = outer;
                let cell = std::mem::take(&mut self.cell);
                self.row
                    .push(cell.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            Node::Blockquote(q) => {
                self.blank_line();
                self.children(&q.children);
                self.blank_line();
            }
            Node::FootnoteDefinition(f) => {
                self.blank_line();
                self.children(&f.children);
                self.blank_line();
            }
            Node::Html(h) => {
                // CommonMark pages only (MDX has no HTML): keep the words between the tags.
                let words = strip_tags(&h.value);
                if self.in_heading() {
                    return;
                }
                // An HTML block sits between blank lines already (the blocks around it
                // end and start with one), inline HTML inside its paragraph.
                self.push(&words);
            }
            Node::MdxJsxFlowElement(e) => {
                self.blank_line();
                self.props(e.name.as_deref(), &e.attributes);
                self.element(e.name.as_deref(), &e.attributes, &e.children);
                self.blank_line();
            }
            Node::MdxJsxTextElement(e) => {
                self.element(e.name.as_deref(), &e.attributes, &e.children)
            }
            Node::MdxTextExpression(e) => self.expression(&e.value),
            Node::MdxFlowExpression(e) => {
                if let Some(s) = string_literal(e.value.trim()) {
                    self.blank_line();
                    self.push(s);
                    self.blank_line();
                }
            }
            Node::MdxjsEsm(_)
            | Node::Definition(_)
            | Node::FootnoteReference(_)
            | Node::Toml(_)
            | Node::Yaml(_) => {}
        }
    }

    fn end_heading(&mut self) {
        if let Target::Heading(h) = std::mem::replace(&mut self.target, Target::Body) {
            let heading = RawHeading {
                level: h.level,
                raw: h.raw,
                shown: h.shown,
                comment_id: h.comment_id,
                code: h.code,
            };
            if h.is_title {
                self.title_heading = Some(heading);
            } else {
                self.sections.push(RawSection {
                    heading: Some(heading),
                    text: String::new(),
                    has_code: false,
                });
            }
        }
    }

    fn code(&mut self, c: &markdown::mdast::Code) {
        self.blank_line();
        let fenced = c.position.as_ref().is_some_and(|p| {
            self.text
                .get(p.start.offset..)
                .is_some_and(|s| s.starts_with(['`', '~']))
        });
        if !fenced {
            // Indented code (CommonMark pages): plain text.
            self.push(&c.value);
            self.blank_line();
            return;
        }
        let lang = c.lang.as_deref().unwrap_or("");
        let code = &c.value;
        let longest = longest_backtick_run(code);
        let fence = "`".repeat(longest.max(2) + 1);
        let body = self.body();
        body.has_code = true;
        body.text.push_str(&format!("{fence}{lang}\n{code}"));
        if !code.is_empty() {
            body.text.push('\n');
        }
        body.text.push_str(&fence);
        body.text.push('\n');
        self.blank_line();
    }

    /// A JSX element's words: its own ([`Self::jsx`]) and its children's; a `<summary>`'s as
    /// [`summary_label`] keeps them.
    fn element(&mut self, name: Option<&str>, attributes: &[AttributeContent], children: &[Node]) {
        self.jsx(name, attributes);
        // Where a `<summary>`'s text starts in the section's text (none for other elements).
        let summary_start = (name.is_some_and(|n| n.eq_ignore_ascii_case("summary"))
            && !self.in_heading())
        .then(|| self.body().text.len());
        self.children(children);
        if let Some(start) = summary_start {
            let body = self.body();
            let label = summary_label(body.text.get(start..).unwrap_or(""));
            body.text.truncate(start);
            body.text.push_str(&label);
        }
    }

    /// A custom component's text given in its props (`<HardwareTable requirements={[…]} />`), each
    /// paragraph or table a block of its own (see [`super::props`]); HTML elements and headings
    /// keep theirs out.
    fn props(&mut self, name: Option<&str>, attributes: &[AttributeContent]) {
        if !name.is_some_and(|n| n.starts_with(|c: char| c.is_ascii_uppercase()))
            || self.in_heading()
        {
            return;
        }
        let props: Vec<(&str, PropValue)> = attributes
            .iter()
            .filter_map(|a| match a {
                AttributeContent::Property(p) => match &p.value {
                    Some(AttributeValue::Literal(s)) => {
                        Some((p.name.as_str(), PropValue::Literal(s)))
                    }
                    Some(AttributeValue::Expression(e)) => {
                        Some((p.name.as_str(), PropValue::Expression(&e.value)))
                    }
                    None => None,
                },
                // `{...spread}`: what it holds is decided by the page's code.
                AttributeContent::Expression(_) => None,
            })
            .collect();
        // Called right after the element's blank line: each paragraph or table starts a block.
        for text in component_text(&props) {
            self.push(&text);
            self.blank_line();
        }
    }

    /// The words a JSX element shows besides its children: `<img>`'s alt text, `<br>`'s space.
    fn jsx(&mut self, name: Option<&str>, attributes: &[AttributeContent]) {
        let name = name.unwrap_or("");
        if name.eq_ignore_ascii_case("br") || name.eq_ignore_ascii_case("hr") {
            if !self.in_heading() {
                self.push(" ");
            }
        } else if name.eq_ignore_ascii_case("img") && !self.in_heading() {
            let alt = attributes.iter().find_map(|a| match a {
                AttributeContent::Property(p) if p.name == "alt" => match &p.value {
                    Some(AttributeValue::Literal(s)) => Some(s.as_str()),
                    _ => None,
                },
                _ => None,
            });
            if let Some(alt) = alt {
                self.push(alt);
            }
        }
    }

    /// `{expression}` in text: string literals keep their text; in headings other
    /// expressions keep their source (as `mdast-util-to-string` gives it to the slugger);
    /// `{#id}` (Docusaurus escapes it before its MDX parse) stays as written.
    fn expression(&mut self, value: &str) {
        let trimmed = value.trim();
        if value.starts_with('#') {
            self.push(&format!("{{{value}}}"));
        } else if let Target::Heading(h) = &mut self.target {
            // Docusaurus slugs the expression's source as written, spaces inside the braces
            // included (`mdast-util-to-string`); the page shows a string literal's text and
            // nothing for a comment.
            h.raw.push_str(value);
            if let Some(s) = string_literal(trimmed) {
                h.shown.push_str(s);
            } else if !is_js_comment(trimmed) {
                h.shown.push_str(trimmed);
            }
        } else if let Some(s) = string_literal(trimmed) {
            self.push(s);
        }
    }
}

/// Words that only tell the reader to open a `<details>` block.
const CLICK_WORDS: &[&str] = &[
    "click",
    "tap",
    "here",
    "to",
    "show",
    "hide",
    "reveal",
    "see",
    "view",
    "expand",
    "toggle",
    "me",
    "the",
    "an",
    "a",
    "answer",
    "answers",
    "hint",
    "hints",
    "solution",
    "example",
    "details",
    "definition",
    "more",
];

/// A `<details>` block's `<summary>` as book text: the label of what it hides, without the words
/// that only tell the reader to click ("my_app.py (Click to expand)" → "my_app.py"); a summary
/// made of nothing else ("Show Answer", "Click to reveal hints") is left out. Otherwise it was
/// indexed, and could be quoted, as a sentence of the book ("… was composed (Expand)").
fn summary_label(text: &str) -> String {
    static CLICK: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let text = match CLICK.get_or_init(|| {
        regex::Regex::new(
            r"(?i)\(\s*(?:(?:click|tap)\s+(?:here\s+)?to\s+)?(?:expand|show|reveal|see)\b[^)]*\)",
        )
        .ok()
    }) {
        Some(re) => re.replace_all(text, "").trim().to_string(),
        None => text.trim().to_string(),
    };
    let only_clicks = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .all(|w| CLICK_WORDS.contains(&w.to_lowercase().as_str()));
    if only_clicks {
        String::new()
    } else {
        text
    }
}

/// The text of an HTML fragment without its tags and comments.
fn strip_tags(html: &str) -> String {
    static TAG: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    match TAG.get_or_init(|| regex::Regex::new(r"(?s)<!--.*?(?:-->|$)|</?[A-Za-z][^>]*>").ok()) {
        Some(re) => re.replace_all(html, "").into_owned(),
        None => html.to_string(),
    }
}

/// `'text'` / `"text"` / `` `text` `` (without `${`) → `text`.
fn string_literal(expr: &str) -> Option<&str> {
    let first = expr.chars().next()?;
    if !matches!(first, '"' | '\'' | '`') || expr.len() < 2 || !expr.ends_with(first) {
        return None;
    }
    let inner = &expr[1..expr.len() - 1];
    if inner.contains(first) || inner.contains("${") || inner.contains('\\') {
        return None;
    }
    Some(inner)
}

fn is_js_comment(expr: &str) -> bool {
    expr.starts_with("/*") && expr.ends_with("*/")
}

/// The id a heading's last child gives it in Docusaurus 3.10 and later (the mdx-loader's
/// `headings` plugin): an expression holding exactly one comment, or an HTML comment, whose
/// text's first space-separated word is `#id`.
fn trailing_comment_id(children: &[Node]) -> Option<String> {
    let comment = match children.last()? {
        Node::MdxTextExpression(e) => {
            let inner = e.value.trim().strip_prefix("/*")?.strip_suffix("*/")?;
            (!inner.contains("*/")).then_some(inner)?
        }
        Node::Html(h) => h.value.strip_prefix("<!--")?.strip_suffix("-->")?,
        _ => return None,
    };
    let first = comment.trim().split(' ').next()?;
    let id = first.strip_prefix('#')?;
    (!id.is_empty()).then(|| id.to_string())
}

/// Whether a heading's content is one inline code span, besides an `{#id}` suffix, a comment
/// giving the id and spaces.
fn only_code(children: &[Node]) -> bool {
    let mut spans = 0;
    for child in children {
        match child {
            Node::InlineCode(_) => spans += 1,
            Node::Text(t) => {
                let rest = t.value.trim();
                let id_suffix = rest.starts_with("{#") && rest.ends_with('}');
                if !rest.is_empty() && !id_suffix {
                    return false;
                }
            }
            // `{#id}` on an MDX page, and a comment giving the id.
            Node::MdxTextExpression(e)
                if e.value.trim().starts_with('#') || is_js_comment(e.value.trim()) => {}
            Node::Html(h) if h.value.starts_with("<!--") => {}
            _ => return false,
        }
    }
    spans == 1
}

fn longest_backtick_run(s: &str) -> usize {
    let mut best = 0;
    let mut cur = 0;
    for b in s.bytes() {
        if b == b'`' {
            cur += 1;
            best = best.max(cur);
        } else {
            cur = 0;
        }
    }
    best
}

/// Drop trailing spaces, collapse runs of blank lines, trim. Lines inside code fences are
/// kept as they are.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    let mut fence: Option<usize> = None;
    for line in text.split('\n') {
        let ticks = line.bytes().take_while(|&b| b == b'`').count();
        if let Some(n) = fence {
            out.push_str(line);
            out.push('\n');
            if ticks == n && line.len() == n {
                fence = None;
            }
            continue;
        }
        if ticks >= 3 {
            fence = Some(ticks);
        }
        let line = line.trim_end();
        if line.is_empty() {
            blank_run += 1;
            if blank_run > 1 {
                continue;
            }
        } else {
            blank_run = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::super::mdx;
    use super::*;

    fn parse(markdown: &str, title_from_h1: bool) -> Parsed {
        super::parse(&mdx::parse(markdown, mdx::Syntax::Mdx), title_from_h1)
    }

    fn headings(p: &Parsed) -> Vec<(u8, String)> {
        p.sections
            .iter()
            .filter_map(|s| s.heading.as_ref().map(|h| (h.level, h.raw.clone())))
            .collect()
    }

    #[test]
    fn splits_on_headings_and_skips_title() {
        let p = parse(
            "# Title\n\nIntro.\n\n## A\n\nText a.\n\n### B\n\nText b.\n",
            true,
        );
        assert_eq!(
            p.title_heading.as_ref().map(|h| h.raw.as_str()),
            Some("Title")
        );
        assert_eq!(p.sections[0].text, "Intro.");
        assert_eq!(headings(&p), vec![(2, "A".into()), (3, "B".into())]);
        assert_eq!(p.sections[2].text, "Text b.");
        // without a content title, the H1 is an ordinary section
        let p = parse("# Title\n\nIntro.\n", false);
        assert!(p.title_heading.is_none());
        assert_eq!(headings(&p), vec![(1, "Title".into())]);
        // a later H1 is never the title
        let p = parse("Text\n\n# Late\n", true);
        assert!(p.title_heading.is_none());
    }

    #[test]
    fn a_heading_of_one_code_span_is_code() {
        let code = |markdown: &str, syntax| {
            super::parse(&mdx::parse(markdown, syntax), false).sections[1]
                .heading
                .as_ref()
                .map(|h| h.code)
        };
        for syntax in [mdx::Syntax::Mdx, mdx::Syntax::CommonMark] {
            assert_eq!(
                code("### `future` {#future}\n\nText.\n", syntax),
                Some(true)
            );
            assert_eq!(code("## `url`\n\nText.\n", syntax), Some(true));
            assert_eq!(code("## The `url` option\n\nText.\n", syntax), Some(false));
            assert_eq!(code("## `a` and `b`\n\nText.\n", syntax), Some(false));
            assert_eq!(code("## future\n\nText.\n", syntax), Some(false));
        }
        assert_eq!(
            code("## `url` {/* #the-url */}\n\nText.\n", mdx::Syntax::Mdx),
            Some(true)
        );
    }

    #[test]
    fn setext_and_inline_markup_in_headings() {
        let p = parse(
            "Setext *two*\nlines\n---\n\n## `code` here [link](x) ![alt](y)\n",
            false,
        );
        assert_eq!(
            headings(&p),
            vec![
                (2, "Setext two\nlines".into()),
                (2, "code here link alt".into())
            ]
        );
    }

    #[test]
    fn headings_in_code_are_not_headings() {
        let p = parse("```md\n## Not a heading\n```\n\n## Real\n", false);
        assert_eq!(headings(&p), vec![(2, "Real".into())]);
        assert!(p.sections[0].has_code);
        assert_eq!(p.sections[0].text, "```md\n## Not a heading\n```");
        assert!(!p.sections[1].has_code);
    }

    #[test]
    fn renders_readable_text() {
        let md = "Some **bold** and _em_ and [a link](http://x) and `code` and ![alt text](i.png).\n\n- one\n- two\n  1. nested\n  2. more\n\n| a | b |\n|---|---|\n| 1 | **2** |\n\n> quoted\n\n- [x] done\n";
        let p = parse(md, false);
        let t = &p.sections[0].text;
        assert!(
            t.contains("Some bold and em and a link and `code` and alt text."),
            "{t}"
        );
        assert!(t.contains("- one\n- two\n  1. nested\n  2. more"), "{t}");
        assert!(t.contains("a | b\n1 | 2"), "{t}");
        assert!(t.contains("quoted"));
        assert!(t.contains("- [x] done"), "{t}");
        assert!(!p.sections[0].has_code);
    }

    #[test]
    fn code_blocks_keep_language_and_fences() {
        let p = parse("```python title=\"x.py\"\nprint('```')\n```\n", false);
        assert_eq!(p.sections[0].text, "````python\nprint('```')\n````");
        assert!(p.sections[0].has_code);
        // indented code is plain text (MDX has no indented code)
        let p = parse("Para\n\n    indented line\n", false);
        assert_eq!(p.sections[0].text, "Para\n\nindented line");
        assert!(!p.sections[0].has_code);
        // unclosed fence runs to the end, no panic
        let p = parse("```js\nlet a = 1;\n", false);
        assert!(p.sections[0].has_code);
        assert!(p.sections[0].text.contains("let a = 1;"));
    }

    #[test]
    fn jsx_expressions_and_esm() {
        let p = parse(
            "import X from 'x';\n\n## Foo <Badge text=\"new\"/>\n\n## Hi {x} {#custom}\n\nHello{' '}world {props.x} and {\"s\"} {/* c */}.\n\n<details>\n<summary>Toggle me!</summary>\n<div>\nDetailed content\n</div>\n</details>\n\na<br/>b <img src=\"r.png\" alt=\"A robot\" />\n",
            false,
        );
        assert_eq!(
            headings(&p),
            vec![(2, "Foo ".into()), (2, "Hi x {#custom}".into())]
        );
        let t = &p.sections[2].text;
        assert!(t.starts_with("Hello world  and s ."), "{t}");
        // The summary's click words are not book text.
        assert!(t.contains("s .\n\nDetailed content"), "{t:?}");
        assert!(!t.contains("Toggle me"), "{t:?}");
        assert!(t.contains("a b A robot"), "{t:?}");
        assert!(!p.sections[0].text.contains("import"));
    }

    #[test]
    fn a_summary_is_a_label_without_its_click_words() {
        let page = |summary: &str| {
            let p = parse(
                &format!("<details>\n<summary>{summary}</summary>\n\nHidden text.\n\n</details>\n"),
                false,
            );
            p.sections[0].text.clone()
        };
        assert_eq!(
            page("Use <b>--info</b> commands to see how a config was composed (<b>Expand</b>)"),
            "Use --info commands to see how a config was composed\n\nHidden text."
        );
        assert_eq!(
            page("my_app.py (Click to expand)"),
            "my_app.py\n\nHidden text."
        );
        for ui in [
            "Show Answer",
            "Click to reveal hints",
            "Click to show an example",
            "Toggle me!",
        ] {
            assert_eq!(page(ui), "Hidden text.", "{ui}");
        }
        assert_eq!(
            page("Example for range override"),
            "Example for range override\n\nHidden text."
        );
    }

    #[test]
    fn html_in_commonmark_keeps_its_words() {
        let tree = mdx::parse(
            "<div>\n<b>Bold</b> text <!-- hidden -->\n</div>\n\nimport x {a}\n",
            mdx::Syntax::CommonMark,
        );
        let p = super::parse(&tree, false);
        assert_eq!(p.sections[0].text, "Bold text\n\nimport x {a}");
    }
}

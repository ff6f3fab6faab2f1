//! Split cleaned Markdown (the output of [`super::mdx::clean`]) into heading sections with
//! readable text, using `pulldown-cmark`.
//!
//! Parser options: tables, footnotes, strikethrough and task lists (remark-gfm, which
//! Docusaurus enables). Heading attributes are deliberately NOT enabled: pulldown's
//! `{#id .class key=val}` grammar differs from Docusaurus' rule (a trailing `{#id}`, any
//! characters, read from the heading's plain text), so the heading text keeps `{#id}` and
//! `super::read_page` applies Docusaurus' rule itself.
//!
//! Text rendering: emphasis markers dropped, links become their text, images their alt
//! text, inline code keeps its backticks, list items get `- ` / `1. ` markers, table rows
//! become `a | b | c` lines, fenced code is re-emitted as a fence with its language.
//! Indented code blocks are read as plain text: MDX (and so Docusaurus 3) has no indented
//! code, so four-space-indented lines there are ordinary paragraphs.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// A heading as found in the Markdown, before anchors are assigned.
#[derive(Debug, Clone, PartialEq)]
pub struct RawHeading {
    /// 1..=6.
    pub level: u8,
    /// The heading's text as `mdast-util-to-string` gives it (inline code unwrapped, soft
    /// line breaks kept as `\n`, removed inline tags as the private-use sentinel). The
    /// `{#id}` suffix, if any, is still there.
    pub raw: String,
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
    Heading(u8, String, bool),
    Cell,
    Code(String, String),
}

struct Builder {
    sections: Vec<RawSection>,
    title_heading: Option<RawHeading>,
    target: Target,
    cell: String,
    row: Vec<String>,
    lists: Vec<Option<u64>>,
    seen_block: bool,
    want_title: bool,
}

/// Parse cleaned Markdown. When `title_from_h1` is true and the first block is an H1, that
/// heading is returned as `title_heading` instead of starting a section.
pub fn parse(markdown: &str, title_from_h1: bool) -> Parsed {
    let opts = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS;
    let mut b = Builder {
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
        seen_block: false,
        want_title: title_from_h1,
    };
    for event in Parser::new_ext(markdown, opts) {
        b.event(event);
    }
    for s in &mut b.sections {
        s.text = tidy(&s.text);
    }
    Parsed {
        title_heading: b.title_heading,
        sections: b.sections,
    }
}

impl Builder {
    fn body(&mut self) -> &mut RawSection {
        // `sections` always holds at least the page-top section.
        let last = self.sections.len() - 1;
        &mut self.sections[last]
    }

    fn push(&mut self, s: &str) {
        match &mut self.target {
            Target::Body => self.body().text.push_str(s),
            Target::Heading(_, text, _) => text.push_str(s),
            Target::Cell => self.cell.push_str(s),
            Target::Code(_, code) => code.push_str(s),
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

    fn event(&mut self, event: Event<'_>) {
        let first_block = !self.seen_block;
        if matches!(event, Event::Start(_) | Event::Rule | Event::Html(_)) {
            self.seen_block = true;
        }
        match event {
            Event::Start(tag) => self.start(tag, first_block),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => self.push(&t),
            Event::Code(c) => {
                if matches!(self.target, Target::Heading(..)) {
                    self.push(&c);
                } else {
                    let ticks = if c.contains('`') { "``" } else { "`" };
                    let pad = if c.starts_with('`') || c.ends_with('`') {
                        " "
                    } else {
                        ""
                    };
                    self.push(&format!("{ticks}{pad}{c}{pad}{ticks}"));
                }
            }
            Event::InlineMath(m) | Event::DisplayMath(m) => self.push(&m),
            Event::Html(_) => {}
            Event::InlineHtml(_) => {
                if matches!(self.target, Target::Heading(..)) {
                    self.push(&super::mdx::SENTINEL.to_string());
                }
            }
            Event::FootnoteReference(_) => {}
            Event::SoftBreak => self.push("\n"),
            Event::HardBreak => {
                if !matches!(self.target, Target::Heading(..)) {
                    self.push("\n");
                }
            }
            Event::Rule => self.blank_line(),
            Event::TaskListMarker(done) => self.push(if done { "[x] " } else { "[ ] " }),
        }
    }

    fn start(&mut self, tag: Tag<'_>, first_block: bool) {
        match tag {
            Tag::Heading { level, .. } => {
                let is_title = first_block && self.want_title && level == HeadingLevel::H1;
                self.target = Target::Heading(level as u8, String::new(), is_title);
            }
            Tag::Paragraph => {
                if self.lists.is_empty() {
                    self.blank_line();
                } else {
                    self.newline();
                }
            }
            Tag::CodeBlock(CodeBlockKind::Fenced(info)) => {
                self.blank_line();
                let lang = info.split_whitespace().next().unwrap_or("").to_string();
                self.target = Target::Code(lang, String::new());
            }
            Tag::CodeBlock(CodeBlockKind::Indented) => self.blank_line(),
            Tag::List(start) => {
                self.newline();
                self.lists.push(start);
            }
            Tag::Item => {
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
            }
            Tag::Table(_) => self.blank_line(),
            Tag::TableHead | Tag::TableRow => self.row.clear(),
            Tag::TableCell => {
                self.cell.clear();
                self.target = Target::Cell;
            }
            Tag::BlockQuote(_) | Tag::FootnoteDefinition(_) | Tag::HtmlBlock => self.blank_line(),
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(_) => {
                if let Target::Heading(level, raw, is_title) =
                    std::mem::replace(&mut self.target, Target::Body)
                {
                    let heading = RawHeading { level, raw };
                    if is_title {
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
            TagEnd::Paragraph => {
                if self.lists.is_empty() {
                    self.blank_line();
                } else {
                    self.newline();
                }
            }
            TagEnd::CodeBlock => {
                if let Target::Code(lang, code) = std::mem::replace(&mut self.target, Target::Body)
                {
                    let longest = longest_backtick_run(&code);
                    let fence = "`".repeat(longest.max(2) + 1);
                    let body = self.body();
                    body.has_code = true;
                    body.text.push_str(&format!("{fence}{lang}\n{code}"));
                    if !code.is_empty() && !code.ends_with('\n') {
                        body.text.push('\n');
                    }
                    body.text.push_str(&fence);
                    body.text.push('\n');
                }
                self.blank_line();
            }
            TagEnd::List(_) => {
                self.lists.pop();
                if self.lists.is_empty() {
                    self.blank_line();
                } else {
                    self.newline();
                }
            }
            TagEnd::Item => self.newline(),
            TagEnd::TableCell => {
                self.target = Target::Body;
                let cell = std::mem::take(&mut self.cell);
                self.row
                    .push(cell.split_whitespace().collect::<Vec<_>>().join(" "));
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                let line = self.row.join(" | ");
                self.row.clear();
                self.push(&line);
                self.push("\n");
            }
            TagEnd::Table | TagEnd::BlockQuote(_) | TagEnd::FootnoteDefinition => self.blank_line(),
            _ => {}
        }
    }
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

/// Drop sentinels and trailing spaces, collapse runs of blank lines, trim. Lines inside
/// code fences are kept as they are (apart from the sentinel, which never occurs there).
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank_run = 0;
    let mut fence: Option<usize> = None;
    for line in text.split('\n') {
        let line: String = line
            .chars()
            .filter(|&c| c != super::mdx::SENTINEL)
            .collect();
        let ticks = line.bytes().take_while(|&b| b == b'`').count();
        if let Some(n) = fence {
            out.push_str(&line);
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
    use super::*;

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
    fn sentinel_is_kept_in_raw_heading_but_not_in_text() {
        let s = super::super::mdx::SENTINEL;
        let p = parse(&format!("## Foo {s}\n\nBody {s} x\n"), false);
        assert_eq!(headings(&p), vec![(2, format!("Foo {s}"))]);
        assert_eq!(p.sections[1].text, "Body  x");
    }
}

//! MDX pre-pass: turns a Docusaurus MDX body into plain CommonMark that `pulldown-cmark`
//! can parse, removing MDX-only syntax while keeping the words a reader sees.
//!
//! Hand-written. The `markdown` crate (1.x, `ParseOptions::mdx()`) does parse MDX's JSX, ESM
//! and expressions (it accepts every page of the four shared books and the sample book), but it
//! yields a tree, not the CommonMark this pass hands to `pulldown-cmark`; it reads
//! ```` ```mdx-code-block ```` content as code and `:::` admonitions as text; and it rejects a
//! whole page at the first construct MDX does not allow, where this pass keeps the words around
//! it. Moving the JSX/ESM/expression removal onto its positions, with identical routes, anchors
//! and chunk texts, is open work. We only need to *remove* MDX syntax, not evaluate it. What this
//! pass does, outside fenced code blocks (whose content is copied untouched):
//!
//! * `import` / `export` blocks (MDX ESM): from a line starting with `import`/`export` at
//!   column 0 up to the next blank line, which is exactly where MDX ends an ESM block.
//! * ```` ```mdx-code-block ```` fences are unwrapped (Docusaurus `unwrapMdxCodeBlocks`):
//!   their content is MDX, not code.
//! * HTML comments `<!-- -->` and MDX comments `{/* */}` are removed.
//! * JSX / HTML tags (`<Tabs>`, `<TabItem value="x">`, `<details>`, `<Foo />`, also over
//!   several lines) are removed and their children kept. A line that held only tags becomes
//!   a blank line so the text around it forms separate paragraphs. `<img alt="x">` keeps
//!   its alt text; `<br>` becomes a space.
//! * `{expressions}`: string literals (`{' '}`) keep their text, other expressions are
//!   dropped — except in headings, where their source text is kept, because Docusaurus
//!   builds heading anchors from `mdast-util-to-string`, which includes it.
//!   `{#custom-id}` is left alone for the heading-id rule.
//! * Admonitions `:::tip Title`, `:::note[Title]` and the closing `:::` become a paragraph
//!   `Tip: Title` (or `Tip:`) and blank lines; the body stays.
//! * Fences indented 4+ spaces (legal in MDX, which has no indented code) are moved left so
//!   CommonMark still sees a fence.
//!
//! Inline code spans and backslash escapes are copied untouched, so `` `<Tabs>` `` survives.
//! In headings, removed tags are replaced with U+E000 (private use: dropped by the slugger
//! and from all output) so that spaces around an inline tag are kept, as they are in
//! Docusaurus' anchor text (`## Foo <Badge/>` → anchor `foo-`).
//!
//! Every look-ahead (tag, expression, comment, code span) draws from a byte budget
//! proportional to the input, so hostile input cannot make this quadratic.

/// Private-use character standing in for removed inline syntax inside headings.
pub const SENTINEL: char = '\u{E000}';

/// Which syntax the body is written in (Docusaurus `markdown.format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Syntax {
    /// MDX (Docusaurus 3 default for `.md` and `.mdx`): ESM and `{expressions}` exist.
    #[default]
    Mdx,
    /// CommonMark (`.md` files under `format: 'detect'`): `import` lines and braces are text.
    CommonMark,
}

/// Result of the pre-pass.
#[derive(Debug, Clone, PartialEq)]
pub struct Cleaned {
    /// CommonMark text for pulldown-cmark.
    pub markdown: String,
    /// Problems found, as (0-based line in the body, message).
    pub problems: Vec<(usize, String)>,
}

/// Run the pre-pass over a page body (front matter already removed, LF line endings).
pub fn clean(body: &str, syntax: Syntax) -> Cleaned {
    let mut c = Cleaner {
        src: body,
        out: String::with_capacity(body.len() + 64),
        budget: body.len().saturating_mul(32).saturating_add(1 << 16),
        comment_fails_from: None,
        syntax,
        problems: Vec::new(),
    };
    c.run();
    Cleaned {
        markdown: c.out,
        problems: c.problems,
    }
}

struct Fence {
    ch: u8,
    len: usize,
    dedent: usize,
    start: usize,
}

struct Tag<'a> {
    end: usize,
    name: &'a str,
    alt: Option<&'a str>,
}

struct Cleaner<'a> {
    src: &'a str,
    out: String,
    budget: usize,
    /// Position from which no `-->` exists any more (a search from there failed).
    comment_fails_from: Option<usize>,
    syntax: Syntax,
    problems: Vec<(usize, String)>,
}

impl<'a> Cleaner<'a> {
    fn run(&mut self) {
        let src = self.src;
        let mut pos = 0;
        let mut fence: Option<Fence> = None;
        let mut mdx_wrappers: Vec<usize> = Vec::new();
        let mut in_math = false;
        let mut in_esm = false;
        let mut prev_blank = true;
        while pos < src.len() {
            let line_end = src[pos..].find('\n').map_or(src.len(), |i| pos + i);
            let next = (line_end + 1).min(src.len());
            let line = &src[pos..line_end];

            if let Some(f) = &fence {
                let (_, rest) = split_prefix(line);
                let closes = is_closing_fence(rest, f.ch, f.len);
                self.out.push_str(dedent(line, f.dedent));
                self.out.push('\n');
                if closes {
                    fence = None;
                    prev_blank = true;
                }
                pos = next;
                continue;
            }
            if in_math {
                self.out.push_str(line);
                self.out.push('\n');
                if line.trim() == "$$" {
                    in_math = false;
                }
                pos = next;
                continue;
            }
            if in_esm {
                if line.trim().is_empty() {
                    in_esm = false;
                    self.out.push('\n');
                    prev_blank = true;
                }
                pos = next;
                continue;
            }

            let (prefix, rest) = split_prefix(line);
            // The closer of an unwrapped ```mdx-code-block (checked before fences, since a
            // bare ``` would otherwise open a new code block).
            if let Some(&n) = mdx_wrappers.last() {
                if rest.trim_end().len() == n && rest.bytes().take(n).all(|b| b == b'`') {
                    mdx_wrappers.pop();
                    pos = next;
                    continue;
                }
            }
            if let Some((ch, len, info)) = fence_open(strip_list_markers(rest)) {
                if ch == b'`' && info.trim() == "mdx-code-block" {
                    mdx_wrappers.push(len);
                    pos = next;
                    continue;
                }
                let indent = line.len() - line.trim_start_matches(' ').len();
                let dedent_by = if prefix.contains('>') {
                    0
                } else {
                    indent.saturating_sub(3)
                };
                fence = Some(Fence {
                    ch,
                    len,
                    dedent: dedent_by,
                    start: pos,
                });
                self.out.push_str(dedent(line, dedent_by));
                self.out.push('\n');
                prev_blank = false;
                pos = next;
                continue;
            }
            if rest.trim_end() == "$$" {
                in_math = true;
                self.out.push_str(line);
                self.out.push('\n');
                prev_blank = false;
                pos = next;
                continue;
            }
            if self.syntax == Syntax::Mdx && prev_blank && prefix.is_empty() && is_esm_start(line) {
                in_esm = true;
                pos = next;
                continue;
            }
            if let Some(text) = admonition(rest) {
                let p = prefix.trim_end();
                self.out.push_str(p);
                self.out.push('\n');
                if !text.is_empty() {
                    self.out.push_str(prefix);
                    self.out.push_str(&text);
                    self.out.push('\n');
                    self.out.push_str(p);
                    self.out.push('\n');
                }
                prev_blank = true;
                pos = next;
                continue;
            }
            let heading = is_atx_heading(rest);
            let (end, blank) = self.text_line(pos, line_end, heading);
            // ESM may start after a blank line or a heading (both end a block).
            prev_blank = blank || heading;
            pos = end;
        }
        if let Some(f) = fence {
            let line = src[..f.start].matches('\n').count();
            self.problems.push((
                line,
                "code fence is never closed; the rest of the page is read as code".into(),
            ));
        }
    }

    /// Copy one line of ordinary text, removing MDX syntax. Constructs may run over several
    /// lines; returns (position after the last consumed line, whether the emitted line is blank).
    fn text_line(&mut self, start: usize, first_line_end: usize, heading: bool) -> (usize, bool) {
        let src = self.src;
        let bytes = src.as_bytes();
        let mut line_end = first_line_end;
        let mut line_out = String::new();
        let mut removed = false;
        let mut i = start;
        while i < line_end {
            let b = bytes[i];
            match b {
                b'\\' => {
                    let ch_len = src[i + 1..].chars().next().map_or(0, char::len_utf8);
                    let take = if i + 1 < line_end { 1 + ch_len } else { 1 };
                    line_out.push_str(&src[i..i + take]);
                    i += take;
                }
                b'`' => {
                    let run = src[i..].bytes().take_while(|&c| c == b'`').count();
                    match self.find_code_span_end(i + run, run) {
                        Some(end) => {
                            line_out.push_str(&src[i..end]);
                            i = end;
                            line_end = line_end.max(end_of_line(src, end));
                        }
                        None => {
                            line_out.push_str(&src[i..i + run]);
                            i += run;
                        }
                    }
                }
                b'<' => {
                    if src[i..].starts_with("<!--") {
                        if let Some(end) = self.find_comment_end(i) {
                            removed = true;
                            i = end;
                            line_end = line_end.max(end_of_line(src, end));
                            continue;
                        }
                    } else if let Some(tag) = self.scan_tag(i) {
                        removed = true;
                        if heading {
                            line_out.push(SENTINEL);
                        } else if let Some(alt) = tag.alt {
                            line_out.push_str(alt);
                        } else if tag.name.eq_ignore_ascii_case("br")
                            || tag.name.eq_ignore_ascii_case("hr")
                        {
                            line_out.push(' ');
                        }
                        i = tag.end;
                        line_end = line_end.max(end_of_line(src, tag.end));
                        continue;
                    }
                    line_out.push('<');
                    i += 1;
                }
                b'{' if self.syntax == Syntax::Mdx && !src[i..].starts_with("{#") => {
                    match self.scan_expression(i) {
                        Some(end) => {
                            let inner = &src[i + 1..end - 1];
                            let trimmed = inner.trim();
                            if let Some(s) = string_literal(trimmed) {
                                line_out.push_str(s);
                            } else if is_js_comment(trimmed) {
                                removed = true;
                            } else if heading {
                                line_out.push_str(trimmed);
                            } else {
                                removed = true;
                            }
                            i = end;
                            line_end = line_end.max(end_of_line(src, end));
                        }
                        None => {
                            line_out.push('{');
                            i += 1;
                        }
                    }
                }
                _ => {
                    let ch_len = src[i..].chars().next().map_or(1, char::len_utf8);
                    line_out.push_str(&src[i..i + ch_len]);
                    i += ch_len;
                }
            }
        }
        let content = line_out.trim_start_matches([' ', '\t', '>']);
        let blank = if removed && content.trim().is_empty() {
            // Keep blockquote markers so a quote is not cut in two; drop the rest.
            let keep = line_out.len() - content.len();
            self.out.push_str(line_out[..keep].trim_end());
            true
        } else {
            self.out.push_str(&line_out);
            line_out.trim().is_empty()
        };
        self.out.push('\n');
        ((line_end + 1).min(src.len()), blank)
    }

    /// Take `n` bytes of look-ahead budget; false once it is used up.
    fn spend(&mut self, n: usize) -> bool {
        if self.budget < n {
            self.budget = 0;
            return false;
        }
        self.budget -= n;
        true
    }

    /// End (exclusive) of a code span opened by `run` backticks ending at `from`: the next
    /// run of exactly `run` backticks before a blank line.
    fn find_code_span_end(&mut self, from: usize, run: usize) -> Option<usize> {
        let bytes = self.src.as_bytes();
        let mut j = from;
        let mut blank_line = true;
        while j < bytes.len() {
            if !self.spend(1) {
                return None;
            }
            match bytes[j] {
                b'`' => {
                    let n = bytes[j..].iter().take_while(|&&c| c == b'`').count();
                    if n == run {
                        return Some(j + n);
                    }
                    j += n;
                    blank_line = false;
                    continue;
                }
                b'\n' => {
                    if blank_line && j > from {
                        return None;
                    }
                    blank_line = true;
                }
                b' ' | b'\t' => {}
                _ => blank_line = false,
            }
            j += 1;
        }
        None
    }

    /// End (exclusive) of an HTML comment starting at `start` (`<!--`).
    fn find_comment_end(&mut self, start: usize) -> Option<usize> {
        if self.comment_fails_from.is_some_and(|p| p <= start) {
            return None;
        }
        match self.src[start + 4..].find("-->") {
            Some(k) => {
                self.spend(k);
                Some(start + 4 + k + 3)
            }
            None => {
                self.comment_fails_from = Some(start);
                None
            }
        }
    }

    /// A JSX/HTML tag starting at `start` (`<`), possibly over several lines.
    fn scan_tag(&mut self, start: usize) -> Option<Tag<'a>> {
        let src = self.src;
        let bytes = src.as_bytes();
        let mut j = start + 1;
        if bytes.get(j) == Some(&b'/') {
            j += 1;
        }
        let name_start = j;
        match bytes.get(j) {
            Some(c) if c.is_ascii_alphabetic() => {}
            Some(b'>') => {
                return Some(Tag {
                    end: j + 1,
                    name: "",
                    alt: None,
                })
            }
            _ => return None,
        }
        while j < bytes.len()
            && (bytes[j].is_ascii_alphanumeric() || matches!(bytes[j], b'.' | b'_' | b'-' | b':'))
        {
            j += 1;
        }
        let name = &src[name_start..j];
        // `<https://x>` is an autolink and `<a@b.c>` an e-mail autolink, not tags.
        if name.contains(':') || bytes.get(j) == Some(&b'@') {
            return None;
        }
        let mut alt = None;
        let mut newlines_in_a_row = 0;
        loop {
            if !self.spend(1) {
                return None;
            }
            let c = *bytes.get(j)?;
            match c {
                b'\n' => {
                    newlines_in_a_row += 1;
                    if newlines_in_a_row > 1 {
                        return None;
                    }
                    j += 1;
                }
                b' ' | b'\t' | b'\r' => j += 1,
                b'>' => {
                    return Some(Tag {
                        end: j + 1,
                        name,
                        alt,
                    })
                }
                b'/' => {
                    return (bytes.get(j + 1) == Some(&b'>')).then_some(Tag {
                        end: j + 2,
                        name,
                        alt,
                    })
                }
                b'{' => {
                    newlines_in_a_row = 0;
                    j = self.scan_expression(j)?;
                }
                b'=' | b'"' | b'\'' | b'<' | b'}' => return None,
                _ => {
                    newlines_in_a_row = 0;
                    let attr_start = j;
                    while j < bytes.len()
                        && !bytes[j].is_ascii_whitespace()
                        && !matches!(bytes[j], b'=' | b'>' | b'/' | b'{' | b'"' | b'\'' | b'<')
                    {
                        j += 1;
                    }
                    let attr = &src[attr_start..j];
                    while bytes.get(j).is_some_and(|b| *b == b' ' || *b == b'\t') {
                        j += 1;
                    }
                    if bytes.get(j) != Some(&b'=') {
                        continue;
                    }
                    j += 1;
                    while bytes.get(j).is_some_and(|b| b.is_ascii_whitespace()) {
                        j += 1;
                    }
                    match bytes.get(j) {
                        Some(&q @ (b'"' | b'\'')) => {
                            let Some(close) = src[j + 1..].find(q as char) else {
                                self.spend(src.len() - j);
                                return None;
                            };
                            if !self.spend(close) {
                                return None;
                            }
                            let value = &src[j + 1..j + 1 + close];
                            if attr == "alt" && name.eq_ignore_ascii_case("img") {
                                alt = Some(value);
                            }
                            j += close + 2;
                        }
                        Some(b'{') => j = self.scan_expression(j)?,
                        _ => return None,
                    }
                }
            }
        }
    }

    /// End (exclusive) of a balanced `{...}` JavaScript expression starting at `start`,
    /// skipping strings, template literals and comments.
    fn scan_expression(&mut self, start: usize) -> Option<usize> {
        let bytes = self.src.as_bytes();
        let mut depth = 0usize;
        let mut j = start;
        while j < bytes.len() {
            if !self.spend(1) {
                return None;
            }
            match bytes[j] {
                b'{' => depth += 1,
                b'}' => {
                    depth = depth.checked_sub(1)?;
                    if depth == 0 {
                        return Some(j + 1);
                    }
                }
                q @ (b'"' | b'\'' | b'`') => {
                    j += 1;
                    while j < bytes.len() && bytes[j] != q {
                        if !self.spend(1) || (q != b'`' && bytes[j] == b'\n') {
                            return None;
                        }
                        if bytes[j] == b'\\' {
                            j += 1;
                        }
                        j += 1;
                    }
                }
                b'/' if bytes.get(j + 1) == Some(&b'*') => {
                    let Some(k) = self.src[j + 2..].find("*/") else {
                        self.spend(self.src.len() - j);
                        return None;
                    };
                    if !self.spend(k) {
                        return None;
                    }
                    j += 2 + k + 1;
                }
                _ => {}
            }
            j += 1;
        }
        None
    }
}

/// Leading blockquote markers and indentation, and the rest of the line.
fn split_prefix(line: &str) -> (&str, &str) {
    let rest = line.trim_start_matches([' ', '\t', '>']);
    (&line[..line.len() - rest.len()], rest)
}

/// Remove up to `n` leading spaces.
fn dedent(line: &str, n: usize) -> &str {
    let spaces = line.bytes().take(n).take_while(|&b| b == b' ').count();
    &line[spaces..]
}

/// Position of the first `\n` at or after `pos` (or the end of input).
fn end_of_line(src: &str, pos: usize) -> usize {
    src[pos..].find('\n').map_or(src.len(), |i| pos + i)
}

/// Skip list markers (`- `, `* `, `+ `, `1. `, `1) `) so `- ```js` is seen as a fence.
fn strip_list_markers(mut rest: &str) -> &str {
    loop {
        let b = rest.as_bytes();
        let marker_len = match b.first() {
            Some(b'-' | b'*' | b'+') => 1,
            Some(c) if c.is_ascii_digit() => {
                let digits = b.iter().take(10).take_while(|c| c.is_ascii_digit()).count();
                match b.get(digits) {
                    Some(b'.' | b')') => digits + 1,
                    _ => return rest,
                }
            }
            _ => return rest,
        };
        match b.get(marker_len) {
            Some(b' ' | b'\t') => rest = rest[marker_len..].trim_start_matches([' ', '\t']),
            _ => return rest,
        }
    }
}

/// An opening code fence: (fence char, length, info string).
fn fence_open(rest: &str) -> Option<(u8, usize, &str)> {
    let ch = *rest.as_bytes().first()?;
    if ch != b'`' && ch != b'~' {
        return None;
    }
    let len = rest.bytes().take_while(|&b| b == ch).count();
    if len < 3 {
        return None;
    }
    let info = &rest[len..];
    if ch == b'`' && info.contains('`') {
        return None;
    }
    Some((ch, len, info))
}

fn is_closing_fence(rest: &str, ch: u8, len: usize) -> bool {
    let run = rest.bytes().take_while(|&b| b == ch).count();
    run >= len && rest[run..].trim().is_empty()
}

fn is_atx_heading(rest: &str) -> bool {
    let hashes = rest.bytes().take_while(|&b| b == b'#').count();
    (1..=6).contains(&hashes) && matches!(rest.as_bytes().get(hashes), None | Some(b' ' | b'\t'))
}

/// MDX ESM starts with `import` or `export` followed by whitespace, `{` or `*`.
fn is_esm_start(line: &str) -> bool {
    ["import", "export"].iter().any(|kw| {
        line.strip_prefix(kw)
            .and_then(|r| r.chars().next())
            .is_some_and(|c| c.is_whitespace() || c == '{' || c == '*')
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    fn md(s: &str) -> String {
        clean(s, Syntax::Mdx).markdown
    }

    #[test]
    fn removes_imports_and_exports() {
        let src = "import Tabs from '@theme/Tabs';\nimport {\n  A,\n  B,\n} from 'x';\n\nexport const toc = [\n  {a: 1},\n];\n\nText stays.\n";
        let out = md(src);
        assert!(!out.contains("import"), "{out}");
        assert!(!out.contains("export"), "{out}");
        assert!(out.contains("Text stays."));
        // `import` in the middle of a paragraph or inside code is text.
        let out = md("Some text\nimport x from 'y'\n\n```js\nimport a from 'b'\n```\n");
        assert!(out.contains("import x from 'y'"), "{out}");
        assert!(out.contains("import a from 'b'"), "{out}");
        // In CommonMark mode import lines are just text.
        let out = clean("import x from 'y'\n", Syntax::CommonMark).markdown;
        assert!(out.contains("import x"));
        // "important" is not an import.
        assert!(md("important note\n").contains("important note"));
    }

    #[test]
    fn removes_comments() {
        let out =
            md("a <!-- hidden --> b\n<!--\nmulti\nline\n-->\nc {/* gone */} d\n{/*\nblock\n*/}\n");
        assert!(!out.contains("hidden") && !out.contains("multi") && !out.contains("gone"));
        assert!(!out.contains("block"), "{out}");
        assert!(out.contains("a  b") && out.contains("c  d"), "{out}");
        // Comment syntax inside inline code is kept.
        let out = md("Use `<!-- truncate -->` here\n");
        assert!(out.contains("`<!-- truncate -->`"), "{out}");
        // Unclosed comment: kept as text, no panic.
        assert!(md("x <!-- never closed\n").contains("never closed"));
    }

    #[test]
    fn strips_jsx_keeps_children() {
        let src = "<Tabs>\n  <TabItem value=\"apple\" label=\"Apple\" default>\n\nThis is an apple.\n\n  </TabItem>\n</Tabs>\n";
        let out = md(src);
        assert!(out.contains("This is an apple."));
        assert!(!out.contains('<') && !out.contains("value="), "{out}");
        // multi-line opening tag with expression attribute
        let out = md(
            "<BrowserWindow\n  url=\"http://x\"\n  style={{a: '>'}}>\nInside\n</BrowserWindow>\n",
        );
        assert_eq!(out.trim(), "Inside", "{out}");
        // details/summary
        let out = md("<details>\n<summary>Toggle me!</summary>\n<div>\nDetailed content\n</div>\n</details>\n");
        assert!(out.contains("Toggle me!\n\nDetailed content"), "{out:?}");
        // self-closing, br, img alt
        let out = md("a<br/>b <Badge text=\"x\"/> <img src=\"r.png\" alt=\"A robot\" />\n");
        assert!(
            out.contains("a b") && out.contains("A robot") && !out.contains("Badge"),
            "{out}"
        );
        // tags inside inline code stay
        assert!(md("Use `<Tabs>` here\n").contains("`<Tabs>`"));
        // autolinks, comparisons and generics-looking text that is not a tag
        let out = md("See <https://example.com> and a < b and <me@x.org>\n");
        assert!(
            out.contains("<https://example.com>") && out.contains("a < b"),
            "{out}"
        );
        assert!(out.contains("<me@x.org>"), "{out}");
    }

    #[test]
    fn expressions() {
        let out = md("Hello{' '}world {props.x} and {\"s\"}\n");
        assert_eq!(out.trim(), "Hello world  and s");
        // headings keep expression source text (mdast-util-to-string) and custom ids
        let out = md("## Hi {x} {#custom}\n");
        assert_eq!(out.trim(), "## Hi x {#custom}");
        // in CommonMark mode braces are text
        assert_eq!(
            clean("a {b} c\n", Syntax::CommonMark).markdown.trim(),
            "a {b} c"
        );
        // escaped braces are text
        assert_eq!(md("a \\{b} c\n").trim(), "a \\{b} c");
        // unbalanced brace is kept
        assert_eq!(md("a { b\n").trim(), "a { b");
    }

    #[test]
    fn heading_tags_become_sentinels() {
        let out = md("## Foo <Badge text=\"new\"/>\n");
        assert_eq!(out.trim(), format!("## Foo {SENTINEL}"));
    }

    #[test]
    fn admonitions() {
        let out = md(":::tip How to upgrade\n\nDo this.\n\n:::\n");
        assert!(out.contains("Tip: How to upgrade\n"), "{out}");
        assert!(out.contains("Do this."));
        assert!(!out.contains(":::"), "{out}");
        let out = md(":::note[Your Title **with** _Markdown_]\nBody\n:::\n");
        assert!(
            out.contains("Note: Your Title **with** _Markdown_\n"),
            "{out}"
        );
        let out = md(":::::info Parent\n::::danger Child\nx\n::::\n:::::\n");
        assert!(
            out.contains("Info: Parent") && out.contains("Danger: Child"),
            "{out}"
        );
        assert!(!out.contains(':'.to_string().repeat(3).as_str()));
        let out = md(":::warning\nBe careful\n:::\n");
        assert!(out.contains("Warning:\n"), "{out}");
        // inside a blockquote
        let out = md("> :::tip Quoted\n> body\n> :::\n");
        assert!(out.contains("> Tip: Quoted"), "{out}");
        // `::` and `:::` in code are untouched
        let out = md("```\n:::tip x\n```\n");
        assert!(out.contains(":::tip x"));
    }

    #[test]
    fn code_fences() {
        let src = "```jsx title=\"x.js\"\n<Tabs>{a}</Tabs>\nimport x from 'y'\n<!-- c -->\n```\n";
        assert_eq!(md(src), src, "fenced code is copied untouched");
        // longer fences and tildes
        let src = "````md\n```js\ninner\n```\n````\n~~~\n<b>\n~~~\n";
        assert_eq!(md(src), src);
        // mdx-code-block is unwrapped and processed as MDX
        let out =
            md("```mdx-code-block\nimport A from 'a';\n\n<A>\n\nInside\n\n</A>\n```\nAfter\n");
        assert!(
            !out.contains("mdx-code-block") && !out.contains("import"),
            "{out}"
        );
        assert!(
            out.contains("Inside") && out.contains("After") && !out.contains("```"),
            "{out}"
        );
        // deeply indented fences (legal in MDX) are moved left to column 3
        let out = md("<TabItem>\n        ```bash\n        npm i\n        ```\n</TabItem>\n");
        assert!(out.contains("   ```bash\n   npm i\n   ```\n"), "{out:?}");
    }

    #[test]
    fn unclosed_fence_is_reported() {
        let c = clean("text\n\n```python\nprint(1)\n", Syntax::Mdx);
        assert_eq!(c.problems.len(), 1);
        assert_eq!(c.problems[0].0, 2);
        assert!(c.markdown.contains("print(1)"));
    }

    #[test]
    fn math_blocks_keep_braces() {
        let out = md("$$\nx^{2}\n$$\n");
        assert!(out.contains("x^{2}"));
    }

    #[test]
    fn hostile_input_is_linear_and_safe() {
        for unit in [
            "<a ", "{", "`", "<!--", "{/*", "<", "<a b={", "\\", ":::", "```",
        ] {
            let s = unit.repeat(200_000 / unit.len());
            let t = std::time::Instant::now();
            let _ = clean(&s, Syntax::Mdx);
            assert!(t.elapsed().as_secs() < 5, "{unit:?} too slow");
        }
        // multi-byte characters around every construct
        let _ = clean("é<é{é`é\\é<!--é", Syntax::Mdx);
        let _ = clean("\\", Syntax::Mdx);
        let _ = clean("<", Syntax::Mdx);
        let _ = clean("{", Syntax::Mdx);
    }
}

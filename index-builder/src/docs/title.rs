//! The "content title" of a doc, as Docusaurus 3 finds it (`@docusaurus/utils`
//! `parseMarkdownContentTitle`): an `# H1` (or setext `===` H1) at the very start of the
//! body, after any leading `import` blocks. Used as the page title when front matter has
//! none, and that heading is then the page header rather than a section.
//!
//! Hand-written port of three small regexes that use look-ahead (unsupported by `regex`):
//! * imports: `^(?:import\s(?:.|\r?\n(?!\r?\n))*(?:\r?\n){2,})*`
//! * ATX: `^#[ \t]+(?<title>[^ \t].*)(?:\r?\n|$)`, then `\s*(?:\{#*[\w-]+\}|#+)$` removed
//! * setext: `^(?<title>.*)\r?\n=+(?:\r?\n|$)`, then `\s*=+$` removed
//!
//! and finally `` `code` `` unwrapped to `code`. Emphasis and links are NOT stripped, as in
//! Docusaurus. The body is expected with LF line endings.

/// The content title of `body` (front matter already removed), if it has one.
pub fn content_title(body: &str) -> Option<String> {
    let content = strip_leading_imports(body.trim()).trim();
    let raw = atx_title(content).or_else(|| setext_title(content))?;
    let title = unwrap_inline_code(&raw);
    Some(title.trim().to_string())
}

/// JavaScript's `.` does not match these.
fn is_js_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// The first line, if it is a clean `.*` match followed by `\n` or the end.
fn first_js_line(s: &str) -> Option<(&str, &str)> {
    let end = s.find(is_js_line_terminator).unwrap_or(s.len());
    let rest = &s[end..];
    if rest.is_empty() {
        return Some((s, ""));
    }
    let rest = rest
        .strip_prefix("\r\n")
        .or_else(|| rest.strip_prefix('\n'))?;
    Some((&s[..end], rest))
}

fn strip_leading_imports(mut s: &str) -> &str {
    loop {
        let Some(after_kw) = s.strip_prefix("import") else {
            return s;
        };
        let Some(ws) = after_kw.chars().next().filter(|c| c.is_whitespace()) else {
            return s;
        };
        let after_ws = &after_kw[ws.len_utf8()..];
        // Consume everything up to the first blank line ("\n\n"); a line terminator that is
        // not `\n` (or a block ending the file) makes the whole iteration fail.
        let Some(gap) = after_ws.find("\n\n") else {
            return s;
        };
        if after_ws[..gap].contains(['\r', '\u{2028}', '\u{2029}']) {
            return s;
        }
        s = after_ws[gap..].trim_start_matches('\n');
    }
}

fn atx_title(content: &str) -> Option<String> {
    let rest = content.strip_prefix('#')?;
    let after_ws = rest.trim_start_matches([' ', '\t']);
    if after_ws.len() == rest.len() {
        return None;
    }
    let (line, _) = first_js_line(after_ws)?;
    if line.is_empty() {
        return None;
    }
    Some(strip_atx_suffix(line.trim()).to_string())
}

/// `\s*(?:\{#*[\w-]+\}|#+)$`
fn strip_atx_suffix(t: &str) -> &str {
    let cut = if let Some(inner) = t.strip_suffix('}') {
        inner.rfind('{').and_then(|open| {
            let id = inner[open + 1..].trim_start_matches('#');
            (!id.is_empty()
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-'))
            .then_some(open)
        })
    } else {
        let hashes = t.len() - t.trim_end_matches('#').len();
        (hashes > 0).then(|| t.len() - hashes)
    };
    match cut {
        Some(k) => t[..k].trim_end(),
        None => t,
    }
}

fn setext_title(content: &str) -> Option<String> {
    let (line, rest) = first_js_line(content)?;
    let equals = rest.bytes().take_while(|&b| b == b'=').count();
    if equals == 0 {
        return None;
    }
    let after = &rest[equals..];
    if !(after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n")) {
        return None;
    }
    Some(line.trim().trim_end_matches('=').trim_end().to_string())
}

/// `` `x` `` → `x` (Docusaurus `toTextContentTitle`).
fn unwrap_inline_code(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(open) = rest.find('`') {
        let after = &rest[open + 1..];
        match after.find('`') {
            Some(close) => {
                out.push_str(&rest[..open]);
                out.push_str(&after[..close]);
                rest = &after[close + 1..];
            }
            None => break,
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Option<String> {
        content_title(s)
    }

    #[test]
    fn atx() {
        assert_eq!(t("# Hello").as_deref(), Some("Hello"));
        assert_eq!(
            t("\n\n#   Hello world  \n\nText").as_deref(),
            Some("Hello world")
        );
        assert_eq!(t("# Hello {#custom-id}\n").as_deref(), Some("Hello"));
        assert_eq!(t("# Hello ###\n").as_deref(), Some("Hello"));
        assert_eq!(t("# `config.js` file").as_deref(), Some("config.js file"));
        assert_eq!(t("# **Bold** title").as_deref(), Some("**Bold** title"));
        assert_eq!(t("#Hello"), None);
        assert_eq!(t("## Hello"), None);
        assert_eq!(t("Text\n\n# Hello"), None);
    }

    #[test]
    fn setext() {
        assert_eq!(t("Hello\n=====\n\ntext").as_deref(), Some("Hello"));
        assert_eq!(t("Hello\n="), Some("Hello".into()));
        assert_eq!(t("Hello\n---\n"), None);
        assert_eq!(t("Hello"), None);
        assert_eq!(t("Hello\n== x"), None);
    }

    #[test]
    fn after_imports() {
        let body = "import Tabs from '@theme/Tabs';\nimport X from 'x';\n\n# Title\n";
        assert_eq!(t(body).as_deref(), Some("Title"));
        let body = "import A from 'a';\n\nimport B from 'b';\n\n\n# Title\n";
        assert_eq!(t(body).as_deref(), Some("Title"));
        // An import block that is not followed by a blank line stops the stripping.
        assert_eq!(t("import A from 'a';\n# Title\n"), None);
        // Other content first: no title (Docusaurus then shows the front matter title or id).
        assert_eq!(t("<!-- c -->\n# Title"), None);
        assert_eq!(
            t("```mdx-code-block\nimport A from 'a';\n```\n\n# Title"),
            None
        );
    }

    #[test]
    fn odd_input_does_not_panic() {
        for s in [
            "",
            "#",
            "# ",
            "#\t",
            "=",
            "\n=",
            "import",
            "import ",
            "import\n\n",
            "é\n=",
            "# é\u{2028}x",
        ] {
            let _ = t(s);
        }
    }
}

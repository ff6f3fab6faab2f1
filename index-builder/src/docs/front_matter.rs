//! Front matter: splitting it off the file as `gray-matter` does, and reading the fields
//! Docusaurus docs use. YAML parsing is `yaml-rust2` (maintained, pure Rust, reports line
//! numbers, and caps flow nesting so hostile input cannot blow the stack).
//!
//! Broken front matter never stops a page: the page is read with default values and a
//! warning carrying the file line is returned.

use super::error::Warning;
use yaml_rust2::{Yaml, YamlLoader};

/// The fields of a doc's front matter that this crate uses. Unknown keys are ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FrontMatter {
    /// `id`: replaces the file name as the last segment of the doc id (and default slug).
    pub id: Option<String>,
    /// `slug`: absolute (`/x`) or relative to the doc's folder.
    pub slug: Option<String>,
    /// `title`.
    pub title: Option<String>,
    /// `sidebar_label`.
    pub sidebar_label: Option<String>,
    /// `sidebar_position`.
    pub sidebar_position: Option<f64>,
    /// `tags`: plain strings or `{label: ...}` objects.
    pub tags: Vec<String>,
    /// `description`.
    pub description: Option<String>,
    /// `chat`: `false` keeps the page out of the chat index (this project's own key).
    pub chat: Option<bool>,
    /// `draft`: drafts are not published by a production build.
    pub draft: bool,
    /// `unlisted`: published but hidden from sidebars, search and sitemap.
    pub unlisted: bool,
    /// `parse_number_prefixes` (Docusaurus default: true).
    pub parse_number_prefixes: Option<bool>,
    /// 1-based file line of each key we use, for error messages (`(key, line)`).
    pub key_lines: Vec<(String, usize)>,
}

impl FrontMatter {
    /// 1-based file line where `key` was written, if it was.
    pub fn line_of(&self, key: &str) -> Option<usize> {
        self.key_lines
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, l)| *l)
    }
}

/// A file split into its front matter block and body.
#[derive(Debug, Clone, PartialEq)]
pub struct Split<'a> {
    /// The YAML text between the `---` lines, if the file has front matter.
    pub yaml: Option<&'a str>,
    /// 1-based file line of the first YAML line.
    pub yaml_line: usize,
    /// Everything after the closing `---` line (the whole file when there is no front matter).
    pub body: &'a str,
    /// 1-based file line where `body` starts.
    pub body_line: usize,
}

/// Split front matter off `source` (already LF-normalised, BOM removed), following
/// gray-matter: the file must start with `---` (not `----`); an optional language word may
/// follow on that line; the block ends at the first later line starting with `---`.
/// An unclosed block is a warning and the whole file is treated as body.
pub fn split<'a>(source: &'a str, path: &str, warnings: &mut Vec<Warning>) -> Split<'a> {
    let no_fm = Split {
        yaml: None,
        yaml_line: 1,
        body: source,
        body_line: 1,
    };
    if !source.starts_with("---") || source[3..].starts_with('-') {
        return no_fm;
    }
    let Some(first_nl) = source.find('\n') else {
        warnings.push(Warning::new(
            path,
            Some(1),
            "front matter opened with --- but never closed; read as plain content",
        ));
        return no_fm;
    };
    let lang = source[3..first_nl].trim();
    if !lang.is_empty() && !lang.eq_ignore_ascii_case("yaml") && !lang.eq_ignore_ascii_case("yml") {
        warnings.push(Warning::new(
            path,
            Some(1),
            format!("front matter language {lang:?} is not YAML; read as YAML anyway"),
        ));
    }
    let yaml_start = first_nl + 1;
    // The closing delimiter: "\n---" searched from the opening "---" (gray-matter).
    let close = if source[yaml_start..].starts_with("---") {
        Some(first_nl)
    } else {
        source[yaml_start..].find("\n---").map(|i| yaml_start + i)
    };
    let Some(close) = close else {
        warnings.push(Warning::new(
            path,
            Some(1),
            "front matter opened with --- but never closed; read as plain content",
        ));
        return no_fm;
    };
    let yaml = if close > yaml_start {
        &source[yaml_start..close]
    } else {
        ""
    };
    // Skip the rest of the closing line (gray-matter drops "---" and the newline after it).
    let after_close = close + 1;
    let body_start = match source[after_close..].find('\n') {
        Some(i) => after_close + i + 1,
        None => source.len(),
    };
    let yaml_lines = yaml.matches('\n').count() + usize::from(!yaml.is_empty());
    Split {
        yaml: Some(yaml),
        yaml_line: 2,
        body: &source[body_start..],
        body_line: 2 + yaml_lines + 1,
    }
}

/// Parse the YAML block into [`FrontMatter`]. Never fails: problems become warnings.
pub fn parse(yaml: &str, yaml_line: usize, path: &str, warnings: &mut Vec<Warning>) -> FrontMatter {
    let mut fm = FrontMatter::default();
    if yaml.trim().is_empty() {
        return fm;
    }
    let docs = match YamlLoader::load_from_str(yaml) {
        Ok(docs) => docs,
        Err(e) => {
            let line = yaml_line + e.marker().line().saturating_sub(1);
            warnings.push(Warning::new(
                path,
                Some(line),
                format!(
                    "front matter is not valid YAML ({}); page read with default values",
                    e.info()
                ),
            ));
            return fm;
        }
    };
    let Some(doc) = docs.into_iter().next() else {
        return fm;
    };
    let hash = match doc {
        Yaml::Hash(h) => h,
        Yaml::Null => return fm,
        _ => {
            warnings.push(Warning::new(
                path,
                Some(yaml_line),
                "front matter is not a key/value mapping; page read with default values",
            ));
            return fm;
        }
    };
    for (key, value) in hash {
        let Yaml::String(key) = key else { continue };
        let line = key_line(yaml, &key).map(|l| yaml_line + l);
        let mut warn = |what: &str| {
            warnings.push(Warning::new(
                path,
                line.or(Some(yaml_line)),
                format!("front matter `{key}` {what}; ignored"),
            ));
        };
        let known = match key.as_str() {
            "id" => {
                fm.id = scalar_string(&value).or_else(|| none_after(&mut warn, "is not a string"));
                true
            }
            "slug" => {
                fm.slug =
                    scalar_string(&value).or_else(|| none_after(&mut warn, "is not a string"));
                true
            }
            "title" => {
                fm.title =
                    scalar_string(&value).or_else(|| none_after(&mut warn, "is not a string"));
                true
            }
            "sidebar_label" => {
                fm.sidebar_label =
                    scalar_string(&value).or_else(|| none_after(&mut warn, "is not a string"));
                true
            }
            "description" => {
                fm.description =
                    scalar_string(&value).or_else(|| none_after(&mut warn, "is not a string"));
                true
            }
            "sidebar_position" => {
                fm.sidebar_position = match &value {
                    Yaml::Integer(i) => Some(*i as f64),
                    Yaml::Real(r) => r.parse::<f64>().ok(),
                    _ => none_after(&mut warn, "is not a number"),
                };
                true
            }
            "tags" => {
                fm.tags = tags(&value).unwrap_or_else(|| {
                    warn("is not a list of strings or {label} objects");
                    Vec::new()
                });
                true
            }
            "chat" => {
                fm.chat = bool_value(&value).or_else(|| none_after(&mut warn, "is not true/false"));
                true
            }
            "draft" => {
                fm.draft = bool_value(&value)
                    .or_else(|| none_after(&mut warn, "is not true/false"))
                    .unwrap_or(false);
                true
            }
            "unlisted" => {
                fm.unlisted = bool_value(&value)
                    .or_else(|| none_after(&mut warn, "is not true/false"))
                    .unwrap_or(false);
                true
            }
            "parse_number_prefixes" => {
                fm.parse_number_prefixes =
                    bool_value(&value).or_else(|| none_after(&mut warn, "is not true/false"));
                true
            }
            _ => false,
        };
        if let (true, Some(line)) = (known, line) {
            fm.key_lines.push((key.clone(), line));
        }
    }
    fm
}

fn none_after<T>(warn: &mut impl FnMut(&str), what: &str) -> Option<T> {
    warn(what);
    None
}

/// 0-based line offset inside the YAML block of a top-level `key:`.
fn key_line(yaml: &str, key: &str) -> Option<usize> {
    yaml.lines().position(|line| {
        let line = line.trim_end();
        let rest = line
            .strip_prefix(key)
            .or_else(|| line.strip_prefix(&format!("\"{key}\"")))
            .or_else(|| line.strip_prefix(&format!("'{key}'")));
        rest.is_some_and(|r| r.trim_start().starts_with(':'))
    })
}

/// A YAML scalar as text. Docusaurus validates these as strings; numbers and booleans are
/// accepted here (as their YAML spelling) rather than dropping the page.
fn scalar_string(v: &Yaml) -> Option<String> {
    match v {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

fn bool_value(v: &Yaml) -> Option<bool> {
    match v {
        Yaml::Boolean(b) => Some(*b),
        _ => None,
    }
}

/// `tags: [a, b]` or `tags: [{label: A, permalink: /a}]`; `null` means no tags.
fn tags(v: &Yaml) -> Option<Vec<String>> {
    match v {
        Yaml::Null => Some(Vec::new()),
        Yaml::Array(items) => items
            .iter()
            .map(|item| match item {
                Yaml::Hash(h) => h.get(&Yaml::String("label".into())).and_then(scalar_string),
                other => scalar_string(other),
            })
            .collect(),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(src: &str) -> (Split<'_>, FrontMatter, Vec<Warning>) {
        let mut w = Vec::new();
        let s = split(src, "p.md", &mut w);
        let fm = match s.yaml {
            Some(y) => parse(y, s.yaml_line, "p.md", &mut w),
            None => FrontMatter::default(),
        };
        (s, fm, w)
    }

    #[test]
    fn reads_all_fields() {
        let src = "---\nid: my-id\nslug: /x\ntitle: \"T: colon\"\nsidebar_label: L\nsidebar_position: 2.5\ntags: [a, {label: B, permalink: /b}]\ndescription: D\nchat: false\ndraft: true\nunlisted: true\nparse_number_prefixes: false\nother: [1, 2]\n---\n# Body\n";
        let (s, fm, w) = read(src);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(s.body, "# Body\n");
        assert_eq!(s.body_line, 15);
        assert_eq!(fm.id.as_deref(), Some("my-id"));
        assert_eq!(fm.slug.as_deref(), Some("/x"));
        assert_eq!(fm.title.as_deref(), Some("T: colon"));
        assert_eq!(fm.sidebar_label.as_deref(), Some("L"));
        assert_eq!(fm.sidebar_position, Some(2.5));
        assert_eq!(fm.tags, vec!["a", "B"]);
        assert_eq!(fm.description.as_deref(), Some("D"));
        assert_eq!(fm.chat, Some(false));
        assert!(fm.draft && fm.unlisted);
        assert_eq!(fm.parse_number_prefixes, Some(false));
        assert_eq!(fm.line_of("slug"), Some(3));
    }

    #[test]
    fn no_front_matter() {
        for src in [
            "# Title\n",
            "----\nx: 1\n----\n",
            "",
            "text\n---\na: b\n---\n",
        ] {
            let (s, fm, w) = read(src);
            assert_eq!(s.yaml, None, "{src:?}");
            assert_eq!(s.body, src);
            assert_eq!(fm, FrontMatter::default());
            assert!(w.is_empty());
        }
    }

    #[test]
    fn empty_front_matter() {
        let (s, fm, w) = read("---\n---\nbody");
        assert_eq!(s.yaml, Some(""));
        assert_eq!(s.body, "body");
        assert_eq!(fm, FrontMatter::default());
        assert!(w.is_empty());
    }

    #[test]
    fn broken_yaml_is_a_warning_with_line() {
        let src = "---\ntitle: ok\nfoo: : bar\n  - x\n---\nbody\n";
        let (s, fm, w) = read(src);
        assert_eq!(s.body, "body\n");
        assert_eq!(fm.title, None, "defaults are used when YAML is broken");
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].message.contains("not valid YAML"));
        let line = w[0].line.unwrap();
        assert!((3..=4).contains(&line), "line {line}");
    }

    #[test]
    fn unclosed_front_matter_is_a_warning() {
        let (s, _, w) = read("---\ntitle: x\n# Heading\n");
        assert_eq!(s.yaml, None);
        assert_eq!(s.body, "---\ntitle: x\n# Heading\n");
        assert_eq!(w.len(), 1);
        assert_eq!(w[0].line, Some(1));
    }

    #[test]
    fn wrong_types_are_warnings() {
        let (_, fm, w) = read("---\ntitle: [a]\nchat: maybe\ntags: 3\nid: 42\n---\n");
        assert_eq!(fm.title, None);
        assert_eq!(fm.chat, None);
        assert!(fm.tags.is_empty());
        assert_eq!(fm.id.as_deref(), Some("42"));
        assert_eq!(w.len(), 3, "{w:?}");
        assert_eq!(w[0].line, Some(2));
    }

    #[test]
    fn non_mapping_is_a_warning() {
        let (_, _, w) = read("---\n- a\n- b\n---\n");
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        let src = format!("---\na: {}\n---\nbody", "[".repeat(100_000));
        let (s, _, w) = read(&src);
        assert_eq!(s.body, "body");
        assert_eq!(w.len(), 1);
    }
}

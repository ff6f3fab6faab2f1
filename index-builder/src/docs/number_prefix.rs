//! Port of Docusaurus' `DefaultNumberPrefixParser` (plugin-content-docs `numberPrefix.ts`):
//! `01-intro` → `intro` (position 1), but date-like (`2021-01-intro`) and version-like
//! (`1.2-notes`) names are left alone.
//!
//! Hand-written (with `regex`) because it is Docusaurus-specific. JavaScript's `\d` is ASCII
//! only, hence `[0-9]` here (Rust's `\d` is Unicode).

use regex::Regex;
use std::sync::LazyLock;

static IGNORED_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(([0-9]{2}|[0-9]{4})[-_.][0-9]{2}([-_.]([0-9]{2}|[0-9]{4}))?)(.*)$|^([0-9]+[-_.][0-9]+)(.*)$",
    )
    .expect("static regex")
});

static NUMBER_PREFIX: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(?P<prefix>[0-9]+)(?P<sep>\s*[-_.]+\s*)(?P<suffix>.*)$").expect("static regex")
});

/// A file or folder name split into its number prefix and the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed<'a> {
    /// The name without its number prefix (the whole name when there is none).
    pub name: &'a str,
    /// The prefix as a number (Docusaurus uses it as the default sidebar position).
    pub number: Option<f64>,
}

/// Split `name` (no extension, no slashes) as Docusaurus' default parser does.
pub fn parse(name: &str) -> Parsed<'_> {
    if IGNORED_PREFIX.is_match(name) {
        return Parsed { name, number: None };
    }
    match NUMBER_PREFIX.captures(name) {
        Some(c) => {
            let suffix = c.name("suffix").map_or(name, |m| m.as_str());
            let number = c
                .name("prefix")
                .and_then(|m| m.as_str().parse::<f64>().ok());
            Parsed {
                name: suffix,
                number,
            }
        }
        None => Parsed { name, number: None },
    }
}

/// `01-guides/02-docs` → `guides/docs` (Docusaurus `stripPathNumberPrefixes`).
pub fn strip_path(path: &str) -> String {
    path.split('/')
        .map(|segment| parse(segment).name)
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(s: &str) -> &str {
        parse(s).name
    }

    /// Cases from Docusaurus' numberPrefix tests.
    #[test]
    fn strips_number_prefixes() {
        assert_eq!(name("0-myDoc"), "myDoc");
        assert_eq!(name("01-myDoc"), "myDoc");
        assert_eq!(name("001 - myDoc"), "myDoc");
        assert_eq!(name("001 _ myDoc"), "myDoc");
        assert_eq!(name("1.myDoc"), "myDoc");
        assert_eq!(name("0___myDoc"), "myDoc");
        assert_eq!(name("0 --- Client API"), "Client API");
        assert_eq!(name("00-introduction"), "introduction");
        assert_eq!(parse("003 - myDoc").number, Some(3.0));
        assert_eq!(parse("myDoc").number, None);
    }

    #[test]
    fn keeps_names_without_prefix() {
        for s in [
            "myDoc",
            "a-myDoc",
            "my-Doc-000",
            "00abc01-My Doc",
            "module-01-foundations",
            "page-01-intro",
            "",
        ] {
            assert_eq!(name(s), s, "{s}");
        }
    }

    #[test]
    fn ignores_dates_and_versions() {
        for s in [
            "2021-01-31-myDoc",
            "2021_01_31-myDoc",
            "21.01.31-myDoc",
            "2021-01-myDoc",
            "01-01-myDoc",
            "1.0-notes",
            "8.0.0-release",
            "1-2-3-myDoc",
        ] {
            assert_eq!(name(s), s, "{s}");
        }
    }

    #[test]
    fn strips_each_path_segment() {
        assert_eq!(strip_path("01-guides/02-docs/03-x"), "guides/docs/x");
        assert_eq!(strip_path("."), ".");
        assert_eq!(strip_path("a/2021-01-01-b"), "a/2021-01-01-b");
    }

    #[test]
    fn huge_prefix_does_not_panic() {
        let s = format!("{}-x", "9".repeat(500));
        assert_eq!(name(&s), "x");
        assert!(parse(&s).number.is_some());
    }
}

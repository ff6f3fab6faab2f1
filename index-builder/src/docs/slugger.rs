//! Heading anchors exactly as Docusaurus makes them: a port of `github-slugger`
//! (used by `@docusaurus/utils` `createSlugger`).
//!
//! Hand-written because no Rust crate reproduces github-slugger's character class: it removes
//! every code point in the Unicode general categories Other_Number, all punctuation except
//! `-` and connector punctuation (`_`), all symbols, controls, private use, format,
//! unassigned and separators except the ASCII space, then puts back every `Alphabetic` code
//! point (some letters are also symbols, e.g. circled letters). Spaces become `-`.
//! The string is lower-cased first (JavaScript `toLowerCase`, which like Rust's
//! `to_lowercase` uses the full Unicode mapping). Nothing is trimmed or collapsed:
//! `"foo & bar"` gives `"foo--bar"`.
//!
//! github-slugger generates its class from Unicode 13; `unicode-general-category` is newer,
//! so only characters assigned after Unicode 13 can differ (they are "unassigned", hence
//! removed, in github-slugger).

use std::collections::HashMap;
use unicode_general_category::{get_general_category, GeneralCategory as G};

/// github-slugger's stateless `slug(value)`: one heading text to one anchor, no dedup (the
/// fixtures of github-slugger are checked with it).
#[cfg(test)]
pub fn slug(value: &str) -> String {
    slug_cased(value, false)
}

/// github-slugger's `slug(value, maintainCase)`: with `maintain_case` (Docusaurus'
/// `markdown.anchors.maintainCase`) the text is not lower-cased first.
pub fn slug_cased(value: &str, maintain_case: bool) -> String {
    let text = if maintain_case {
        value.to_string()
    } else {
        value.to_lowercase()
    };
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c == ' ' {
            out.push('-');
        } else if keeps(c) {
            out.push(c);
        }
    }
    out
}

/// Whether github-slugger's regex leaves this (already lower-cased) character in place.
fn keeps(c: char) -> bool {
    if c == '-' || c.is_alphabetic() {
        return true;
    }
    !matches!(
        get_general_category(c),
        G::OtherNumber
            | G::ClosePunctuation
            | G::FinalPunctuation
            | G::InitialPunctuation
            | G::OpenPunctuation
            | G::OtherPunctuation
            | G::DashPunctuation
            | G::MathSymbol
            | G::CurrencySymbol
            | G::ModifierSymbol
            | G::OtherSymbol
            | G::Control
            | G::PrivateUse
            | G::Format
            | G::Unassigned
            | G::Surrogate
            | G::SpaceSeparator
            | G::LineSeparator
            | G::ParagraphSeparator
    )
}

/// github-slugger's stateful `BananaSlug`: the second `"a"` becomes `"a-1"`, and so on.
///
/// Docusaurus creates one per page (the mdx-loader `headings` plugin), so anchors are only
/// unique within a page.
#[derive(Debug, Default)]
pub struct Slugger {
    occurrences: HashMap<String, u64>,
    maintain_case: bool,
}

impl Slugger {
    /// A fresh slugger, as for a new page.
    pub fn new() -> Self {
        Self::default()
    }

    /// A fresh slugger that keeps the text's case (`markdown.anchors.maintainCase`).
    pub fn maintaining_case(maintain_case: bool) -> Self {
        Self {
            maintain_case,
            ..Self::default()
        }
    }

    /// Slug `value`, adding `-1`, `-2`… when the result was already handed out.
    pub fn slug(&mut self, value: &str) -> String {
        let original = slug_cased(value, self.maintain_case);
        let mut result = original.clone();
        while self.occurrences.contains_key(&result) {
            let count = self.occurrences.entry(original.clone()).or_insert(0);
            *count += 1;
            result = format!("{original}-{count}");
        }
        self.occurrences.insert(result.clone(), 0);
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cases from github-slugger's own `test/fixtures.json`, fed through ONE slugger in the
    /// fixture order (the duplicate cases depend on that shared state).
    #[test]
    fn github_slugger_fixtures_in_order() {
        let cases: &[(&str, &str)] = &[
            ("alpha", "alpha"),
            ("alpha", "alpha-1"),
            ("bravoCharlieDelta", "bravocharliedelta"),
            ("__proto__", "__proto__"),
            ("__proto__", "__proto__-1"),
            ("hasOwnProperty", "hasownproperty"),
            ("echo", "echo"),
            ("echo", "echo-1"),
            ("echo 1", "echo-1-1"),
            ("echo-1", "echo-1-2"),
            ("echo", "echo-2"),
            ("foxtrot-1", "foxtrot-1"),
            ("foxtrot", "foxtrot"),
            ("foxtrot", "foxtrot-2"),
            ("heading with a - dash", "heading-with-a---dash"),
            (
                "heading with an _ underscore",
                "heading-with-an-_-underscore",
            ),
            ("heading with a period.txt", "heading-with-a-periodtxt"),
            (
                "exchange.bind_headers(exchange, routing [, bindCallback])",
                "exchangebind_headersexchange-routing--bindcallback",
            ),
            (" ", "-"),
            (" a", "-a"),
            ("a ", "a-"),
            (" a ", "-a-"),
            ("-a-", "-a--1"),
            (
                "apostrophe’s should be trimmed",
                "apostrophes-should-be-trimmed",
            ),
            ("golf", "golf"),
            ("golf", "golf-1"),
            ("golf", "golf-2"),
            ("I ♥ unicode", "i--unicode"),
            ("dash-dash", "dash-dash"),
            ("en–dash", "endash"),
            ("em–dash", "emdash"),
            ("😄 unicode emoji", "-unicode-emoji"),
            ("😄-😄 unicode emoji", "--unicode-emoji"),
            ("😄_😄 unicode emoji", "_-unicode-emoji"),
            ("😄 - an emoji", "---an-emoji"),
            (":smile: - a gemoji", "smile---a-gemoji"),
            ("Привет", "привет"),
            ("Профили пользователей", "профили-пользователей"),
            ("Привет non-latin 你好", "привет-non-latin-你好"),
            (":ok: No underscore", "ok-no-underscore"),
            (":ok_hand: Single", "ok_hand-single"),
            (
                ":ok_hand::hatched_chick: Two in a row with no spaces",
                "ok_handhatched_chick-two-in-a-row-with-no-spaces",
            ),
            (
                ":ok_hand: :hatched_chick: Two in a row",
                "ok_hand-hatched_chick-two-in-a-row",
            ),
        ];
        let mut s = Slugger::new();
        for (input, expected) in cases {
            assert_eq!(&s.slug(input), expected, "input {input:?}");
        }
    }

    /// Category fixtures from github-slugger (shortened): what each class keeps or drops.
    #[test]
    fn unicode_categories() {
        // Close punctuation: dropped, spaces stay as dashes.
        assert_eq!(slug_cased("Foo Bar Ä", true), "Foo-Bar-Ä");
        let mut kept = Slugger::maintaining_case(true);
        assert_eq!(kept.slug("Setup"), "Setup");
        assert_eq!(kept.slug("setup"), "setup");
        assert_eq!(kept.slug("Setup"), "Setup-1");
        assert_eq!(slug("a) ] } ༻ ）b"), "a----b");
        // Connector punctuation is kept.
        assert_eq!(slug("a_ ‿ ＿b"), "a_-‿-＿b");
        // Currency symbols dropped.
        assert_eq!(slug("a$ ¢ € ₿b"), "a---b");
        // Dash punctuation dropped except ASCII '-'.
        assert_eq!(slug("a- ‐ – — －b"), "a-----b");
        // Decimal numbers kept (any script).
        assert_eq!(slug("a0 ١ ০b"), "a0-١-০b");
        // Other numbers dropped (superscripts, circled digits).
        assert_eq!(slug("a² ①b"), "a-b");
        // Letter numbers kept and lower-cased (Roman numerals).
        assert_eq!(slug("aⅠ Ⅻb"), "aⅰ-ⅻb");
        // Marks kept (combining acute on 'a').
        assert_eq!(slug("a\u{301}b"), "a\u{301}b");
        // Alphabetic symbols (circled letters, So + Alphabetic) are kept.
        assert_eq!(slug("Ⓐb"), "ⓐb");
        // Line separator and NBSP dropped; only ASCII space turns into '-'.
        assert_eq!(slug("a\u{2028}b\u{a0}c"), "abc");
        // Format (zero-width joiner) and private use dropped.
        assert_eq!(slug("a\u{200d}\u{e000}b"), "ab");
    }

    #[test]
    fn brief_examples() {
        assert_eq!(slug("Hello World"), "hello-world");
        assert_eq!(slug("Ünicode"), "ünicode");
        assert_eq!(slug("foo & bar"), "foo--bar");
        // Inline code is stripped to its text before slugging (see sections.rs),
        // so "`code` here" reaches the slugger as "code here".
        assert_eq!(slug("code here"), "code-here");
        // U+23F1 is a symbol (dropped) but the emoji variation selector U+FE0F is a
        // nonspacing mark, which github-slugger keeps.
        assert_eq!(slug("Fast Track \u{23f1}\u{fe0f}"), "fast-track-\u{fe0f}");
        assert_eq!(slug("中文标题"), "中文标题");
        assert_eq!(slug("Café crème"), "café-crème");
        // Final sigma follows the full Unicode lower-casing, as JavaScript does.
        assert_eq!(slug("ΟΔΟΣ"), "οδος");
        let mut s = Slugger::new();
        assert_eq!(s.slug("a"), "a");
        assert_eq!(s.slug("a"), "a-1");
        assert_eq!(s.slug("A"), "a-2");
    }

    #[test]
    fn docusaurus_heading_plugin_cases() {
        // From docusaurus-mdx-loader remark/headings tests.
        let mut s = Slugger::new();
        assert_eq!(s.slug(""), "");
        assert_eq!(s.slug(""), "-1");
        assert_eq!(s.slug("Initial spaces"), "initial-spaces");
    }
}

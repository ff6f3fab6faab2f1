//! Heading ids as the Docusaurus mdx-loader `headings` remark plugin assigns them.
//!
//! For every heading in document order (H1 included):
//! * text = `mdast-util-to-string` of the heading;
//! * from Docusaurus 3.10, if the heading ends with a comment `{/* #custom-id */}`, the id is
//!   `custom-id` (the comment shows nothing; the slugger is not called);
//! * if the text ends with `{#custom-id}` (Docusaurus `parseMarkdownHeadingId`), the id is
//!   `custom-id` verbatim and that suffix is removed from the text — the slugger is NOT
//!   called, so custom ids do not take part in duplicate counting;
//! * otherwise the id is `slugger.slug(text)` with one slugger per page.
//!
//! Consequence (faithful to Docusaurus): a custom id equal to a generated one produces a
//! duplicate anchor on the page; `read_page` reports that as a warning.

use super::sections::RawHeading;
use super::slugger::Slugger;

/// Port of `parseMarkdownHeadingId`: regex `\s*\{#(?<id>(?:.(?!\{#|\}))*.)\}$`.
/// Returns (text without the id part, id).
pub fn parse_heading_id(heading: &str) -> (&str, Option<&str>) {
    let Some(body) = heading.strip_suffix('}') else {
        return (heading, None);
    };
    // Leftmost "{#" whose id part satisfies the regex: non-empty, no line terminator, and no
    // "}" or "{#" after its first character.
    let mut search_from = 0;
    while let Some(k) = body[search_from..].find("{#") {
        let open = search_from + k;
        let id = &body[open + 2..];
        let mut chars = id.chars();
        let valid = match chars.next() {
            None => false,
            Some(first) => {
                let tail = chars.as_str();
                !is_line_terminator(first)
                    && !tail.contains(is_line_terminator)
                    && !tail.contains('}')
                    && !tail.contains("{#")
            }
        };
        if valid {
            let text = body[..open].trim_end_matches(char::is_whitespace);
            return (text, Some(id));
        }
        search_from = open + 2;
    }
    (heading, None)
}

fn is_line_terminator(c: char) -> bool {
    matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')
}

/// The anchor for one heading and its display text.
#[derive(Debug, Clone, PartialEq)]
pub struct Anchored {
    /// Plain heading text (custom id removed, whitespace collapsed, trimmed).
    pub text: String,
    /// The id Docusaurus gives the heading element.
    pub anchor: String,
    /// Whether the id came from `{#custom-id}`.
    pub custom: bool,
}

/// Assign the anchor for the next heading on the page: Docusaurus slugs `heading.raw`, the page
/// shows `heading.shown`; a trailing `{/* #id */}` comment's id is used only when `comment_ids`
/// (the site's Docusaurus reads them: 3.10 and later).
pub fn anchor(slugger: &mut Slugger, heading: &RawHeading, comment_ids: bool) -> Anchored {
    let collapse = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(id) = heading.comment_id.as_deref().filter(|_| comment_ids) {
        return Anchored {
            text: collapse(&heading.shown),
            anchor: id.to_string(),
            custom: true,
        };
    }
    let (_, custom) = parse_heading_id(&heading.raw);
    let anchor = match custom {
        Some(id) => id.to_string(),
        None => slugger.slug(&heading.raw),
    };
    Anchored {
        text: collapse(parse_heading_id(&heading.shown).0),
        anchor,
        custom: custom.is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heading_id_parsing() {
        // From Docusaurus markdownUtils tests.
        assert_eq!(parse_heading_id("## Heading"), ("## Heading", None));
        assert_eq!(
            parse_heading_id("## Heading {#custom-id}"),
            ("## Heading", Some("custom-id"))
        );
        assert_eq!(
            parse_heading_id("Heading Two {#custom-heading-two}").1,
            Some("custom-heading-two")
        );
        assert_eq!(
            parse_heading_id("With *Bold* hello{#custom-withbold-hello}"),
            ("With *Bold* hello", Some("custom-withbold-hello"))
        );
        assert_eq!(parse_heading_id("{#id-only}"), ("", Some("id-only")));
        assert_eq!(
            parse_heading_id("{#text-after} custom ID"),
            ("{#text-after} custom ID", None)
        );
        assert_eq!(
            parse_heading_id("## Weird {#id with spaces and é}"),
            ("## Weird", Some("id with spaces and é"))
        );
        assert_eq!(parse_heading_id("## {#a}{#b}"), ("## {#a}", Some("b")));
        assert_eq!(parse_heading_id("## x {#}"), ("## x {#}", None));
        assert_eq!(parse_heading_id("}"), ("}", None));
    }

    /// A heading without comments: the same text slugged and shown.
    fn anchor_of(s: &mut Slugger, raw: &str) -> Anchored {
        let heading = RawHeading {
            level: 2,
            raw: raw.to_string(),
            shown: raw.to_string(),
            comment_id: None,
            code: false,
        };
        anchor(s, &heading, true)
    }

    #[test]
    fn anchors_follow_the_headings_plugin() {
        let mut s = Slugger::new();
        let a = anchor_of(&mut s, "Heading One {#custom_h1}");
        assert_eq!(
            (a.text.as_str(), a.anchor.as_str(), a.custom),
            ("Heading One", "custom_h1", true)
        );
        assert_eq!(anchor_of(&mut s, "No custom ID").anchor, "no-custom-id");
        assert_eq!(
            anchor_of(&mut s, "{#text-after} custom ID").anchor,
            "text-after-custom-id"
        );
        // custom ids do not reserve slugs: Docusaurus gives both headings the id "x"
        assert_eq!(anchor_of(&mut s, "Other {#x}").anchor, "x");
        assert_eq!(anchor_of(&mut s, "X").anchor, "x");
        // the slugger sees the raw text including a trailing space (`## Foo <Badge/>`)
        let a = anchor_of(&mut s, "Foo ");
        assert_eq!((a.text.as_str(), a.anchor.as_str()), ("Foo", "foo-"));
        // soft line breaks are dropped by the slugger, shown as spaces
        let a = anchor_of(&mut s, "two\nlines");
        assert_eq!(
            (a.text.as_str(), a.anchor.as_str()),
            ("two lines", "twolines")
        );
    }
}

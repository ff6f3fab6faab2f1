//! Whole-page tests for `read_page`, including property tests.

use super::slugger::slug;
use super::*;
use proptest::prelude::*;

fn page(rel: &str, src: &str) -> (Page, Vec<Warning>) {
    read_page(rel, src, &CategoryLabels::new(), &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
}

fn anchors(p: &Page) -> Vec<&str> {
    p.sections
        .iter()
        .filter_map(|s| s.anchor.as_deref())
        .collect()
}

#[test]
fn realistic_mdx_page() {
    let src = r#"---
toc_max_heading_level: 4
slug: /sidebar/items
tags: [docs, {label: Sidebar}]
---

# Sidebar items

```mdx-code-block
import Tabs from '@theme/Tabs';
import TabItem from '@theme/TabItem';
```

The sidebar supports **various** item types:

- **[Doc](#sidebar-item-doc)**: link to a doc page

## Doc: link to a doc {#sidebar-item-doc}

Use the `doc` type.

<Tabs>
<TabItem value="js" label="JavaScript">

```js title="sidebars.js"
export default {
  mySidebar: [{type: 'doc', id: 'x'}],
};
```

</TabItem>
</Tabs>

:::tip Hint

Doc ids are relative.

:::

### Sidebar items

Same text as the title: gets `-1` because the title H1 took the plain slug.

## Doc: link to a doc

Duplicate of a custom id's text: the slugger never saw the custom id.
"#;
    let (p, w) = page("guides/docs/sidebar/items.mdx", src);
    assert!(w.is_empty(), "{w:?}");
    assert_eq!(p.url, "/docs/sidebar/items");
    assert_eq!(p.id, "guides/docs/sidebar/items");
    assert_eq!(p.title, "Sidebar items");
    assert_eq!(p.tags, vec!["docs", "Sidebar"]);
    assert_eq!(
        anchors(&p),
        vec!["sidebar-item-doc", "sidebar-items-1", "doc-link-to-a-doc"]
    );
    let top = &p.sections[0];
    assert_eq!(top.level, 0);
    assert_eq!(top.heading, None);
    assert_eq!(
        top.text,
        "The sidebar supports various item types:\n\n- Doc: link to a doc page"
    );
    let doc = &p.sections[1];
    assert_eq!(doc.heading.as_deref(), Some("Doc: link to a doc"));
    assert_eq!(doc.level, 2);
    assert!(doc.has_code);
    assert!(doc.text.contains("```js\nexport default {"), "{}", doc.text);
    assert!(
        doc.text.contains("Tip: Hint\n\nDoc ids are relative."),
        "{}",
        doc.text
    );
    assert!(!doc.text.contains("TabItem") && !doc.text.contains(":::"));
    assert_eq!(
        p.sections[2].hierarchy,
        vec!["Sidebar items", "Doc: link to a doc", "Sidebar items"]
    );
    assert_eq!(
        p.sections[3].hierarchy,
        vec!["Sidebar items", "Doc: link to a doc"]
    );
    assert!(p.chat);
}

#[test]
fn title_rules() {
    // front matter title wins; the content H1 is still the page header, not a section
    let (p, _) = page("a.md", "---\ntitle: FM\n---\n# Content\n\n## Sub\n");
    assert_eq!(p.title, "FM");
    assert_eq!(p.sections.len(), 1);
    assert_eq!(p.sections[0].hierarchy, vec!["FM", "Sub"]);
    // no title anywhere: the id (file name without number prefix)
    let (p, _) = page("dir/03-my-doc.md", "Just text.\n");
    assert_eq!(p.title, "my-doc");
    // front matter id is used
    let (p, _) = page("dir/x.md", "---\nid: custom\n---\ntext\n");
    assert_eq!(
        (p.title.as_str(), p.url.as_str()),
        ("custom", "/docs/dir/custom")
    );
    // sidebar_label is not a title source (Docusaurus: title ?? contentTitle ?? id)
    let (p, _) = page("y.md", "---\nsidebar_label: Label\n---\ntext\n");
    assert_eq!(p.title, "y");
    // an H1 that is not first is a level-1 section
    let (p, _) = page("z.md", "Intro\n\n# Later H1\n\ntext\n");
    assert_eq!(p.sections[1].level, 1);
    assert_eq!(p.sections[1].anchor.as_deref(), Some("later-h1"));
}

#[test]
fn chat_opt_out_and_description() {
    let (p, _) = page(
        "a.md",
        "---\nchat: false\ndescription: About A\n---\ntext\n",
    );
    assert!(!p.chat);
    assert_eq!(p.description.as_deref(), Some("About A"));
    // An unlisted page is hidden from the book's search: out of the chat too, unless it opts in.
    let (p, _) = page("u.md", "---\nunlisted: true\n---\ntext\n");
    assert!(p.unlisted && !p.chat);
    let (p, _) = page("v.md", "---\nunlisted: true\nchat: true\n---\ntext\n");
    assert!(p.chat);
}

#[test]
fn broken_front_matter_still_reads_the_page() {
    let src = "---\ntitle: [unclosed\nslug: /x\n---\n# Real Title\n\nBody text.\n";
    let (p, w) = page("broken.md", src);
    assert_eq!(p.title, "Real Title");
    assert_eq!(p.url, "/docs/broken", "defaults used, slug ignored");
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].path, "broken.md");
    assert!(w[0].line.is_some_and(|l| (2..=4).contains(&l)), "{w:?}");
    assert_eq!(p.sections[0].text, "Body text.");
}

#[test]
fn unclosed_fence_warns_with_file_line() {
    let (p, w) = page(
        "f.md",
        "---\ntitle: T\n---\nText\n\n```python\nprint(1)\n## not a heading\n",
    );
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].line, Some(6));
    assert!(p.sections.iter().all(|s| s.heading.is_none()));
    assert!(p.sections[0].has_code);
}

#[test]
fn duplicate_and_unicode_headings() {
    let src = "## Intro\n\n## Intro\n\n## Intro\n\n## 中文 标题\n\n## Ça va? 😄\n\n## `code` here\n\n## **Bold** and [link](x)\n";
    let (p, w) = page("u.md", src);
    assert!(w.is_empty());
    assert_eq!(
        anchors(&p),
        vec![
            "intro",
            "intro-1",
            "intro-2",
            "中文-标题",
            "ça-va-",
            "code-here",
            "bold-and-link"
        ]
    );
    assert_eq!(p.sections[4].heading.as_deref(), Some("Ça va? 😄"));
}

#[test]
fn custom_id_collision_is_warned() {
    let (p, w) = page("c.md", "## First {#second}\n\n## Second\n");
    assert_eq!(anchors(&p), vec!["second", "second"]);
    assert_eq!(w.len(), 1, "{w:?}");
}

#[test]
fn routes_through_read_page() {
    let opts = ReadOptions {
        route_base_path: "/".into(),
        base_url: "/book/".into(),
        trailing_slash: Some(true),
        ..Default::default()
    };
    let (p, _) = read_page("01-a/02-b.md", "x", &CategoryLabels::new(), &opts).unwrap();
    assert_eq!(p.url, "/book/a/b/");
    let e = read_page(
        "a.md",
        "---\nslug: //x\n---\n",
        &CategoryLabels::new(),
        &opts,
    )
    .unwrap_err();
    assert!(matches!(e, DocsError::InvalidSlug { line: 2, .. }), "{e}");
}

#[test]
fn modules() {
    let mut cats = CategoryLabels::new();
    cats.insert("module-04-vla", "Module 04: VLA");
    let o = ReadOptions::default();
    let (p, _) = read_page("module-04-vla/ch/p.md", "---\ntitle: P\n---\n", &cats, &o).unwrap();
    assert_eq!(p.module, "Module 04: VLA");
    let (p, _) = read_page("00-introduction/X.md", "# X\n", &cats, &o).unwrap();
    assert_eq!(p.module, "Introduction");
    let (p, _) = read_page("intro.md", "# Welcome\n", &cats, &o).unwrap();
    assert_eq!(p.module, "Welcome");
}

#[test]
fn crlf_bom_and_detect_format() {
    let (p, _) = page(
        "w.md",
        "\u{feff}---\r\ntitle: Win\r\n---\r\n## A\r\n\r\ntext\r\n",
    );
    assert_eq!(p.title, "Win");
    assert_eq!(p.sections[0].anchor.as_deref(), Some("a"));
    assert_eq!("detect".parse(), Ok(MarkdownFormat::Detect));
    assert_eq!("mdx".parse(), Ok(MarkdownFormat::Mdx));
    assert_eq!("md".parse(), Ok(MarkdownFormat::Md));
    assert!("markdown".parse::<MarkdownFormat>().is_err());
    let opts = ReadOptions {
        markdown_format: MarkdownFormat::Detect,
        ..Default::default()
    };
    let src = "import x from 'y'\n\nSet {a} here.\n";
    let (md, _) = read_page("c.md", src, &CategoryLabels::new(), &opts).unwrap();
    assert!(md.sections[0].text.contains("import x") && md.sections[0].text.contains("{a}"));
    let (mdx, _) = read_page("c.mdx", src, &CategoryLabels::new(), &opts).unwrap();
    assert_eq!(mdx.sections[0].text, "Set  here.");
    // `md`: every page is CommonMark, `.mdx` too.
    let md_only = ReadOptions {
        markdown_format: MarkdownFormat::Md,
        ..Default::default()
    };
    let (all, _) = read_page("c.mdx", src, &CategoryLabels::new(), &md_only).unwrap();
    assert!(all.sections[0].text.contains("{a}"));
}

#[test]
fn big_page_is_fast() {
    let mut src = String::from("# Big\n\n");
    let mut i = 0;
    while src.len() < 1_000_000 {
        src.push_str(&format!(
            "## Section {i}\n\nSome <b>text</b> with `code` and {{' '}} [links](x).\n\n```rust\nfn f() {{}}\n```\n\n"
        ));
        i += 1;
    }
    let t = std::time::Instant::now();
    let (p, w) = page("big.md", &src);
    assert!(w.is_empty());
    assert_eq!(p.sections.len(), i);
    assert!(t.elapsed().as_secs() < 10, "took {:?}", t.elapsed());
}

/// Markdown/MDX-flavoured fragments, so random input exercises the interesting paths.
fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("# ".to_string()),
        Just("## ".to_string()),
        Just("### ".to_string()),
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        Just("```".to_string()),
        Just("```js\n".to_string()),
        Just("~~~".to_string()),
        Just("---\n".to_string()),
        Just(":::tip ".to_string()),
        Just(":::\n".to_string()),
        Just("<Tabs>".to_string()),
        Just("</Tabs>".to_string()),
        Just("<TabItem value=\"a\"\n label='b'>".to_string()),
        Just("<br/>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("{/*".to_string()),
        Just("*/}".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("{#id}".to_string()),
        Just("`".to_string()),
        Just("\\".to_string()),
        Just("import x from 'y'\n".to_string()),
        Just("export const a = 1\n".to_string()),
        Just("| a | b |\n|---|---|\n".to_string()),
        Just("- ".to_string()),
        Just("1. ".to_string()),
        Just("> ".to_string()),
        Just("    ".to_string()),
        Just("=====\n".to_string()),
        Just("$$\n".to_string()),
        Just("[x](y)".to_string()),
        Just("![a](b)".to_string()),
        Just("**".to_string()),
        Just("😄".to_string()),
        Just("中文".to_string()),
        Just("é".to_string()),
        Just("\r\n".to_string()),
        "[a-zA-Z0-9 ]{1,8}",
        any::<String>(),
    ]
}

fn doc() -> impl Strategy<Value = String> {
    prop::collection::vec(fragment(), 0..60).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Never panics, on anything.
    #[test]
    fn read_page_never_panics(src in doc(), path in "[a-z0-9_-]{1,8}(/[a-z0-9_-]{1,8}){0,2}\\.mdx?") {
        let _ = read_page(&path, &src, &CategoryLabels::new(), &ReadOptions::default());
    }

    /// Generated anchors are unique within a page (custom `{#id}`s can collide, which
    /// Docusaurus allows and we warn about, so pages with them are excluded here).
    #[test]
    fn anchors_are_unique(src in doc()) {
        prop_assume!(!src.contains("{#"));
        if let Ok((p, w)) = read_page("p.mdx", &src, &CategoryLabels::new(), &ReadOptions::default()) {
            let mut seen = std::collections::HashSet::new();
            for a in anchors(&p) {
                prop_assert!(seen.insert(a.to_string()), "duplicate anchor {a:?}");
            }
            // The duplicate-anchor warning (not YAML's "unknown anchor" of a `*` in front matter).
            prop_assert!(!w.iter().any(|w| w.message.contains("an earlier heading already has")));
            for s in &p.sections {
                prop_assert!(s.level <= 6);
                prop_assert_eq!(s.heading.is_some(), s.anchor.is_some());
            }
        }
    }

    /// Arbitrary Unicode text never panics in the slugger and never yields spaces.
    #[test]
    fn slug_has_no_spaces(s in any::<String>()) {
        let out = slug(&s);
        prop_assert!(!out.contains(' '));
        prop_assert!(!out.chars().any(|c| c.is_ascii_uppercase() || c.is_ascii_punctuation() && c != '-' && c != '_'));
    }
}

/// Heading comments, against the ids Docusaurus 3.10.2 gave the same headings (a fresh
/// `create-docusaurus` site built with these headings): a trailing `{/* #id */}` is the id; any other
/// comment is part of the slugged text but never of the shown heading.
#[test]
fn heading_comments_as_docusaurus_3_10_reads_them() {
    let src = "# Ids test\n\n\
        ## Headings {/* #my-heading-id */}\ntext\n\
        ## Plain {/* just a note */}\ntext\n\
        ## Spaced {/*   #spaced-id   extra words */}\ntext\n\
        ## Two {/* #a */ /* #b */}\ntext\n\
        ## Trailing {/* #x */} more\ntext\n\
        ## Classic \\{#classic-id}\ntext\n\
        ## Hash only {/* # */}\ntext\n\
        ## Dup {/* #my-heading-id */}\ntext\n\
        ## Plain\ntext\n\
        ## With `code` {/* #code-id */}\ntext\n\
        ## Upper {/* #Mixed_Case.id */}\ntext\n\
        ## Expr {'literal'} end\ntext\n\
        ## Spaced { /* note */ } end\ntext\n\
        ## Expr { props.x } tail\ntext\n";
    let (p, _) = page("ids.mdx", src);
    assert_eq!(
        anchors(&p),
        [
            "my-heading-id",
            "plain--just-a-note-",
            "spaced-id",
            "two--a---b-",
            "trailing--x--more",
            "classic-id",
            "hash-only---",
            "my-heading-id",
            "plain",
            "code-id",
            "Mixed_Case.id",
            "expr-literal-end",
            "spaced---note---end",
            "expr--propsx--tail",
        ]
    );
    let shown: Vec<&str> = p
        .sections
        .iter()
        .filter_map(|s| s.heading.as_deref())
        .collect();
    assert_eq!(
        shown,
        [
            "Headings",
            "Plain",
            "Spaced",
            "Two",
            "Trailing more",
            "Classic",
            "Hash only",
            "Dup",
            "Plain",
            "With code",
            "Upper",
            "Expr literal end",
            "Spaced end",
            "Expr props.x tail",
        ]
    );
    // Before 3.10 (`--docusaurus-version 3.9.2`), the comment is slugged with the text.
    let old = ReadOptions {
        comment_heading_ids: false,
        ..ReadOptions::default()
    };
    let (p, _) = read_page("ids.mdx", src, &CategoryLabels::new(), &old).unwrap();
    assert_eq!(anchors(&p)[0], "headings--my-heading-id-");
    assert_eq!(p.sections[0].heading.as_deref(), Some("Headings"));
}

/// On a CommonMark page (`markdown.format: 'detect'`, a `.md` file) an HTML comment does the same.
#[test]
fn html_comment_heading_ids_on_commonmark_pages() {
    let detect = ReadOptions {
        markdown_format: MarkdownFormat::Detect,
        ..ReadOptions::default()
    };
    let src = "# T\n\n## Html <!-- #html-id -->\ntext\n## Html plain <!-- note -->\ntext\n";
    let (p, _) = read_page("a.md", src, &CategoryLabels::new(), &detect).unwrap();
    // Any other HTML is left out of the slugged text, the space before it kept (Docusaurus'
    // `getHeadingText` drops `html` nodes).
    assert_eq!(anchors(&p), ["html-id", "html-plain-"]);
}

/// A permalink from Docusaurus wins over the URL computed from the file (here: a site whose
/// `numberPrefixParser: false` keeps `01-` in the URL), with the site's trailingSlash applied.
#[test]
fn known_permalinks_win_over_computed_urls() {
    let opts = ReadOptions {
        base_url: "/book/".into(),
        trailing_slash: Some(true),
        permalinks: Some(
            [(
                "guide/01-setup.md".to_string(),
                "/book/docs/guide/01-setup".to_string(),
            )]
            .into_iter()
            .collect(),
        ),
        ..ReadOptions::default()
    };
    let read = |rel: &str| {
        read_page(rel, "# T\n\n## A\n\ntext\n", &CategoryLabels::new(), &opts)
            .unwrap()
            .0
            .url
    };
    assert_eq!(read("guide/01-setup.md"), "/book/docs/guide/01-setup/");
    // A doc the map does not name keeps the computed URL.
    assert_eq!(read("guide/02-other.md"), "/book/docs/guide/other/");
}

/// With the plugin's permalinks, exactly the docs Docusaurus published are read: a file its
/// `include`/`exclude` left out is not indexed (it would be cited as a page that does not exist).
#[test]
fn permalinks_name_the_published_docs() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), "# A\n\ntext\n").unwrap();
    std::fs::write(dir.path().join("b.mdx"), "# B\n\ntext\n").unwrap();
    let opts = ReadOptions {
        permalinks: Some(
            [("a.md".to_string(), "/docs/a".to_string())]
                .into_iter()
                .collect(),
        ),
        ..ReadOptions::default()
    };
    let book = read_book(dir.path(), &opts).unwrap();
    let paths: Vec<&str> = book.pages.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["a.md"]);
    assert_eq!(
        read_book(dir.path(), &ReadOptions::default())
            .unwrap()
            .pages
            .len(),
        2
    );
}

#[test]
fn a_components_objects_are_a_table_under_its_caption() {
    let src = "# Setup\n\n## Hardware\n\nYou need:\n<HardwareTable\n  caption=\"Requirements by tier\"\n  rows={[\n    { tier: 'minimum', gpu: 'GTX 1070' },\n    { tier: 'recommended', gpu: 'RTX 4070 Ti' },\n  ]}\n/>\n\nThat is all.\n";
    let (p, _) = page("setup.mdx", src);
    let hardware = p
        .sections
        .iter()
        .find(|s| s.heading.as_deref() == Some("Hardware"))
        .unwrap_or_else(|| panic!("{:?}", p.sections));
    assert_eq!(
        hardware.text,
        "You need:\n\nRequirements by tier:\n\nTier | Gpu\nminimum | GTX 1070\nrecommended | RTX 4070 Ti\n\nThat is all."
    );
}

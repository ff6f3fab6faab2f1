//! Reads the two shared real-world books with the `docs` module and checks what
//! Docusaurus would publish: URLs, titles, anchors, modules. Ignored by a plain `cargo test`
//! (they need `../shared/corpora`); run with `--include-ignored`, where a missing corpus fails.

mod needs;

use index_builder::docs::{read_book, Book, Page, ReadOptions};
use std::collections::HashSet;

fn read(name: &str) -> Book {
    let dir = needs::corpus(name);
    let book = read_book(&dir, &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{name}: reading failed: {e}"));
    let sections: usize = book.pages.iter().map(|p| p.sections.len()).sum();
    let with_code = book
        .pages
        .iter()
        .flat_map(|p| &p.sections)
        .filter(|s| s.has_code)
        .count();
    println!(
        "{name}: {} pages, {sections} sections ({with_code} with code), {} warnings, {} drafts",
        book.pages.len(),
        book.warnings.len(),
        book.drafts.len()
    );
    for w in &book.warnings {
        println!("  warning: {w}");
    }
    book
}

fn page<'a>(book: &'a Book, path: &str) -> &'a Page {
    book.pages
        .iter()
        .find(|p| p.path == path)
        .unwrap_or_else(|| panic!("page {path} not read"))
}

fn anchors(p: &Page) -> Vec<&str> {
    p.sections
        .iter()
        .filter_map(|s| s.anchor.as_deref())
        .collect()
}

/// Every page: unique anchors, sane sections, no MDX left in the text.
fn check_every_page(book: &Book) {
    let mut urls = HashSet::new();
    for p in &book.pages {
        assert!(urls.insert(p.url.as_str()), "duplicate URL {}", p.url);
        assert!(p.url.starts_with("/docs/"), "{} -> {}", p.path, p.url);
        assert!(!p.title.is_empty(), "{}", p.path);
        let mut seen = HashSet::new();
        for a in anchors(p) {
            assert!(seen.insert(a), "{}: duplicate anchor #{a}", p.path);
        }
        for s in &p.sections {
            assert_eq!(s.hierarchy.first(), Some(&p.title), "{}", p.path);
            assert_eq!(s.heading.is_some(), s.anchor.is_some());
            if s.heading.is_some() {
                assert!((1..=6).contains(&s.level));
                assert_eq!(s.hierarchy.last(), s.heading.as_ref());
            }
            // MDX that must be gone outside code blocks
            let prose = strip_code(&s.text);
            for bad in ["<TabItem", "</Tabs>", "import Tabs", "{/*", "<!--", ":::"] {
                assert!(
                    !prose.contains(bad),
                    "{} #{:?}: {bad:?} left in\n{prose}",
                    p.path,
                    s.anchor
                );
            }
        }
    }
}

/// The text with fenced code blocks and inline code spans removed.
fn strip_code(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<usize> = None;
    for line in text.lines() {
        let ticks = line.bytes().take_while(|&b| b == b'`').count();
        match fence {
            Some(n) if ticks == n && line.len() == n => fence = None,
            Some(_) => {}
            None if ticks >= 3 => fence = Some(ticks),
            None => {
                // keep only what is outside `inline code`
                for (i, part) in line.split('`').enumerate() {
                    if i % 2 == 0 {
                        out.push_str(part);
                    }
                }
                out.push('\n');
            }
        }
    }
    out
}

#[test]
#[ignore = "needs ../shared/corpora (or BOOK_CHAT_CORPORA)"]
fn docusaurus_docs() {
    let book = read("docusaurus-docs");
    check_every_page(&book);
    assert_eq!(
        book.pages.len(),
        90,
        "every .md/.mdx except the two `_` partials"
    );
    assert!(book
        .pages
        .iter()
        .all(|p| !p.path.contains("/_") && !p.path.starts_with('_')));

    let items = page(&book, "guides/docs/sidebar/items.mdx");
    assert_eq!(
        items.url, "/docs/sidebar/items",
        "front matter slug: /sidebar/items"
    );
    assert_eq!(items.title, "Sidebar items");
    let a = anchors(items);
    for want in [
        "sidebar-item-doc",
        "category-link",
        "generated-index-page",
        "doc-shorthand",
    ] {
        assert!(a.contains(&want), "missing #{want} in {a:?}");
    }
    let cat = items
        .sections
        .iter()
        .find(|s| s.anchor.as_deref() == Some("generated-index-page"))
        .expect("section");
    assert_eq!(cat.level, 4);
    assert_eq!(
        cat.hierarchy,
        vec![
            "Sidebar items",
            "Category: create a hierarchy",
            "Category links",
            "Generated index page"
        ]
    );

    let intro = page(&book, "introduction.mdx");
    assert_eq!(
        (intro.url.as_str(), intro.title.as_str()),
        ("/docs/", "Introduction")
    );

    let toc = page(&book, "guides/markdown-features/markdown-features-toc.mdx");
    assert_eq!(toc.url, "/docs/markdown-features/toc");
    assert_eq!(toc.id, "guides/markdown-features/toc");
    assert_eq!(
        toc.title, "Headings and Table of contents",
        "title after an import block"
    );
    assert!(anchors(toc).contains(&"heading-ids"));
    // `# Display h2 to h5 headings` inside a code fence is not a heading.
    assert!(toc
        .sections
        .iter()
        .all(|s| s.heading.as_deref() != Some("Display h2 to h5 headings")));

    let plugins = page(&book, "api/plugins/overview.mdx");
    assert_eq!(
        (plugins.url.as_str(), plugins.id.as_str()),
        ("/docs/api/plugins", "api/plugins/plugins-overview")
    );
    assert_eq!(
        plugins.module, "Api",
        "no _category_ in api/: humanised folder name"
    );
    let eslint = page(&book, "api/misc/eslint-plugin/README.mdx");
    assert_eq!(eslint.url, "/docs/api/misc/@docusaurus/eslint-plugin");

    let install = page(&book, "installation.mdx");
    assert_eq!(
        install.module, install.title,
        "root pages use their own title"
    );
    assert!(anchors(install).contains(&"requirements"));
}

#[test]
#[ignore = "needs ../shared/corpora (or BOOK_CHAT_CORPORA)"]
fn physical_ai_textbook() {
    let book = read("physical-ai-textbook");
    check_every_page(&book);
    assert!(
        book.pages.iter().all(|p| p.path != "_mdx-template.mdx"),
        "partials are skipped"
    );

    let intro = page(&book, "intro.md");
    assert_eq!(intro.url, "/docs/");
    assert_eq!(intro.title, "Welcome to Physical AI & Humanoid Robotics");

    let upper = page(&book, "00-introduction/INTRODUCTION.md");
    assert_eq!(
        upper.url, "/docs/introduction/INTRODUCTION",
        "not an index: names differ"
    );
    assert_eq!(upper.module, "Introduction");

    let readme = page(
        &book,
        "module-03-ai-robot-brain/chapter-07-isaac-sim-sdk/assets/README.md",
    );
    assert_eq!(
        readme.url,
        "/docs/module-03-ai-robot-brain/chapter-07-isaac-sim-sdk/assets/"
    );

    let vla = page(
        &book,
        "module-04-vision-language-action/chapter-08-voice-to-action/page-02-whisper-architecture.md",
    );
    assert_eq!(vla.module, "Module 04: Vision-Language-Action (VLA)");
    assert_eq!(vla.title, "OpenAI Whisper Architecture");
    assert_eq!(
        vla.url,
        "/docs/module-04-vision-language-action/chapter-08-voice-to-action/page-02-whisper-architecture"
    );
    assert_eq!(
        page(&book, "module-01-foundations/chapter-01-ros2-nervous-system/page-01-what-problem-does-ros2-solve.md").module,
        "Module 01 foundations"
    );
    assert!(book
        .pages
        .iter()
        .flat_map(|p| &p.sections)
        .any(|s| s.has_code));
}

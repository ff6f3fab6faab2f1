//! Bad docs (the bad-input matrix): broken front matter, unclosed code fences, duplicate
//! headings, 1 MB pages, non-ASCII headings, empty and odd files. The reader and chunker must give
//! a clear error or handle each sensibly, never panic; with the model present, the same folder goes
//! through the whole `build` pipeline and the result is searchable.

use std::path::Path;

use book_retrieval::bm25::Bm25Params;
use book_retrieval::{Index, SearchRequest, SearchSettings};
use index_builder::build::{build, BuildOptions};
use index_builder::chunker::{chunk_page, ChunkLimits};
use index_builder::docs::{read_book, read_page, CategoryLabels, Page, ReadOptions};

mod needs;

fn read(path: &str, src: &str) -> Page {
    let (page, _warnings) = read_page(path, src, &CategoryLabels::new(), &ReadOptions::default())
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    page
}

fn anchors(page: &Page) -> Vec<String> {
    page.sections
        .iter()
        .filter_map(|s| s.anchor.clone())
        .collect()
}

/// ~1 MB of prose in paragraphs under a few headings.
fn megabyte_page() -> String {
    let para = "Robots read sensors, plan motions and act on the world; each cycle repeats many times a second. ";
    let mut s = String::from("---\ntitle: Huge\n---\n\n");
    let mut n = 0;
    while s.len() < 1 << 20 {
        if n % 400 == 0 {
            s.push_str(&format!("\n## Part {}\n\n", n / 400));
        }
        s.push_str(para);
        if n % 8 == 7 {
            s.push_str("\n\n");
        }
        n += 1;
    }
    s
}

/// Every bad page, by file name.
fn bad_pages() -> Vec<(&'static str, String)> {
    vec![
        ("unclosed-front-matter.md", "---\ntitle: Never closed\nslug: /x\n\n# Body\n\nText here.\n".into()),
        ("bad-yaml.md", "---\ntitle: [unclosed\n  : : :\n---\n\n## Real heading\n\nText.\n".into()),
        ("yaml-list.md", "---\n- a\n- b\n---\n\n## Heading\n\nText.\n".into()),
        ("yaml-tabs.md", "---\ntitle:\tTabbed\n\tsidebar_position: x\n---\n\nText.\n".into()),
        ("unclosed-fence.md", "# Fence\n\nIntro.\n\n## Before\n\nText.\n\n```python\nprint('never closed')\n## Not a heading\n".into()),
        ("unclosed-tilde-fence.mdx", "## A\n\n~~~\ncode\n\n<Tabs>\n".into()),
        ("duplicate-headings.md", "# Dup\n\n## Setup\n\none\n\n## Setup\n\ntwo\n\n## Setup\n\nthree\n\n## Setup-1\n\nfour\n".into()),
        ("non-ascii.md", "---\ntitle: Введение\n---\n\n## Введение в ROS\n\nТекст.\n\n## 中文 标题\n\n内容。\n\n## Ünïcödé — «quotes» & emoji 🤖\n\nText.\n\n## مرحبا\n\nنص.\n".into()),
        ("empty.md", String::new()),
        ("only-front-matter.md", "---\ntitle: Nothing else\n---\n".into()),
        ("bom-crlf.md", "\u{feff}---\r\ntitle: Windows\r\n---\r\n\r\n## Heading\r\n\r\nText.\r\n".into()),
        ("nul-and-controls.md", "## A\u{0}B\n\ntext \u{1}\u{7f} more\n".into()),
        ("deep-headings.md", "# 1\n## 2\n### 3\n#### 4\n##### 5\n###### 6\n####### 7\n\ntext\n".into()),
        ("jsx-unclosed.mdx", "import X from './x';\n\n<div>\n<Tabs>\n\n## Inside\n\ntext {\n".into()),
        ("huge.md", megabyte_page()),
    ]
}

#[test]
fn every_bad_page_reads_and_chunks_without_panic() {
    for (path, src) in bad_pages() {
        let result = read_page(path, &src, &CategoryLabels::new(), &ReadOptions::default());
        match result {
            Ok((page, _)) => {
                assert!(!page.url.is_empty(), "{path}: no url");
                let chunks = chunk_page(&page, 0, ChunkLimits::default());
                for c in &chunks {
                    assert!(!c.chunk.text.trim().is_empty(), "{path}: empty chunk");
                    assert!(
                        c.chunk.meta.url.starts_with(&page.url),
                        "{path}: chunk url {} outside page {}",
                        c.chunk.meta.url,
                        page.url
                    );
                }
            }
            Err(e) => assert!(!e.to_string().is_empty(), "{path}: error without a message"),
        }
    }
}

#[test]
fn duplicate_headings_get_docusaurus_suffixes() {
    let page = read("duplicate-headings.md", &bad_pages()[6].1);
    // github-slugger: setup, setup-1, setup-2; then "Setup-1" collides and becomes setup-1-1.
    assert_eq!(anchors(&page), ["setup", "setup-1", "setup-2", "setup-1-1"]);
}

#[test]
fn non_ascii_headings_keep_their_letters() {
    let page = read("non-ascii.md", &bad_pages()[7].1);
    assert_eq!(page.title, "Введение");
    let a = anchors(&page);
    assert!(a.contains(&"введение-в-ros".to_string()), "{a:?}");
    assert!(a.contains(&"中文-标题".to_string()), "{a:?}");
    assert!(a.contains(&"مرحبا".to_string()), "{a:?}");
    assert!(a.iter().any(|x| x.starts_with("ünïcödé")), "{a:?}");
}

#[test]
fn an_unclosed_fence_runs_to_the_end_of_the_page() {
    let page = read("unclosed-fence.md", &bad_pages()[4].1);
    let headings: Vec<_> = page
        .sections
        .iter()
        .filter_map(|s| s.heading.clone())
        .collect();
    assert!(
        !headings.iter().any(|h| h.contains("Not a heading")),
        "{headings:?}"
    );
    assert!(page
        .sections
        .iter()
        .any(|s| s.text.contains("never closed")));
}

#[test]
fn a_megabyte_page_is_split_into_bounded_chunks() {
    let src = megabyte_page();
    let page = read("huge.md", &src);
    let limits = ChunkLimits::default();
    let chunks = chunk_page(&page, 0, limits);
    assert!(chunks.len() > 100, "{} chunks", chunks.len());
    for c in &chunks {
        let words = c.chunk.text.split_whitespace().count();
        assert!(words <= limits.max_words * 2, "a chunk of {words} words");
    }
}

#[test]
fn broken_front_matter_is_reported_not_fatal() {
    for (i, name) in [
        (0, "unclosed-front-matter.md"),
        (1, "bad-yaml.md"),
        (2, "yaml-list.md"),
    ] {
        let r = read_page(
            name,
            &bad_pages()[i].1,
            &CategoryLabels::new(),
            &ReadOptions::default(),
        );
        match r {
            Ok((page, _warnings)) => assert!(!page.title.is_empty(), "{name}: no title"),
            Err(e) => assert!(
                e.to_string().contains(name),
                "{name}: error does not name the file: {e}"
            ),
        }
    }
    // A slash in the id is an error Docusaurus also refuses.
    let r = read_page(
        "x.md",
        "---\nid: a/b\n---\ntext\n",
        &CategoryLabels::new(),
        &ReadOptions::default(),
    );
    assert!(r.is_err());
}

/// Writes the bad pages; `prose_megabyte: false` leaves out the 1 MB prose page (a thousand chunks
/// to embed: minutes of model time, so the pipeline test uses the 1 MB one-word page instead).
fn write_docs(dir: &Path, prose_megabyte: bool) {
    for (path, src) in bad_pages() {
        if path == "huge.md" && !prose_megabyte {
            continue;
        }
        std::fs::write(dir.join(path), src).unwrap();
    }
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("sub/_category_.json"), "{ not json").unwrap();
    std::fs::write(
        dir.join("sub/page.md"),
        "## Sub\n\nA page under a broken category file.\n",
    )
    .unwrap();
}

#[test]
fn the_whole_folder_reads_as_a_book() {
    let tmp = tempfile::tempdir().unwrap();
    write_docs(tmp.path(), true);
    match read_book(tmp.path(), &ReadOptions::default()) {
        Ok(book) => assert!(
            book.pages.len() >= bad_pages().len() - 1,
            "{} pages",
            book.pages.len()
        ),
        Err(e) => panic!("the bad docs folder failed to read: {e}"),
    }
}

#[test]
#[ignore = "needs the model (BOOK_CHAT_MODEL_DIR or scripts/setup.sh)"]
fn the_whole_build_pipeline_handles_bad_docs() {
    let model_dir = needs::model_dir();
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    write_docs(&docs, false);
    // The megabyte page as one 1 MB "word" too (minified blob): one chunk, truncated at encoding.
    std::fs::write(
        docs.join("blob.md"),
        format!("## Blob\n\n{}\n", "x".repeat(1 << 20)),
    )
    .unwrap();
    let opts = BuildOptions {
        docs,
        read: ReadOptions::default(),
        model_dir,
        cache: Some(tmp.path().join("cache.bin")),
        limits: ChunkLimits::default(),
        settings: SearchSettings::default(),
        bm25: Bm25Params::default(),
        common_vocab: 10000,
        word_min_uses: 1,
        word_rows: usize::MAX,
        pruned_words: Default::default(),
        // Exercise the HNSW section through the whole pipeline (write, load, search).
        ann_min_chunks: 1,
        title: "bad docs".into(),
        progress: false,
    };
    let built = build(&opts).expect("build of the bad docs failed");
    let out = tmp.path().join("out");
    index_builder::build::write_asset(&built, &out).expect("write_asset failed");
    let asset = index_builder::build::load_asset(&out).expect("the written asset does not load");
    let idx: &Index = &asset.index;
    assert_eq!(idx.len(), built.chunks.len());
    let encoder = asset.encoder.as_ref().expect("no encoder");
    for q in [
        "Введение в ROS",
        "中文 标题",
        "Setup",
        "never closed",
        "robots read sensors",
    ] {
        let v = encoder.encode(q);
        let r = idx.search(&SearchRequest::new(q, Some(&v)));
        assert!(!r.hits.is_empty(), "no hits for {q}");
    }
    let r = idx.search(&SearchRequest::new("Введение в ROS", None));
    let top = idx.chunk(r.hits[0].chunk).unwrap();
    assert_eq!(top.path, "non-ascii.md");
}

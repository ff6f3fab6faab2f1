//! Walking a docs folder the way the Docusaurus docs plugin globs it:
//! include `**/*.{md,mdx}`, exclude `**/_*.{md,mdx}` and `**/_*/**` (partials and private
//! folders) and dot files/folders (globby's default). `_category_.*` files are read for
//! folder labels.

use super::category::{self, CategoryLabels, CATEGORY_FILES};
use super::{read_page, Book, DocsError, ReadOptions, Warning};
use std::collections::HashMap;
use std::path::Path;
use walkdir::WalkDir;

/// Read every published doc under `docs_dir`, in sorted path order.
///
/// Errors: the folder (or a file in it) cannot be read, or a page has an id/slug
/// Docusaurus would refuse. Everything else is a warning in [`Book::warnings`].
/// `draft: true` pages are left out (listed in [`Book::drafts`]).
pub fn read_book(docs_dir: &Path, opts: &ReadOptions) -> Result<Book, DocsError> {
    let meta = std::fs::metadata(docs_dir).map_err(|source| DocsError::Io {
        path: docs_dir.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(DocsError::NotADirectory {
            path: docs_dir.to_path_buf(),
        });
    }

    let mut warnings = Vec::new();
    let mut doc_files = Vec::new();
    let mut categories = CategoryLabels::new();
    let walker = WalkDir::new(docs_dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_hidden_or_private(e.file_name()));
    for entry in walker {
        let entry = entry.map_err(|e| {
            let path = e.path().unwrap_or(docs_dir).to_path_buf();
            DocsError::Io {
                path,
                source: e
                    .into_io_error()
                    .unwrap_or_else(|| std::io::Error::other("file system loop")),
            }
        })?;
        let Ok(rel) = entry.path().strip_prefix(docs_dir) else {
            continue;
        };
        let Some(rel) = rel.to_str().map(|s| s.replace('\\', "/")) else {
            warnings.push(Warning::new(
                &entry.path().to_string_lossy(),
                None,
                "path is not valid UTF-8; skipped",
            ));
            continue;
        };
        if entry.file_type().is_dir() {
            if let Some(label) = read_category(docs_dir, &rel, &mut warnings)? {
                categories.insert(rel, label);
            }
        } else if entry.file_type().is_file()
            && (rel.ends_with(".md") || rel.ends_with(".mdx"))
            && opts
                .permalinks
                .as_ref()
                .is_none_or(|p| p.contains_key(&rel))
        {
            // With the plugin's permalinks, exactly the docs Docusaurus published.
            doc_files.push(rel);
        }
    }
    doc_files.sort();

    let mut book = Book::default();
    for rel in doc_files {
        let path = docs_dir.join(&rel);
        let bytes = std::fs::read(&path).map_err(|source| DocsError::Io {
            path: path.clone(),
            source,
        })?;
        let text = match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => {
                warnings.push(Warning::new(
                    &rel,
                    None,
                    "file is not valid UTF-8; invalid bytes replaced",
                ));
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        };
        let (page, page_warnings) = read_page(&rel, &text, &categories, opts)?;
        warnings.extend(page_warnings);
        if page.draft {
            book.drafts.push(rel);
        } else {
            book.pages.push(page);
        }
    }
    warn_duplicates(&book, &mut warnings);
    book.warnings = warnings;
    Ok(book)
}

/// Names Docusaurus never reads as docs: partials/private (`_x`) and dot files.
fn is_hidden_or_private(name: &std::ffi::OsStr) -> bool {
    let name = name.to_string_lossy();
    name.starts_with('_') || name.starts_with('.')
}

/// The label of folder `rel` (relative path, "" for the docs root) from its category file.
fn read_category(
    docs_dir: &Path,
    rel: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Option<String>, DocsError> {
    let dir = docs_dir.join(rel);
    let present: Vec<&str> = CATEGORY_FILES
        .iter()
        .copied()
        .filter(|f| dir.join(f).is_file())
        .collect();
    let Some(first) = present.first() else {
        return Ok(None);
    };
    let file_rel = if rel.is_empty() {
        first.to_string()
    } else {
        format!("{rel}/{first}")
    };
    if present.len() > 1 {
        warnings.push(Warning::new(
            &file_rel,
            None,
            format!(
                "folder has several category files ({}); using {first}",
                present.join(", ")
            ),
        ));
    }
    let path = dir.join(first);
    let text = std::fs::read_to_string(&path).map_err(|source| DocsError::Io { path, source })?;
    Ok(category::parse_label(first, &text, &file_rel, warnings))
}

/// Docusaurus warns about routes and ids used twice; so do we.
fn warn_duplicates(book: &Book, warnings: &mut Vec<Warning>) {
    let mut by_url: HashMap<&str, &str> = HashMap::new();
    let mut by_id: HashMap<&str, &str> = HashMap::new();
    for page in &book.pages {
        if let Some(other) = by_url.insert(&page.url, &page.path) {
            warnings.push(Warning::new(
                &page.path,
                None,
                format!("URL {} is also the URL of {other}", page.url),
            ));
        }
        if let Some(other) = by_id.insert(&page.id, &page.path) {
            warnings.push(Warning::new(
                &page.path,
                None,
                format!("doc id {} is also the id of {other}", page.id),
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(p, text).unwrap();
    }

    #[test]
    fn walks_like_docusaurus() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        write(root, "intro.md", "---\nslug: /\n---\n# Welcome\n\nHi.\n");
        write(root, "_partial.mdx", "partial");
        write(root, "_private/x.md", "private");
        write(root, ".hidden/y.md", "hidden");
        write(root, "notes.txt", "not a doc");
        write(
            root,
            "01-guides/_category_.json",
            r#"{"label": "The Guides"}"#,
        );
        write(
            root,
            "01-guides/02-setup.md",
            "# Setup\n\n## Install\n\nRun it.\n",
        );
        write(root, "01-guides/index.md", "Guides home.\n");
        write(root, "01-guides/draft.md", "---\ndraft: true\n---\nWIP\n");
        write(root, "02-misc/README.md", "---\ntitle: Misc\n---\nMisc.\n");
        write(root, "02-misc/_category_.yml", "label: [broken\n");

        let book = read_book(root, &ReadOptions::default()).unwrap();
        let got: Vec<(&str, &str, &str, &str)> = book
            .pages
            .iter()
            .map(|p| {
                (
                    p.path.as_str(),
                    p.url.as_str(),
                    p.title.as_str(),
                    p.module.as_str(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "01-guides/02-setup.md",
                    "/docs/guides/setup",
                    "Setup",
                    "The Guides"
                ),
                ("01-guides/index.md", "/docs/guides/", "index", "The Guides"),
                ("02-misc/README.md", "/docs/misc/", "Misc", "Misc"),
                ("intro.md", "/docs/", "Welcome", "Welcome"),
            ]
        );
        assert_eq!(book.drafts, vec!["01-guides/draft.md"]);
        let setup = &book.pages[0];
        assert_eq!(setup.sidebar_position, Some(2.0));
        assert_eq!(setup.sections[0].anchor.as_deref(), Some("install"));
        assert_eq!(setup.sections[0].hierarchy, vec!["Setup", "Install"]);
        assert_eq!(book.warnings.len(), 1, "{:?}", book.warnings);
        assert_eq!(book.warnings[0].path, "02-misc/_category_.yml");
    }

    #[test]
    fn duplicate_routes_warn() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.md", "---\nslug: /same\n---\nA\n");
        write(dir.path(), "b.md", "---\nslug: /same\n---\nB\n");
        let book = read_book(dir.path(), &ReadOptions::default()).unwrap();
        assert_eq!(book.pages.len(), 2);
        assert_eq!(book.warnings.len(), 1);
        assert!(book.warnings[0].message.contains("/docs/same"));
    }

    #[test]
    fn errors() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            read_book(&dir.path().join("missing"), &ReadOptions::default()),
            Err(DocsError::Io { .. })
        ));
        write(dir.path(), "f.md", "x");
        assert!(matches!(
            read_book(&dir.path().join("f.md"), &ReadOptions::default()),
            Err(DocsError::NotADirectory { .. })
        ));
        write(dir.path(), "bad/x.md", "---\nid: a/b\n---\n");
        let e = read_book(&dir.path().join("bad"), &ReadOptions::default()).unwrap_err();
        assert!(matches!(e, DocsError::InvalidId { line: 2, .. }), "{e}");
    }

    #[test]
    fn non_utf8_is_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("x.md"), b"# T\n\nbad \xff byte\n").unwrap();
        let book = read_book(dir.path(), &ReadOptions::default()).unwrap();
        assert_eq!(book.pages.len(), 1);
        assert_eq!(book.warnings.len(), 1);
        assert!(book.pages[0].sections[0].text.contains("bad \u{fffd} byte"));
    }
}

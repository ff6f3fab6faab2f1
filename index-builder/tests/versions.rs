//! A versioned book read as Docusaurus publishes it: the shared hydra-docs corpus (versions.json,
//! versioned_docs/) read once per version with that version's route prefix, as the Docusaurus
//! plugin does (the last listed version at /docs/, the others at /docs/<version>/, the working
//! copy at /docs/next/). Every page of every version reads, and cites only its own version.

use std::collections::HashSet;
use std::path::PathBuf;

use index_builder::docs::{read_book, ReadOptions};

fn hydra() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("BOOK_CHAT_CORPORA")
        .map(|c| PathBuf::from(c).join("hydra-docs"))
        .into_iter()
        .chain([
            manifest.join("../../shared/corpora/hydra-docs"),
            manifest.join("../shared/corpora/hydra-docs"),
        ])
    .find(|p| p.join("versions.json").is_file())
    .expect("the hydra-docs corpus is not on this machine (../shared/corpora/hydra-docs, or set BOOK_CHAT_CORPORA)")
}

#[test]
#[ignore = "needs the shared corpus hydra-docs next to the repository"]
fn every_version_of_a_versioned_book_reads_under_its_own_route() {
    let root = hydra();
    let versions: Vec<String> =
        serde_json::from_str(&std::fs::read_to_string(root.join("versions.json")).unwrap())
            .unwrap();
    assert!(versions.len() >= 2, "{versions:?}");
    let mut folders = vec![(root.join("docs"), "/docs/next".to_string())];
    for (i, v) in versions.iter().enumerate() {
        let route = if i == 0 {
            "/docs".to_string()
        } else {
            format!("/docs/{v}")
        };
        // The shared copy keeps a subset of the versions' folders.
        let dir = root.join(format!("versioned_docs/version-{v}"));
        if dir.is_dir() {
            folders.push((dir, route));
        }
    }
    assert!(folders.len() >= 3, "{folders:?}");
    let mut all_urls = HashSet::new();
    for (dir, route) in folders {
        let opts = ReadOptions {
            route_base_path: route.clone(),
            ..Default::default()
        };
        let book = read_book(&dir, &opts)
            .unwrap_or_else(|e| panic!("{}: reading failed: {e}", dir.display()));
        println!(
            "{} -> {route}/: {} pages, {} warnings",
            dir.display(),
            book.pages.len(),
            book.warnings.len()
        );
        assert!(!book.pages.is_empty(), "{}", dir.display());
        for p in &book.pages {
            assert!(
                p.url.starts_with(&format!("{route}/")),
                "{} -> {}",
                p.path,
                p.url
            );
            // The latest version's routes must not be mistaken for another version's.
            if route == "/docs" {
                let other = versions[1..]
                    .iter()
                    .chain(std::iter::once(&"next".to_string()))
                    .any(|v| p.url.starts_with(&format!("/docs/{v}/")));
                assert!(!other, "{} -> {}", p.path, p.url);
            }
            assert!(
                all_urls.insert(p.url.clone()),
                "URL {} in two versions",
                p.url
            );
        }
    }
}

//! Prerequisites of the data-dependent tests. Those tests are `#[ignore = "needs ..."]`, so a plain
//! `cargo test` lists them as ignored; the test command runs them with `--include-ignored`, and
//! then a missing prerequisite fails the test with the way to get it, instead of passing unseen.

#![allow(dead_code)] // each test file uses some of these

use std::path::PathBuf;

use index_builder::model;

/// The model folder (`$BOOK_CHAT_MODEL_DIR`, else the folder `scripts/setup.sh` fills).
pub fn model_dir() -> PathBuf {
    let dir = model::resolve_model_dir(None);
    for file in ["model.safetensors", "vocab.txt"] {
        assert!(
            dir.join(file).is_file(),
            "needs the model: {} not found (run scripts/setup.sh, or set {})",
            dir.join(file).display(),
            model::MODEL_DIR_ENV
        );
    }
    dir
}

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Environment variable naming the folder of the shared real books.
pub const CORPORA_ENV: &str = "BOOK_CHAT_CORPORA";

/// The folder of the shared real books: `$BOOK_CHAT_CORPORA`, else `<repo>/../shared/corpora`
/// (or `<repo>/../../shared/corpora`, for a git worktree one level deeper).
pub fn corpora() -> PathBuf {
    let dir = std::env::var_os(CORPORA_ENV)
        .map(PathBuf::from)
        .or_else(|| {
            ["../shared/corpora", "../../shared/corpora"]
                .into_iter()
                .map(|p| repo().join(p))
                .find(|p| p.is_dir())
        })
        .unwrap_or_else(|| repo().join("../shared/corpora"));
    assert!(
        dir.is_dir(),
        "needs the shared books: {} not found (set {CORPORA_ENV})",
        dir.display()
    );
    dir
}

/// The `docs` folder of the shared book `name`.
pub fn corpus(name: &str) -> PathBuf {
    let dir = corpora().join(name).join("docs");
    assert!(dir.is_dir(), "needs the shared book {}", dir.display());
    dir
}

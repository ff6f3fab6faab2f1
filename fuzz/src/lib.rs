//! The fuzzed entry points, one function per target. Each takes arbitrary bytes and must return
//! without panicking; `fuzz_targets/*.rs` hand them to libFuzzer, `tests/regressions.rs` replays
//! seeds, the saved corpus and past crashes on the stable toolchain.

use book_retrieval::testing;
use book_retrieval::tokenizer::WordPiece;
use book_retrieval::{ChunkTexts, Index, Mode, SearchRequest};

/// One fuzz entry point: arbitrary bytes in, no panic out.
pub type Target = fn(&[u8]);

/// Every target, by name (the names of `fuzz_targets/*.rs` and of the corpus folders).
pub const TARGETS: &[(&str, Target)] = &[
    ("index_loader", index_loader),
    ("chunk_texts", chunk_texts),
    ("encoder_loader", encoder_loader),
    ("analyzer", analyzer),
    ("wordpiece", wordpiece),
    ("docs_page", docs_page),
    ("sse", sse),
    ("citations", citations),
    #[cfg(feature = "ann")]
    ("ann_loader", ann_loader),
];

/// Text from bytes: lossy, so every input reaches the parser (invalid UTF-8 becomes U+FFFD).
fn text(data: &[u8]) -> String {
    String::from_utf8_lossy(data).into_owned()
}

/// The index loader; whatever loads must also search without panicking.
pub fn index_loader(data: &[u8]) {
    if let Ok(idx) = Index::from_bytes(data, None) {
        let v = vec![0.5f32; idx.dim()];
        for mode in [Mode::Hybrid, Mode::Bm25Only, Mode::DenseOnly] {
            let mut req = SearchRequest::new("nodes publish physics", Some(&v));
            req.mode = mode;
            let _ = idx.search(&req);
        }
    }
}

/// The chunk-text loader: the first 4 bytes choose the expected count.
pub fn chunk_texts(data: &[u8]) {
    let (count, rest) = match data {
        [a, b, c, d, rest @ ..] => (u32::from_le_bytes([*a, *b, *c, *d]) as usize % 64, rest),
        _ => (0, data),
    };
    if let Ok(t) = ChunkTexts::from_bytes(rest, "0123456789abcdef", count) {
        for i in 0..count as u32 + 1 {
            let _ = t.get(i);
        }
    }
}

/// The encoder loader; a loaded encoder must encode a question.
pub fn encoder_loader(data: &[u8]) {
    if let Ok(enc) = book_retrieval::Encoder::from_bytes(data) {
        let _ = enc.encode("how do nodes talk?");
    }
}

/// The BM25 analyzer (also run on every question in the browser).
pub fn analyzer(data: &[u8]) {
    let _ = book_retrieval::analyzer::analyze(&text(data));
}

/// A small WordPiece vocabulary exercising every path (specials, continuations, punctuation).
pub const VOCAB: &str = "[PAD]\n[UNK]\n[CLS]\n[SEP]\n[MASK]\nthe\nnode\n##s\npub\n##lish\n.\n,\n?\n!\na\nb\n##a\n##b\né\n中\n";

/// WordPiece tokenization: the first byte chooses the length limit.
pub fn wordpiece(data: &[u8]) {
    let Ok(wp) = WordPiece::from_vocab_text(VOCAB) else {
        return;
    };
    let (max, rest) = match data.split_first() {
        Some((m, rest)) => (*m as usize, rest),
        None => (0, data),
    };
    let ids = wp.encode(&text(rest), max);
    assert!(
        max < 2 || ids.len() <= max,
        "encode returned more ids than asked for"
    );
    assert!(ids.iter().all(|&i| (i as usize) < wp.vocab_len()));
}

/// The docs reader on one page (front matter, MDX cleaning, headings, anchors).
pub fn docs_page(data: &[u8]) {
    let opts = index_builder::docs::ReadOptions::default();
    let cats = index_builder::docs::CategoryLabels::new();
    let src = text(data);
    for path in ["intro.md", "01-part/02-page.mdx", "guide/index.md"] {
        let _ = index_builder::docs::read_page(path, &src, &cats, &opts);
    }
}

/// The widget's SSE parser, fed in two pieces split at the first byte's position.
pub fn sse(data: &[u8]) {
    let (cut, rest) = match data.split_first() {
        Some((c, rest)) => (*c as usize, rest),
        None => (0, data),
    };
    let cut = cut.min(rest.len());
    let mut p = book_chat::sse::SseParser::default();
    let mut events = p.push(&rest[..cut]);
    events.extend(p.push(&rest[cut..]));
    events.extend(p.finish());
    for ev in &events {
        let _ = book_chat::sse::interpret(ev);
    }
    let _ = book_chat::sse::parse_error_body(&text(rest));
}

/// The citation parser: the first byte is the number of sources.
pub fn citations(data: &[u8]) {
    let (n, rest) = match data.split_first() {
        Some((n, rest)) => (*n as usize % 12, rest),
        None => (0, data),
    };
    let t = text(rest);
    let _ = book_chat::citations::split(&t, n);
    let cited = book_chat::citations::cited(&t, n);
    assert!(
        cited.iter().all(|&c| c >= 1 && c <= n),
        "cited a source out of range"
    );
    let c = book_chat::citations::coverage(&t, n);
    assert!(c.is_finite());
}

/// The HNSW graph loader over fixed vectors; a loaded graph must search. (The index loader also
/// reaches it, through the index file's optional graph section.)
#[cfg(feature = "ann")]
pub fn ann_loader(data: &[u8]) {
    let idx = testing::index();
    if let Ok(ann) = book_retrieval::ann::Ann::from_bytes(data, &idx.vectors) {
        let _ = ann.search(&[0.5; testing::DIM], 3);
    }
}

/// Valid inputs for each target, the starting points of the corpus.
pub fn seeds(target: &str) -> Vec<Vec<u8>> {
    let idx = testing::index();
    let index_bytes = testing::index_bytes();
    match target {
        "index_loader" => {
            #[allow(unused_mut)]
            let mut v = vec![index_bytes];
            // The same index with its HNSW section, so mutations reach the graph loader too.
            #[cfg(feature = "ann")]
            {
                let mut with_graph = testing::index();
                with_graph.ann = Some(std::sync::Arc::new(
                    book_retrieval::ann::Ann::from_quantized(&with_graph.vectors, 1),
                ));
                v.extend(with_graph.to_bytes().ok());
            }
            v
        }
        "chunk_texts" => {
            let t = ChunkTexts::new(
                "0123456789abcdef".into(),
                vec!["a".into(), "b é".into(), String::new()],
            );
            let mut v = 3u32.to_le_bytes().to_vec();
            v.extend(t.to_bytes().unwrap_or_default());
            vec![v]
        }
        "encoder_loader" => vec![b"BKCHENC\0\x01\x00\x00\x00".to_vec()],
        "analyzer" => vec![
            b"How do ROS 2 nodes publish camelCaseTopics?".to_vec(),
            "Qu'est-ce que l'IA physique ? 中文 \u{200b}".as_bytes().to_vec(),
        ],
        "wordpiece" => vec![
            b"\x10the nodes publish, a b?".to_vec(),
            "\x05é中 unknownword !!".as_bytes().to_vec(),
        ],
        "docs_page" => vec![
            b"---\ntitle: Hello\nslug: /x\ntags: [a, b]\n---\n# Title\n\nText.\n\n## Part {#custom}\n\n```py\nprint(1)\n```\n\n:::tip Note\nhi\n:::\n\n<Tabs><TabItem value=\"a\">x</TabItem></Tabs>\n".to_vec(),
            b"import X from '@site/x';\n\n## Dup\n\n## Dup\n\n<!-- c -->\n".to_vec(),
        ],
        "sse" => vec![
            b"\x0bdata: {\"choices\":[{\"delta\":{\"content\":\"Hi [1]\"}}]}\n\ndata: [DONE]\n\n".to_vec(),
            b"\x03event: error\ndata: {\"error\":{\"message\":\"rate limited\",\"code\":\"rate_limit\"}}\n\n".to_vec(),
        ],
        "citations" => vec![
            b"\x03Nodes talk over topics [1], [2][3] and services [1, 2].".to_vec(),
            b"\x02Out of range [9] and broken [1".to_vec(),
        ],
        #[cfg(feature = "ann")]
        "ann_loader" => vec![book_retrieval::ann::Ann::from_quantized(&idx.vectors, 1)
            .to_bytes()
            .unwrap_or_default()],
        _ => Vec::new(),
    }
}

//! Splits pages into chunks along the heading hierarchy, with size bounds: every chunk belongs to
//! exactly one section (so every result names the section it came from); long sections are split on
//! paragraph boundaries (never inside a code block); every chunk carries its heading path so short
//! sections are still understood in context.

use book_answer::passage::is_table_row;
use book_answer::text::Fence;
use book_retrieval::hash::content_hash;
use book_retrieval::{Chunk, ChunkMeta};

use crate::docs::Page;

/// Size bounds, in words.
#[derive(Debug, Clone, Copy)]
pub struct ChunkLimits {
    /// A section longer than this is split.
    pub max_words: usize,
    /// A trailing piece shorter than this is merged into the previous one.
    pub min_words: usize,
}

impl Default for ChunkLimits {
    fn default() -> Self {
        // ~170 words is ~230 WordPiece tokens: the whole chunk fits MiniLM's 256-token window.
        Self {
            max_words: 170,
            min_words: 40,
        }
    }
}

/// A chunk plus the texts the retrievers index.
#[derive(Debug, Clone)]
pub struct BuiltChunk {
    /// The chunk as the asset stores it (what excerpts quote and prompts ground on).
    pub chunk: Chunk,
    /// What the chunk is searched by (BM25 body, passage vectors): its text without the table
    /// header that [`with_table_header`] repeats for display, so a long table's header words do
    /// not count once per part.
    pub search_text: String,
    /// Input of the dense encoder: heading path, then text.
    pub embed_text: String,
    /// BM25 field: the section's own heading.
    pub heading: String,
    /// The heading is one inline code span (`` ### `future` ``): a name from the code, which the
    /// follow-up keeps as code.
    pub heading_is_code: bool,
    /// BM25 field: the page title and the ancestor headings.
    pub titles: String,
}

/// Chunks every section of `page` (page index `page_no`).
pub fn chunk_page(page: &Page, page_no: u32, limits: ChunkLimits) -> Vec<BuiltChunk> {
    let mut out = Vec::new();
    for section in &page.sections {
        let text = section.text.trim();
        if text.is_empty() {
            continue;
        }
        let url = match &section.anchor {
            Some(a) => format!("{}#{}", page.url, a),
            None => page.url.clone(),
        };
        let mut headings = section.hierarchy.clone();
        if headings.first() != Some(&page.title) {
            headings.insert(0, page.title.clone());
        }
        let context = headings.join(" › ");
        let pieces = split_text(text, limits);
        for (part, piece) in pieces.iter().enumerate() {
            let id =
                content_hash(format!("{}\n{}\n{}\n{}", page.path, url, part, piece).as_bytes());
            let meta = ChunkMeta {
                id,
                module: page.module.clone(),
                chapter: page.title.clone(),
                section: section.heading.clone(),
                headings: headings.clone(),
                url: url.clone(),
                path: page.path.clone(),
                has_code: piece.contains("```"),
                page: page_no,
            };
            let embed_text = format!("{context}\n{piece}");
            let ancestors = headings[..headings
                .len()
                .saturating_sub(usize::from(section.heading.is_some()))]
                .join(" ");
            out.push(BuiltChunk {
                chunk: Chunk {
                    meta,
                    text: with_table_header(text, piece),
                },
                search_text: piece.clone(),
                embed_text,
                heading: section.heading.clone().unwrap_or_default(),
                heading_is_code: section.heading_is_code,
                titles: format!(
                    "{} {}",
                    ancestors,
                    page.description.as_deref().unwrap_or("")
                ),
            });
        }
    }
    out
}

/// Words per passage vector: a few sentences, one detail. Chosen leave-one-book-out among 40, 45,
/// 50, 55 and 60 (section MRR + R@5 summed over the other four labelled books: 45 in every fold;
/// `eval/QUALITY.md`): a smaller passage says one thing, so a question about it finds its section.
pub const PASSAGE_WORDS: usize = 45;

/// The passages of a chunk's text, for its passage vectors: pieces of about [`PASSAGE_WORDS`]
/// words, cut like chunks are (paragraphs, then sentences; never inside a code line).
pub fn passages(text: &str) -> Vec<String> {
    split_text(
        text,
        ChunkLimits {
            max_words: PASSAGE_WORDS,
            min_words: PASSAGE_WORDS / 3,
        },
    )
}

/// Splits a section's text into pieces of at most `max_words` (unless one block is larger),
/// on blank lines outside code fences.
pub fn split_text(text: &str, limits: ChunkLimits) -> Vec<String> {
    let blocks = blocks(text);
    let mut pieces: Vec<String> = Vec::new();
    let mut cur = String::new();
    let mut cur_words = 0;
    // Where the piece's last block starts in `cur`.
    let mut last_start = 0;
    for block in blocks {
        for part in split_block(&block, limits.max_words) {
            let w = words(&part);
            if cur_words > 0 && cur_words + w > limits.max_words {
                // A lead-in ("Create `detector_node.py`:") goes with the block it introduces:
                // the cut comes before it, or, when the piece is nothing but the lead-in, not at
                // all. Cut off, it answers nothing and its block's part lacks what it is.
                let tail = &cur[last_start..];
                let leads_in = is_lead_in(tail, limits.max_words / 3);
                if leads_in && last_start > 0 {
                    let lead_in = cur.split_off(last_start);
                    pieces.push(cur.trim_end().to_string());
                    cur_words = words(&lead_in);
                    cur = lead_in;
                } else if !leads_in {
                    pieces.push(std::mem::take(&mut cur));
                    cur_words = 0;
                }
            }
            if !cur.is_empty() {
                cur.push_str("\n\n");
            }
            last_start = cur.len();
            cur.push_str(&part);
            cur_words += w;
        }
    }
    if !cur.trim().is_empty() {
        if cur_words < limits.min_words && !pieces.is_empty() {
            if let Some(last) = pieces.last_mut() {
                last.push_str("\n\n");
                last.push_str(&cur);
            }
        } else {
            pieces.push(cur);
        }
    }
    pieces
}

fn words(s: &str) -> usize {
    s.split_whitespace().count()
}

/// Whether `block` is a short paragraph announcing what follows (ends with a colon), at most
/// `max_words` long.
fn is_lead_in(block: &str, max_words: usize) -> bool {
    let b = block.trim();
    b.ends_with(':') && !b.starts_with("```") && !b.starts_with("~~~") && words(b) <= max_words
}

/// Paragraph blocks: separated by blank lines, except that a fenced code block is one block.
fn blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    let mut fence: Option<Fence> = None;
    for line in text.lines() {
        if let Some(f) = fence {
            cur.push(line);
            if f.closed_by(line) {
                fence = None;
            }
            continue;
        }
        if let Some(f) = Fence::open(line) {
            fence = Some(f);
            cur.push(line);
            continue;
        }
        if line.trim().is_empty() {
            if !cur.is_empty() {
                out.push(cur.join("\n"));
                cur.clear();
            }
        } else {
            cur.push(line);
        }
    }
    if !cur.is_empty() {
        out.push(cur.join("\n"));
    }
    out
}

/// A block over the limit is split on sentence ends (prose) or lines (code); never mid-line.
fn split_block(block: &str, max_words: usize) -> Vec<String> {
    if words(block) <= max_words * 3 / 2 {
        return vec![block.to_string()];
    }
    let is_code = block.trim_start().starts_with("```") || block.trim_start().starts_with("~~~");
    let lines: Vec<&str> = block.lines().collect();
    let starts = lines
        .iter()
        .filter(|l| starts_row_or_item(l.trim_start()))
        .count();
    // A table or a list: cut between rows or items, keeping its lines (joined with spaces they
    // read as one run-on line that no excerpt can quote as a table or list).
    let structured = !is_code
        && starts >= 2
        && lines
            .first()
            .is_some_and(|l| starts_row_or_item(l.trim_start()));
    let units: Vec<String> = if is_code {
        block.lines().map(str::to_string).collect()
    } else if structured {
        let mut units: Vec<String> = Vec::new();
        for line in &lines {
            match units.last_mut() {
                // A wrapped item's next line stays with its item.
                Some(last) if !starts_row_or_item(line.trim_start()) => {
                    last.push('\n');
                    last.push_str(line);
                }
                _ => units.push(line.to_string()),
            }
        }
        units
    } else {
        split_sentences(block)
    };
    let sep = if is_code || structured { "\n" } else { " " };
    let mut out = Vec::new();
    let mut cur = String::new();
    for u in units {
        if !cur.is_empty() && words(&cur) + words(&u) > max_words {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push_str(sep);
        }
        cur.push_str(&u);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    if is_code && out.len() > 1 {
        // Each part of a long code block stays a well-formed fenced block.
        let lang_line = block.lines().next().unwrap_or("```").to_string();
        let fence: String = lang_line
            .trim_start()
            .chars()
            .take_while(|&c| c == '`' || c == '~')
            .collect();
        let n = out.len();
        for (i, part) in out.iter_mut().enumerate() {
            if i > 0 {
                *part = format!("{lang_line}\n{part}");
            }
            if i + 1 < n {
                part.push('\n');
                part.push_str(&fence);
            }
        }
    }
    out
}

/// `piece` of `section`, headed by its table's header row when it starts inside a table that the
/// split cut (a later part of a long table): the part still says what its columns are, and an
/// excerpt can quote it as a table.
pub fn with_table_header(section: &str, piece: &str) -> String {
    let Some(first) = piece
        .lines()
        .next()
        .filter(|l| is_table_row(l.trim_start()))
    else {
        return piece.to_string();
    };
    let lines: Vec<&str> = section.lines().collect();
    let Some(at) = lines.iter().position(|l| *l == first) else {
        return piece.to_string();
    };
    let top = (0..at)
        .rev()
        .take_while(|&i| is_table_row(lines[i].trim_start()))
        .last();
    match top {
        Some(h) => format!("{}\n{piece}", lines[h]),
        None => piece.to_string(),
    }
}

/// Whether a line starts a table row or a list item (`- `, `* `, `+ `, `1. `, `1) `).
fn starts_row_or_item(t: &str) -> bool {
    let digits = t.chars().take_while(char::is_ascii_digit).count();
    is_table_row(t)
        || ["- ", "* ", "+ "].iter().any(|m| t.starts_with(m))
        || ((1..4).contains(&digits)
            && (t[digits..].starts_with(". ") || t[digits..].starts_with(") ")))
}

fn split_sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for word in text.split_whitespace() {
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
        if word.ends_with(['.', '!', '?']) {
            out.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_cut_a_long_chunk_into_details() {
        let para = |w: &str| vec![w; 40].join(" ") + ".";
        let text = [para("alpha"), para("beta"), para("gamma")].join("\n\n");
        let parts = passages(&text);
        assert!(parts.len() >= 2, "{parts:?}");
        assert!(parts.iter().all(|p| words(p) <= PASSAGE_WORDS * 3 / 2));
        assert_eq!(passages("one short paragraph.").len(), 1);
    }

    #[test]
    fn short_text_is_one_piece() {
        assert_eq!(
            split_text("One paragraph.\n\nTwo.", ChunkLimits::default()).len(),
            1
        );
    }

    #[test]
    fn long_text_splits_on_paragraphs_and_keeps_code_whole() {
        let para = "word ".repeat(100);
        let code = format!("```python\n{}\n\nprint(1)\n```", "x = 1\n".repeat(20));
        let text = format!("{para}\n\n{code}\n\n{para}\n\n{para}");
        let pieces = split_text(
            &text,
            ChunkLimits {
                max_words: 170,
                min_words: 40,
            },
        );
        assert!(pieces.len() >= 3, "{pieces:?}");
        let with_code: Vec<_> = pieces.iter().filter(|p| p.contains("```python")).collect();
        assert_eq!(with_code.len(), 1);
        assert!(with_code[0].contains("print(1)\n```"));
    }

    #[test]
    fn huge_paragraph_splits_on_sentences() {
        let text = "This is a sentence of eight words here. ".repeat(100);
        let pieces = split_text(&text, ChunkLimits::default());
        assert!(pieces.len() > 3);
        assert!(pieces.iter().all(|p| words(p) <= 180));
    }

    #[test]
    fn long_tables_and_lists_split_between_rows_and_keep_their_lines() {
        let mut table = String::from("Name | Type | Description\n");
        for i in 0..40 {
            table.push_str(&format!(
                "`field{i}` | `string` | What field {i} does, in a few words of prose.\n"
            ));
        }
        let table = table.trim_end();
        let parts = split_block(table, 60);
        assert!(parts.len() > 2);
        assert!(parts[1..]
            .iter()
            .all(|p| p.lines().all(|l| l.starts_with("`field"))));
        let rows: usize = parts.iter().map(|p| p.lines().count()).sum();
        assert_eq!(rows, 41);
        // For display, each later part is headed by the table's header.
        for part in &parts {
            let shown = with_table_header(table, part);
            let lines: Vec<&str> = shown.lines().collect();
            assert_eq!(lines[0], "Name | Type | Description");
            assert!(
                lines[1..].iter().all(|l| l.starts_with("`field")),
                "{shown}"
            );
        }
        assert_eq!(with_table_header(table, "Some prose."), "Some prose.");
        let mut list = String::new();
        for i in 0..30 {
            list.push_str(&format!(
                "- Item {i} says one thing about the robot\n  and wraps.\n"
            ));
        }
        let parts = split_block(list.trim_end(), 40);
        assert!(parts.len() > 1);
        for part in &parts {
            assert!(part.starts_with("- Item"), "{part}");
            assert!(
                part.lines().count() % 2 == 0,
                "an item keeps its wrapped line: {part}"
            );
        }
    }

    #[test]
    fn a_lead_in_stays_with_the_block_it_introduces() {
        let code = format!("```python\n{}```", "x = detect(image, model)\n".repeat(120));
        let lead_in = "Create `robot_vision/detector_node.py`:";
        // Alone before a long block: not cut off.
        let pieces = split_text(&format!("{lead_in}\n\n{code}"), ChunkLimits::default());
        assert!(pieces.len() > 1);
        assert!(pieces[0].starts_with(lead_in), "{}", pieces[0]);
        assert!(pieces[0].contains("detect(image"), "{}", pieces[0]);
        // After other paragraphs: the cut comes before it.
        let prose = "The node subscribes to camera images and publishes detections. ".repeat(14);
        let text = format!("{prose}\n\n{lead_in}\n\n{code}");
        let pieces = split_text(&text, ChunkLimits::default());
        assert!(
            pieces[0].trim_end().ends_with("detections."),
            "{}",
            pieces[0]
        );
        assert!(pieces[1].starts_with(lead_in), "{}", pieces[1]);
        // A colon ending a long paragraph is no lead-in to carry.
        assert!(!is_lead_in(&prose.replace(". ", ": "), 56));
    }

    #[test]
    fn long_code_block_parts_stay_fenced() {
        let code = format!("```rust\n{}```", "let a = b + c + d + e + f;\n".repeat(200));
        let pieces = split_text(&code, ChunkLimits::default());
        assert!(pieces.len() > 1);
        for p in &pieces {
            assert!(
                p.starts_with("```rust") && p.trim_end().ends_with("```"),
                "{p}"
            );
        }
    }
}

/// Splitting never loses or reorders a word of prose, tables or lists, and a table part shown with
/// its header starts with that header.
#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    fn line() -> impl Strategy<Value = String> {
        prop_oneof![
            "[a-z]{1,8}( [a-z]{1,8}){0,12}[.!?]?",
            "`[a-z_]{1,6}` \\| [a-z]{1,6} \\| [a-z ]{0,30}",
            "- [a-z]{1,8}( [a-z]{1,8}){0,8}",
            "  [a-z]{1,8}( [a-z]{1,8}){0,4}",
            "1\\. [A-Z][a-z]{0,8}( [a-z]{1,8}){0,6}\\.",
            "[a-z]{1,8}( [a-z]{1,8}){0,5}:",
            Just(String::new()),
        ]
    }

    proptest! {
        #[test]
        fn split_keeps_every_word_in_order(lines in prop::collection::vec(line(), 1..80), max in 5usize..60) {
            let text = lines.join("\n");
            let pieces = split_text(&text, ChunkLimits { max_words: max, min_words: max / 3 });
            let words: Vec<&str> = pieces.iter().flat_map(|p| p.split_whitespace()).collect();
            let want: Vec<&str> = text.split_whitespace().collect();
            prop_assert_eq!(words, want);
            for p in &pieces {
                let shown = with_table_header(&text, p);
                prop_assert!(shown.ends_with(p.as_str()));
                if shown.len() != p.len() {
                    let header = shown.lines().next().unwrap_or("");
                    prop_assert!(is_table_row(header.trim_start()));
                }
            }
        }
    }
}

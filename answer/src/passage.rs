//! Splits a chunk's text into the passages an excerpt may quote: prose sentences and code blocks.
//! What is not prose a reader would quote is dropped here: headings, table rows, MDX/JSX lines,
//! admonition markers, short list items (tables of contents, heading lists, navigation) and
//! numbering left over from headings such as `2.1.3.`.

use crate::text::{plain_words, Fence, WordList};

/// What a passage is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// One sentence of prose (or one list item that reads as a sentence).
    Prose,
    /// A fenced code or command block; `lang` is the fence's info string (may be empty).
    Code {
        /// The fence's language tag.
        lang: String,
    },
}

/// A quotable piece of a chunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    /// Prose or code.
    pub kind: Kind,
    /// The sentence, or the code without its fences (whole: a quote shows [`code_window`] of it).
    pub text: String,
    /// For code: the index (in the same list) of the prose sentence just before it, which usually
    /// says what the code does.
    pub intro: Option<usize>,
    /// For code with no `intro`: the line just before it when that line is too short to quote (a
    /// list item's label, "- Keep cluster running after jobs finish", or a bold step name), which
    /// says what the block is for as well. Scored with the block, never quoted.
    pub label: Option<String>,
}

/// Longest code block quoted, in lines; longer blocks are cut with a `…` line.
pub const MAX_CODE_LINES: usize = 14;
/// Fenced languages that draw a diagram (Docusaurus renders `mermaid` as a picture): their source
/// is not something a reader runs or reads as an answer, so it is never quoted.
const DIAGRAM_LANGS: WordList = WordList("mermaid|plantuml|puml|dot|graphviz|d2");
/// Shortest prose sentence quoted, in words.
const MIN_WORDS: usize = 5;
/// Shortest list item (or fragment without closing punctuation) quoted as a sentence, in words.
const MIN_ITEM_WORDS: usize = 8;
/// Longest prose sentence considered, in words (longer runs are lists glued together).
const MAX_WORDS: usize = 90;

/// What [`passages`] has read of the prose since its last passage.
#[derive(Default)]
struct Pending {
    /// The paragraph or list item being read.
    para: String,
    /// `para` holds a list item (with its continuation lines) rather than a paragraph.
    in_item: bool,
    /// The last paragraph or item that gave no passage (see `Passage::label`), until a passage is
    /// made.
    label: Option<String>,
    /// The last list item ended with ",", ";", "and" or "or": the items are one sentence's parts.
    enumerating: bool,
}

impl Pending {
    /// Makes the passages of the paragraph or item read so far.
    fn flush(&mut self, out: &mut Vec<Passage>) {
        let before = out.len();
        let text = self.para.trim().to_string();
        let item = std::mem::take(&mut self.in_item);
        // A list item is its own block: items never run together into one "sentence", and a short
        // one (a table of contents, a heading list, navigation) is not prose. Nor is a part of a
        // sentence the list spells out item by item ("It publishes:" then "the odometry of the
        // robot on a topic such as …,"): lowercase, it ends with ",", ";", "and" or "or", or
        // follows one that does.
        let continues =
            text.ends_with([',', ';']) || text.ends_with(" and") || text.ends_with(" or");
        let part = item && text.starts_with(char::is_lowercase) && (continues || self.enumerating);
        let short = text.split_whitespace().count() < MIN_ITEM_WORDS && !ends_sentence(&text);
        if item && (part || short) {
            self.para.clear();
        }
        // A blank line between two items of a loose list ends nothing.
        if !text.is_empty() {
            self.enumerating = item && continues;
        }
        for s in sentences(&self.para) {
            if is_quotable(&s) {
                out.push(Passage {
                    kind: Kind::Prose,
                    text: s,
                    intro: None,
                    label: None,
                });
            }
        }
        self.para.clear();
        if out.len() > before {
            self.label = None;
        } else if !text.is_empty() {
            self.label = Some(text);
        }
    }
}

/// The passages of `text`, in order.
pub fn passages(text: &str) -> Vec<Passage> {
    let mut out: Vec<Passage> = Vec::new();
    let mut pending = Pending::default();
    let mut code: Option<(Fence, String, Vec<&str>)> = None;
    for line in text.lines() {
        let t = line.trim();
        if let Some((fence, lang, lines)) = code.as_mut() {
            if fence.closed_by(line) {
                let body = lines.join("\n");
                if !body.trim().is_empty()
                    && !DIAGRAM_LANGS.contains(lang.as_str())
                    && !body.contains(REPLACEMENT)
                {
                    let intro = out
                        .iter()
                        .rposition(|p| p.kind == Kind::Prose)
                        .filter(|&i| i + 1 == out.len());
                    out.push(Passage {
                        kind: Kind::Code {
                            lang: std::mem::take(lang),
                        },
                        text: body.trim_end().to_string(),
                        intro,
                        label: pending.label.take().filter(|_| intro.is_none()),
                    });
                }
                pending.label = None;
                code = None;
            } else {
                lines.push(line);
            }
            continue;
        }
        if let Some(fence) = Fence::open(line) {
            pending.flush(&mut out);
            let lang: String = t
                .trim_start_matches(['`', '~'])
                .split_whitespace()
                .next()
                .unwrap_or("")
                .chars()
                .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '+'))
                .collect();
            code = Some((fence, lang, Vec::new()));
            continue;
        }
        if t.is_empty() || is_markup_line(t) {
            pending.flush(&mut out);
            continue;
        }
        let item = strip_list_marker(t);
        if item.len() != t.len() {
            pending.flush(&mut out);
            pending.para.push_str(strip_numbering(item));
            pending.para.push(' ');
            pending.in_item = true;
            continue;
        }
        // A line right after an item continues it (an item wrapped onto the next line).
        let line = if pending.in_item {
            t
        } else {
            strip_numbering(t)
        };
        pending.para.push_str(line);
        pending.para.push(' ');
    }
    pending.flush(&mut out);
    out
}

/// A table or a list of a chunk. Their rows and short items are never quoted as sentences; a
/// section that says its answer only in one (a comparison table, a price list) has it quoted whole
/// instead (see `extractive::choose`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// Rows of cells, the first row the header (the index builder writes rows as `cell | cell`).
    Table(Vec<Vec<String>>),
    /// The list's items, markers and heading numbering removed.
    List(Vec<String>),
}

/// The character a decoder puts for bytes it could not read: a line or block holding it shows the
/// reader garbage ("(3*r? + h?)" where the source had "r²"), so it is never quoted.
const REPLACEMENT: char = '\u{FFFD}';

/// What navigation text carries (pagers, breadcrumbs, edit links): never quoted.
const NAV_MARKS: WordList = WordList("→|«|»|Edit this page");

/// Longest lead-in kept with a block, in words.
const MAX_INTRO_WORDS: usize = 40;

/// The tables (two rows or more) and lists (two items or more) of `text`, in order, each with the
/// sentence that leads into it when the paragraph just before it ends with ":" ("Accepted
/// fields:"); code blocks are skipped, and so are lists that carry navigation.
pub fn blocks(text: &str) -> Vec<(Block, Option<String>)> {
    type Out = Vec<(Block, Option<String>)>;
    let mut out: Out = Vec::new();
    let mut rows: Vec<Vec<String>> = Vec::new();
    let mut items: Vec<String> = Vec::new();
    // The block being read's lead-in, and the paragraph before it (open: no blank line since).
    let mut intro: Option<String> = None;
    let mut para = String::new();
    let mut para_open = false;
    let flush_rows = |rows: &mut Vec<Vec<String>>, intro: &mut Option<String>, out: &mut Out| {
        if rows.len() >= 2 {
            out.push((Block::Table(std::mem::take(rows)), intro.take()));
        }
        rows.clear();
    };
    // A list of questions ("How do I embed youtube videos …?", "How do I style links …?") sets
    // out what a page will answer, or what to ask: it answers nothing itself.
    let flush_items = |items: &mut Vec<String>, intro: &mut Option<String>, out: &mut Out| {
        if items.len() >= 2
            && !items
                .iter()
                .any(|i| NAV_MARKS.iter().any(|n| i.contains(n)))
            && !items.iter().all(|i| asks(i))
        {
            out.push((Block::List(std::mem::take(items)), intro.take()));
        }
        items.clear();
    };
    // A block starts: the paragraph before it is its lead-in if it announces it, or, before a
    // table, if it is one sentence ("Older documentation versions remain available …"): a
    // table has no caption in the text, and a lone sentence right above it is the nearest thing.
    let lead_in = |para: &mut String, table: bool| {
        let p = std::mem::take(para);
        let p = p.trim();
        let one_sentence = p.ends_with('.') && !p.trim_end_matches('.').contains(". ");
        ((p.ends_with(':') || table && one_sentence)
            && p.split_whitespace().count() <= MAX_INTRO_WORDS)
            .then(|| strip_numbering(p).to_string())
    };
    let mut code: Option<Fence> = None;
    // The last line read was a list item (no blank line since).
    let mut item_open = false;
    for line in text.lines() {
        let t = line.trim();
        if let Some(fence) = code {
            if fence.closed_by(line) {
                code = None;
            }
            continue;
        }
        if let Some(fence) = Fence::open(line) {
            flush_rows(&mut rows, &mut intro, &mut out);
            flush_items(&mut items, &mut intro, &mut out);
            para.clear();
            code = Some(fence);
            continue;
        }
        if t.is_empty() {
            // A blank line ends a table; list items may be separated by one (a loose list).
            flush_rows(&mut rows, &mut intro, &mut out);
            para_open = false;
            item_open = false;
            continue;
        }
        if let Some(cells) = table_cells(t) {
            flush_items(&mut items, &mut intro, &mut out);
            if rows.is_empty() {
                intro = lead_in(&mut para, true);
            }
            if !cells
                .iter()
                .all(|c| c.chars().all(|ch| matches!(ch, '-' | ':')))
            {
                rows.push(cells);
            }
            continue;
        }
        flush_rows(&mut rows, &mut intro, &mut out);
        let item = strip_list_marker(t);
        if item.len() != t.len() && !t.starts_with('>') {
            let item = strip_numbering(item).trim();
            if !item.is_empty() {
                if items.is_empty() {
                    intro = lead_in(&mut para, false);
                }
                items.push(item.to_string());
                item_open = true;
            }
            continue;
        }
        // A line right after an item continues it (an item wrapped onto the next line).
        if let Some(last) = items.last_mut().filter(|_| item_open && !is_markup_line(t)) {
            last.push(' ');
            last.push_str(t);
            continue;
        }
        flush_items(&mut items, &mut intro, &mut out);
        if is_markup_line(t) {
            para.clear();
        } else {
            if !para_open {
                para.clear();
            }
            para.push_str(t);
            para.push(' ');
            para_open = true;
        }
    }
    flush_rows(&mut rows, &mut intro, &mut out);
    flush_items(&mut items, &mut intro, &mut out);
    out
}

/// The cells of a table row (`a | b | c` as the index builder writes it, or `| a | b |`); `None`
/// for any other line (a heading, or fewer than two cells). A `|` inside inline code (`` `a | b` ``,
/// a union type) does not split a cell: pieces are joined while their backticks are unbalanced.
fn table_cells(t: &str) -> Option<Vec<String>> {
    if t.starts_with('#') || !is_table_row(t) {
        return None;
    }
    let inner = t.strip_prefix('|').unwrap_or(t);
    let inner = inner.strip_suffix('|').unwrap_or(inner);
    let mut cells: Vec<String> = Vec::new();
    let mut open = false;
    for piece in inner.split('|') {
        match cells.last_mut() {
            Some(cell) if open => {
                cell.push('|');
                cell.push_str(piece);
            }
            _ => cells.push(piece.to_string()),
        }
        if piece.matches('`').count() % 2 == 1 {
            open = !open;
        }
    }
    let cells: Vec<String> = cells.iter().map(|c| c.trim().to_string()).collect();
    (cells.len() >= 2).then_some(cells)
}

/// `t` with one space between its words: the shape sentences are compared in, whatever the
/// line breaks and indentation of the text they were cut from.
fn flat(t: &str) -> String {
    t.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Longest lead-in sentence once completed with its list, in characters.
const MAX_LEAD_IN_CHARS: usize = 320;

/// The lead-in `sentence` ("… is a script that:") of `text` completed with the list that follows it
/// there ("… that: starts nodes; sets parameters."), so a quote of it says what it announces. The
/// sentence unchanged when no list follows it.
pub fn with_its_list(text: &str, sentence: &str) -> String {
    let mut out = sentence.to_string();
    if !sentence.ends_with(':') {
        return out;
    }
    // The sentence may span lines: find the line where it ends (its words end the text so far).
    let words: Vec<&str> = sentence.split_whitespace().collect();
    let all: Vec<&str> = text.lines().collect();
    let ends_here = |i: usize| {
        let mut seen: Vec<&str> = Vec::new();
        for l in all[..=i].iter().rev() {
            seen.splice(0..0, l.split_whitespace());
            if seen.len() >= words.len() {
                break;
            }
        }
        seen.ends_with(&words)
    };
    let Some(end) = (0..all.len()).find(|&i| ends_here(i)) else {
        return out;
    };
    let lines = all[end + 1..].iter();
    for line in lines {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        let item = strip_list_marker(t);
        if item.len() == t.len() || out.chars().count() >= MAX_LEAD_IN_CHARS {
            break;
        }
        let item = strip_numbering(item)
            .trim()
            .trim_end_matches(['.', ';', ',']);
        if item.is_empty() {
            continue;
        }
        append_item(&mut out, item);
    }
    out
}

/// Adds `item` to a lead-in being completed ("… three things:" → "… three things: contact forces.",
/// then "… contact forces; friction."): the items one sentence, as a reader would write it.
fn append_item(out: &mut String, item: &str) {
    if out.ends_with(':') {
        out.push(' ');
    } else {
        out.pop(); // the closing `.`
        out.push_str("; ");
    }
    out.push_str(item);
    out.push('.');
}

/// The lead-in `sentence` that ends its section's `text` ("Five technological trends are
/// converging simultaneously:") completed with the headings of the sections under it
/// (`subsections`, [`crate::Source::subsections`]), as [`with_its_list`] completes one with its
/// list: the sections are what it announces. `None` unless the sentence is a lead-in ending the
/// text and there are two subsections or more.
pub fn with_its_subsections(text: &str, sentence: &str, subsections: &[String]) -> Option<String> {
    if !sentence.ends_with(':') || subsections.len() < 2 || !flat(text).ends_with(&flat(sentence)) {
        return None;
    }
    let mut out = sentence.to_string();
    for heading in subsections {
        let item = strip_numbering(heading.trim().trim_matches('*'))
            .trim_matches(['*', ' '])
            .trim_end_matches(['.', ':', ';', ',']);
        if item.is_empty() {
            continue;
        }
        if out.chars().count() + 2 + item.chars().count() > MAX_LEAD_IN_CHARS {
            break;
        }
        append_item(&mut out, item);
    }
    (!out.ends_with(':')).then_some(out)
}

/// Most items of a list of options quoted whole for one of them (see [`options_list`]): the six
/// strategies of a plugin option fit, `MAX_OPTIONS_CHARS` bounds the rest.
const MAX_OPTIONS: usize = 8;
/// Longest label naming an option of such a list, in words ("Edge deployment (Jetson)").
const MAX_OPTION_LABEL_WORDS: usize = 5;
/// Longest list of options quoted whole, in characters (its items together)...
const MAX_OPTIONS_CHARS: usize = 560;
/// ... and longest item: a list of options is shown whole, no item cut short.
const MAX_OPTION_CHARS: usize = 240;

/// The list of `text` that `sentence` is an item of, with its lead-in, when the list names
/// options side by side, each item a label and what it is for ("Small (1-10): Real-time data …",
/// "Large (100+): Important data …"): one option alone answers half of a question about the
/// choice, so the reader is shown them all. `None` for any other sentence or list (steps, a
/// troubleshooting entry's "Cause:" and "Solution:", a long list).
pub fn options_list(text: &str, sentence: &str) -> Option<(Vec<String>, Option<String>)> {
    let wanted = flat(sentence);
    blocks(text).into_iter().find_map(|(block, intro)| {
        let Block::List(items) = block else {
            return None;
        };
        let holds = items.iter().filter(|i| flat(i).contains(&wanted)).count() == 1;
        let lengths = items.iter().map(|i| i.chars().count());
        let fits = lengths.clone().sum::<usize>() <= MAX_OPTIONS_CHARS
            && lengths.max().is_some_and(|l| l <= MAX_OPTION_CHARS);
        (holds && items.len() <= MAX_OPTIONS && fits && items.iter().all(|i| names_option(i)))
            .then_some((items, intro))
    })
}

/// Whether a list item opens with a short label naming an option, then says something about it
/// ("Development/testing: `small` or `medium` for better accuracy"); not a troubleshooting or
/// outcome label, whose lines have rules of their own.
fn names_option(item: &str) -> bool {
    let Some((head, rest)) = item.split_once(':') else {
        return false;
    };
    let words = head.split_whitespace().count();
    (1..=MAX_OPTION_LABEL_WORDS).contains(&words)
        && rest.split_whitespace().count() >= 2
        && label(item).is_none()
        && !states_outcome(item)
}

/// Labels of a line stating the values an option takes ("- Type: `'ignore' | 'log' | 'warn' |
/// 'throw'`", "Possible values: \"top\" | \"bottom\""), lowercase: an API reference's line that
/// is too short and too symbolic to be a sentence, yet holds the value a reader asks for.
const VALUE_LABELS: WordList = WordList(concat!(
    "type|default|default value|values|possible values|accepted values|",
    "allowed values",
));

/// The lines of `text` stating the values an option takes (see [`VALUE_LABELS`]), list marker
/// and bold removed, each with the part after its label: the line holds code or a quoted value.
pub fn value_lines(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let t = strip_list_marker(line.trim()).trim();
            let head = label_head(t)?;
            let (_, values) = t.split_once(':')?;
            let values = values.trim();
            (VALUE_LABELS.contains(head.as_str()) && values.contains(['`', '"', '\'']))
                .then(|| (t.replace("**", ""), values.to_string()))
        })
        .collect()
}

/// Words that open a sentence leaning on the one before ("This is because …", "It can …").
const ANAPHORS: WordList = WordList("this|that|these|those|it|they|such");

/// Words that, right after an [`ANAPHORS`] word, make it stand for the previous sentence rather than
/// open a noun phrase ("This plugin supports …" names its subject; "This can be useful …" does not).
const LEANING_VERBS: WordList = WordList(concat!(
    "is|are|was|were|can|could|will|would|should|may|might|must|does|do|has|have|",
    "means|allows|enables|makes|lets|helps|ensures|gives|provides|works|happens|also|",
    "way|approach|requires",
));

/// Words that open a sentence continuing the one before ("Then, create your site with Netlify.",
/// "However, …", "Otherwise …"): whatever follows, the sentence is the second half of a thought.
const CONNECTIVES: WordList = WordList(concat!(
    "then|next|finally|afterwards|afterward|however|otherwise|instead|therefore|thus|",
    "hence|also|additionally|moreover|furthermore|similarly|alternatively|likewise|",
    "consequently|nevertheless|nonetheless",
));

/// Openings of more than one word that do the same ("In that case, …", "As a result, …").
const CONNECTIVE_PHRASES: &[&[&str]] = &[
    &["in", "this", "case"],
    &["in", "that", "case"],
    &["in", "such", "cases"],
    &["as", "a", "result"],
    &["for", "this", "reason"],
    &["on", "the", "other", "hand"],
    &["in", "addition"],
    &["after", "that"],
    &["once", "done"],
];

/// Whether a sentence opening with `words` (lowercase, punctuation trimmed) leans on the sentence
/// before it: an anaphor standing for it ("This can be useful …", "It will …"; not "This plugin
/// supports …" nor an expletive "It is possible to …") or a connective ("Then, …", "In that case, …").
fn leans_on_previous(words: &[String]) -> bool {
    let word = |i: usize| words.get(i).map_or("", String::as_str);
    let anaphor = ANAPHORS.contains(word(0)) && LEANING_VERBS.contains(word(1));
    // "It is possible to …", "It is important that …": an "it" that stands for nothing.
    let expletive = word(0) == "it" && (word(3) == "to" || word(3) == "that");
    let connective = CONNECTIVES.contains(word(0))
        || CONNECTIVE_PHRASES
            .iter()
            .any(|p| p.iter().enumerate().all(|(i, w)| word(i) == *w));
    (anaphor && !expletive) || connective
}

/// Longest quote once a leaning sentence is given the sentence before it, in characters.
const MAX_WITH_ANTECEDENT_CHARS: usize = 320;

/// The sentence before `sentence` in its paragraph of `text`, when `sentence` leans on it ("This can
/// be useful for inserting custom items …" says nothing on its own): quoted together, the quote
/// says what "this" is. `None` when the sentence stands alone, opens its paragraph, sits in a list,
/// or the two would be longer than a quote.
pub fn antecedent(text: &str, sentence: &str) -> Option<String> {
    let words: Vec<String> = plain_words(sentence).take(4).collect();
    if words.len() < 2 || !leans_on_previous(&words) {
        return None;
    }
    // The sentence's length as quoted: its words, one space apart.
    let length = sentence
        .split_whitespace()
        .map(|w| w.chars().count() + 1)
        .sum::<usize>();
    around_in_paragraph(text, sentence, |before, _| {
        let prev = sentences(before).pop()?;
        let fits = prev.chars().count() + length <= MAX_WITH_ANTECEDENT_CHARS;
        Some((ends_sentence(&prev) && is_quotable(&prev) && fits).then_some(prev))
    })
}

/// The sentence after `sentence` in its paragraph of `text`: a sentence that sets the scene ("The
/// blog sidebar displays recent blog posts.") is followed there by what the reader came for ("The
/// default number of items shown is 5, but you can customize with the `blogSidebarCount`
/// option"). `None` when the sentence ends its paragraph, sits in a list, or the next sentence is
/// not quotable prose.
pub fn successor(text: &str, sentence: &str) -> Option<String> {
    around_in_paragraph(text, sentence, |_, after| {
        let next = sentences(after).into_iter().next()?;
        // A question ("So why is 2024-2026 the inflection point?") asks what the quote should
        // answer: the quote does not go on with it.
        Some((ends_sentence(&next) && !next.ends_with('?') && is_quotable(&next)).then_some(next))
    })
}

/// Finds `sentence` in the paragraphs of `text` (whitespace aside) and asks `around` about the
/// paragraph's text before and after it: `None` from `around` passes on to a later paragraph
/// holding the sentence, `Some(answer)` is the answer. A sentence in a list, a table or beside code
/// has no neighbours in its paragraph: `None`.
fn around_in_paragraph(
    text: &str,
    sentence: &str,
    around: impl Fn(&str, &str) -> Option<Option<String>>,
) -> Option<String> {
    let wanted = flat(sentence);
    text.split("\n\n").find_map(|para| {
        let lines: Vec<&str> = para.lines().map(str::trim).collect();
        let list = lines
            .iter()
            .any(|l| strip_list_marker(l).len() != l.len() || is_table_row(l));
        let joined = flat(para);
        let at = joined.find(&wanted)?;
        if list || lines.iter().any(|l| l.starts_with("```")) {
            return Some(None);
        }
        around(joined[..at].trim(), joined[at + wanted.len()..].trim())
    })?
}

/// What the label opening a line of a troubleshooting entry says: the problem ("Symptom: …",
/// "Error: …") or what answers it ("Cause: …", "Solution:").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Label {
    /// The line restates the problem: the reader's question, not its answer.
    Problem,
    /// The line explains or fixes it.
    Answer,
}

/// Labels of a problem's statement in a troubleshooting entry, or in a worked case ("Challenge: …"
/// and its "Approach:"), lowercase, without the colon.
const PROBLEM_LABELS: WordList = WordList(concat!(
    "challenge|symptom|symptoms|problem|issue|error|error message|observed behavior|",
    "observed behaviour",
));

/// Labels of what answers the problem in a troubleshooting entry: its cause ...
const CAUSE_LABELS: WordList = WordList(concat!(
    "cause|causes|root cause|likely cause|likely causes|probable cause|",
    "possible cause|possible causes|common cause|common causes",
));

/// ... and its fix.
const FIX_LABELS: WordList = WordList(concat!(
    "approach|solution|solutions|fix|fixes|the fix|quick fix|how to fix|resolution|",
    "workaround|remedy|debug steps|what to do",
));

/// The troubleshooting label opening `line` ("Symptom: …", "- **Root Cause**: …"), if any.
pub fn label(line: &str) -> Option<Label> {
    let head = label_head(line)?;
    if PROBLEM_LABELS.contains(head.as_str()) {
        Some(Label::Problem)
    } else if CAUSE_LABELS.contains(head.as_str()) || FIX_LABELS.contains(head.as_str()) {
        Some(Label::Answer)
    } else {
        None
    }
}

/// Labels of a line that states what a step should lead to ("Expected: Clear audio playback with
/// your voice."): the outcome of a step the line does not say, so it answers no question by
/// itself. Not "Result:", which in case studies states the point the reader asks about ("Result:
/// Algorithm robust to real-world variations."): dropping it lost 3 answer keys of a textbook.
const OUTCOME_LABELS: WordList = WordList(concat!(
    "expected|expected output|expected result|expected results|expected behavior|",
    "expected behaviour",
));

/// Whether `line` opens with an outcome label (see [`OUTCOME_LABELS`]).
pub fn states_outcome(line: &str) -> bool {
    label_head(line).is_some_and(|head| OUTCOME_LABELS.contains(head.as_str()))
}

/// Whether `line` is nothing but a quoted utterance ("\"Pick up the cup and bring it here\"", an
/// example of what a user might say or type): it illustrates, it answers nothing.
fn only_quoted(line: &str) -> bool {
    // Bold marks and a closing stop around the quotes, in either order (`**"Go."**`, `"Go"**.`).
    let t = line
        .trim()
        .trim_end_matches(['.', ',', ';'])
        .trim_matches(['*', '_'])
        .trim_end_matches(['.', ',', ';']);
    let Some(inner) = t
        .strip_prefix(['"', '“'])
        .and_then(|r| r.strip_suffix(['"', '”']))
    else {
        return false;
    };
    !inner.contains(['"', '“', '”'])
}

/// Words that, opening a line in lowercase, continue a sentence begun elsewhere ("via the automatic
/// plugin discovery process, which …": a list item finishing its lead-in).
const CONTINUING_WORDS: WordList = WordList(concat!(
    "via|and|or|which|but|because|so|then|by|through|where|while|whereas|unless|",
    "until",
));

/// Whether `line` is the tail of a sentence begun before it (see [`CONTINUING_WORDS`]).
pub fn continues_a_sentence(line: &str) -> bool {
    let first = line.split_whitespace().next().unwrap_or("");
    first.chars().next().is_some_and(char::is_lowercase)
        && CONTINUING_WORDS.contains(first.trim_end_matches([',', ':']))
}

/// Labels of a line that says where to read next (never quoted).
const NAV_LABELS: WordList = WordList("next|up next|next up|next steps|previous|coming up");

/// Whether `line` opens with a troubleshooting entry's fix label ("Solution:", "Fix:", "Workaround:").
fn is_fix(line: &str) -> bool {
    label_head(line).is_some_and(|head| FIX_LABELS.contains(head.as_str()))
}

/// What a line's opening says before its first colon, lowercase, list marker and bold removed
/// ("- **Root Cause**: …" → "root cause").
fn label_head(line: &str) -> Option<String> {
    let t = strip_list_marker(line.trim()).trim_start_matches(['*', '_']);
    let (head, _) = t.split_once(':')?;
    Some(head.trim_matches(['*', '_', ' ']).to_lowercase())
}

/// The fix of the troubleshooting entry that `sentence` (its symptom or cause) belongs to in
/// `text`: the fix's line ("Solution: Switch from Wayland to X11.") and the steps listed under it,
/// markers removed. `None` when the entry has no fix line before the next entry, heading or code
/// block (a fix given only as code is quoted as code).
pub fn fix_of(text: &str, sentence: &str) -> Option<(String, Vec<String>)> {
    let opening: String = flat(sentence).chars().take(40).collect();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines.iter().position(|l| flat(l).contains(&opening))?;
    let mut rest = lines[at + 1..].iter().map(|l| l.trim());
    let fix = rest.by_ref().find(|t| {
        t.starts_with('#') || t.starts_with("```") || label(t) == Some(Label::Problem) || is_fix(t)
    })?;
    if !is_fix(fix) {
        return None;
    }
    let fix = strip_list_marker(fix).replace("**", "");
    let mut steps = Vec::new();
    for t in rest {
        if t.is_empty() {
            continue;
        }
        let item = strip_list_marker(t);
        if item.len() == t.len() || label(t).is_some() || steps.len() == MAX_FIX_STEPS {
            break;
        }
        steps.push(strip_numbering(item).replace("**", ""));
    }
    Some((fix, steps))
}

/// Most steps of a fix quoted.
const MAX_FIX_STEPS: usize = 8;

/// Whether `sentence` only states the problem ("Symptom: Goal accepted, but no feedback callbacks
/// triggered"), not also its answer ("Issue: GPU out of memory Solution: Reduce …" answers it).
pub fn restates_problem(sentence: &str) -> bool {
    if label(sentence) != Some(Label::Problem) {
        return false;
    }
    let rest = sentence
        .split_once(':')
        .map_or("", |(_, r)| r)
        .to_lowercase();
    !CAUSE_LABELS.iter().chain(FIX_LABELS.iter()).any(|l| {
        rest.match_indices(&format!("{l}:")).any(|(at, _)| {
            rest[..at]
                .chars()
                .next_back()
                .is_none_or(|c| !c.is_alphanumeric())
        })
    })
}

/// Whether `text` is (or holds) a troubleshooting entry: outside code blocks, a line labelled as
/// the problem and one labelled as its cause or fix, or two lines labelled as answers ("Cause: …",
/// "Solution: …", under a heading that names the problem). There the problem's line restates the
/// reader's question ("Symptom: Goal accepted, but no feedback callbacks triggered"), and the
/// answer is the cause and the fix.
pub fn is_troubleshooting(text: &str) -> bool {
    let (mut problem, mut answers) = (false, 0);
    for line in crate::text::prose_lines(text) {
        match label(line.trim()) {
            Some(Label::Problem) => problem = true,
            Some(Label::Answer) => answers += 1,
            None => {}
        }
    }
    (problem && answers > 0) || answers > 1
}

/// Whether a (trimmed) line is a table row as chunk texts keep it: `cell | cell | cell` (how the
/// index builder writes rows) or `| cell | cell |`. The builder's chunker cuts long tables with it.
pub fn is_table_row(t: &str) -> bool {
    t.starts_with('|') || t.contains(" | ")
}

/// Headings, tables, admonition fences, MDX import/export and JSX lines, HTML comments.
fn is_markup_line(t: &str) -> bool {
    t.starts_with('#')
        || is_table_row(t)
        || t.starts_with(":::")
        || t.starts_with('<')
        || t.starts_with("import ")
        || t.starts_with("export ")
        || t.starts_with("---")
}

/// `- item`, `* item`, `+ item`, `1. item`, `1) item`, `> quote`, `✅ item` → the item text; a
/// task list's box goes too (`- [ ] item`, `- [x] item`).
fn strip_list_marker(t: &str) -> &str {
    let item = strip_item_marker(t);
    ["[ ] ", "[x] ", "[X] "]
        .iter()
        .find_map(|b| item.strip_prefix(b))
        .map_or(item, str::trim_start)
}

/// The bullet, number, quote mark or symbol that opens a list item, removed.
fn strip_item_marker(t: &str) -> &str {
    if let Some(rest) = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .or_else(|| t.strip_prefix("+ "))
        .or_else(|| t.strip_prefix("> "))
    {
        return rest.trim_start();
    }
    if let Some(rest) = strip_symbol_bullet(t) {
        return rest;
    }
    let digits = t.chars().take_while(|c| c.is_ascii_digit()).count();
    if digits > 0 && digits < 4 {
        let rest = &t[digits..];
        if let Some(r) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return r.trim_start();
        }
    }
    t
}

/// Characters that open a line without being a bullet: quotes and brackets, and navigation marks.
const NOT_BULLETS: &str = "“‘«»„‚¿¡（【「『→←";

/// A line opened by a symbol and a space (`✅ Fast`, `• Cheap`, `⚠️ Root only`): authors write
/// checklists this way, one item a line, and Markdown runs them into one paragraph; each line is an
/// item. Letters of any script, digits, ASCII and quotes or brackets open prose, not items.
fn strip_symbol_bullet(t: &str) -> Option<&str> {
    let mut chars = t.char_indices();
    let (_, first) = chars.next()?;
    if first.is_ascii() || first.is_alphanumeric() || NOT_BULLETS.contains(first) {
        return None;
    }
    // Emoji may carry a variation selector or a skin tone before the space.
    let (at, _) = chars.find(|&(_, c)| !matches!(c, '\u{FE0F}' | '\u{1F3FB}'..='\u{1F3FF}'))?;
    let rest = t[at..].strip_prefix(' ')?.trim_start();
    (!rest.is_empty()).then_some(rest)
}

/// Drops heading numbering such as `2.1.3.` or `1.4` at the start of a line.
fn strip_numbering(t: &str) -> &str {
    let n = t
        .char_indices()
        .take_while(|(_, c)| c.is_ascii_digit() || *c == '.')
        .last()
        .map_or(0, |(i, c)| i + c.len_utf8());
    if n > 0 && t[..n].contains('.') && t[n..].starts_with(' ') {
        t[n..].trim_start()
    } else {
        t
    }
}

/// Whether `s` ends with closing punctuation (`.`, `!`, `?`, a lead-in's `:`, or another
/// script's full stop or question mark, [`OTHER_STOPS`]).
pub fn ends_sentence(s: &str) -> bool {
    s.trim_end()
        .ends_with(|c: char| matches!(c, '.' | '!' | '?' | ':') || OTHER_STOPS.contains(c))
}

/// Whether `s` is a question: its last letter, digit or question mark is a question mark, so
/// closing quotes, brackets and emphasis may follow it (`Why not write everything in Python?"`,
/// `**How do I …?**`).
fn asks(s: &str) -> bool {
    s.chars().rev().find(|&c| c == '?' || c.is_alphanumeric()) == Some('?')
}

/// Full stops and question marks of other scripts: Urdu and Arabic (`۔`, `؟`), Hindi (`।`),
/// Chinese and Japanese (`。`, `！`, `？`).
const OTHER_STOPS: &str = "۔؟।。！？";

/// Words whose period does not end a sentence ("vs. LiDAR", "Fig. 3", "et al. Then"); "etc." is
/// left out: it usually ends one.
const ABBREVIATIONS: WordList =
    WordList("vs|e.g|i.e|cf|approx|fig|figs|eq|eqs|dr|mr|mrs|prof|al|ca|resp|vol|pp|incl");

/// Whether the period at byte `dot` of `para` closes an abbreviation.
fn closes_abbreviation(para: &str, dot: usize) -> bool {
    let word = para[..dot]
        .rsplit(|c: char| c.is_whitespace() || c == '(')
        .next()
        .unwrap_or("");
    ABBREVIATIONS.contains(word.to_lowercase().as_str())
}

/// Sentences of a paragraph: split after `.`, `!` or `?` followed by a space and a capital, digit
/// or quote (so "e.g. the" and "v1.2" stay whole), but not after an abbreviation ("vs. LiDAR") or
/// inside parentheses, which close before their sentence does.
fn sentences(para: &str) -> Vec<String> {
    let chars: Vec<(usize, char)> = para.char_indices().collect();
    let mut out = Vec::new();
    let mut start = 0;
    let mut depth = 0usize;
    for (k, &(i, c)) in chars.iter().enumerate() {
        match c {
            // Only a parenthesis that closes in the paragraph holds its sentence open.
            '(' if para[i..].contains(')') => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            _ => {}
        }
        if !(matches!(c, '.' | '!' | '?') || OTHER_STOPS.contains(c))
            || depth > 0
            || (c == '.' && closes_abbreviation(para, i))
        {
            continue;
        }
        // Chinese and Japanese full stops need no space after them.
        let wide = "。！？".contains(c);
        let space = wide || chars.get(k + 1).is_none_or(|&(_, n)| n == ' ');
        // The next sentence opens with a capital, a digit, a quote, or a letter of a script with
        // no case (Urdu, Hindi, Chinese): after "e.g." a lowercase word goes on.
        let next = if wide { k + 1 } else { k + 2 };
        let next_starts = chars.get(next).is_none_or(|&(_, n)| {
            n.is_uppercase()
                || n.is_ascii_digit()
                || "\"“'`*(".contains(n)
                || (n.is_alphabetic() && !n.is_lowercase())
        });
        if space && next_starts {
            let s = para[start..i + c.len_utf8()].trim();
            if !s.is_empty() {
                out.push(s.to_string());
            }
            start = i + c.len_utf8();
        }
    }
    let s = para[start..].trim();
    if !s.is_empty() {
        out.extend(split_lead_tail(s));
    }
    out
}

/// Most words of a lowercase lead-in that follows a sentence ("… or add it otherwise. e.g:").
const MAX_TAIL_WORDS: usize = 3;

/// A paragraph's last sentence and the short lowercase lead-in glued to it ("Use `++` to override
/// a value, or add it otherwise. e.g:", "… in the config. for example:"), as two pieces: the
/// sentence is the answer, and the lead-in alone would make it read as a lead-in with nothing of
/// its own (a sentence ending with ":"). `sentences` keeps them together because a lowercase word
/// goes on after "e.g.".
fn split_lead_tail(s: &str) -> Vec<String> {
    let Some(body) = s.strip_suffix(':') else {
        return vec![s.to_string()];
    };
    let cut = body
        .char_indices()
        .filter(|&(i, c)| {
            matches!(c, '.' | '!' | '?')
                && body[i + 1..].starts_with(' ')
                && !(c == '.' && closes_abbreviation(body, i))
        })
        .map(|(i, _)| i + 1)
        .find(|&i| {
            let tail = body[i..].trim();
            tail.chars().next().is_some_and(char::is_lowercase)
                && tail.split_whitespace().count() <= MAX_TAIL_WORDS
        });
    match cut {
        Some(i) if body[..i].split_whitespace().count() > MAX_TAIL_WORDS => {
            vec![
                body[..i].trim().to_string(),
                format!("{}:", body[i..].trim()),
            ]
        }
        _ => vec![s.to_string()],
    }
}

/// How many words a sentence's whitespace-separated `words` are: one each, but a run of a script
/// written without spaces ("节点是ROS图中执行计算的进程。") one word per two characters, about the
/// length of a Chinese word. Counted by spaces alone, a whole Chinese sentence was one word, too
/// short to quote, and a Chinese book's answers quoted nothing.
fn word_count(words: &[&str]) -> usize {
    words
        .iter()
        .map(|w| {
            let unspaced = w
                .chars()
                .filter(|&c| book_retrieval::analyzer::is_unspaced(c))
                .count();
            unspaced.div_ceil(2).max(1)
        })
        .sum()
}

/// Whether a sentence reads as prose: long enough, with function words, not a run of capitalised
/// titles, numbers or navigation symbols.
fn is_quotable(s: &str) -> bool {
    let words: Vec<&str> = s.split_whitespace().collect();
    let count = word_count(&words);
    if !(MIN_WORDS..=MAX_WORDS).contains(&count) || s.contains(REPLACEMENT) {
        return false;
    }
    // A fragment with no closing punctuation ("Goal: Robot navigates to commanded locations", a
    // caption) reads as a sentence only when long, as a list item does; a troubleshooting entry's
    // cause or fix says its answer in a fragment ("Cause: Forgot to pass `feedback_callback` …").
    if count < MIN_ITEM_WORDS && !ends_sentence(s) && label(s) != Some(Label::Answer) {
        return false;
    }
    let lower: Vec<String> = plain_words(s).collect();
    let function_words = lower
        .iter()
        .filter(|w| book_retrieval::analyzer::is_stop_word(w))
        .count();
    // English function words tell prose from a run of labels; the test means nothing in a script
    // whose words are never English ones (Urdu, Hindi, Chinese), whose prose it would all reject;
    // nor in a Chinese or Japanese sentence naming Latin-script things ("在 Ubuntu 上使用 apt 安装
    // ros-jazzy-desktop"), whose letters outnumber its characters.
    let latin = s.chars().filter(char::is_ascii_alphabetic).count() * 2
        >= s.chars().filter(|c| c.is_alphabetic()).count()
        && !s.chars().any(book_retrieval::analyzer::is_unspaced);
    if function_words == 0 && latin {
        return false;
    }
    let capitalised = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    if capitalised * 10 > count * 6 {
        return false;
    }
    // A quoted utterance ("\"Pick up the cup and bring it here\"") is an example of what a user
    // says, never an answer; nor is a question ("You might wonder: \"Why not write everything in
    // Python?\""): quoted, it hands the reader's question back.
    if only_quoted(s) || asks(s) {
        return false;
    }
    // A tab separates the cells of a table flattened into text: row soup, not a sentence.
    if s.contains('\t') {
        return false;
    }
    let visible: Vec<char> = s.chars().filter(|c| !c.is_whitespace()).collect();
    let letters = visible.iter().filter(|c| c.is_alphabetic()).count();
    if letters * 10 < visible.len() * 6 {
        return false;
    }
    // Code written into the page as text (JSX in a component, an import line): braces and a
    // semicolon together. Semicolons alone are prose ("Nodes do the work; topics stream data; …").
    let braces = visible.iter().filter(|c| matches!(c, '{' | '}')).count();
    if braces >= 2 && visible.contains(&';') {
        return false;
    }
    // "Next: Practice exercises …": where to read next, not an answer.
    if label_head(s).is_some_and(|h| NAV_LABELS.contains(h.as_str())) {
        return false;
    }
    const PAGER: WordList = WordList("Next |Previous ");
    if NAV_MARKS.iter().chain(PAGER.iter()).any(|n| s.contains(n)) || has_heading_numbering(s) {
        return false;
    }
    // "See the GitHub documentation for more information.": an order to read elsewhere, for
    // more of what it names, says nothing itself even when it names where.
    let sends_away = matches!(
        lower.first().map(String::as_str),
        Some("see" | "check" | "refer" | "visit" | "read" | "consult")
    ) && lower
        .windows(2)
        .any(|w| w[0] == "more" && MORE_OF.contains(w[1].as_str()));
    if sends_away {
        return false;
    }
    if signposts(&lower) || placeholder(&lower) {
        return false;
    }
    // "Check this page for more information.": a pointer that says nothing itself.
    lower.iter().any(|w| {
        !w.is_empty()
            && !book_retrieval::analyzer::is_stop_word(w)
            && !POINTER_WORDS.contains(w.as_str())
    })
}

/// Whether a sentence (its words, lowercase, punctuation trimmed) is, or announces, filler text
/// (not "placeholder text", which is also a thing a book documents: a search box's placeholder)
/// that a demo page carries to show a feature ("Below is just some dummy content to have more
/// table of contents items …", "Lorem ipsum dolor sit amet …"): it is about nothing.
fn placeholder(lower: &[String]) -> bool {
    lower.windows(2).any(|w| {
        matches!(
            (w[0].as_str(), w[1].as_str()),
            (
                "dummy" | "filler",
                "content" | "text" | "paragraph" | "paragraphs"
            ) | ("lorem", "ipsum")
        )
    })
}

/// Whether a sentence (its words, lowercase, punctuation trimmed) speaks of the reader's progress
/// or the text's plan, or sets a scene to picture, rather than of its subject: "You've learned why
/// ROS 2 exists …", "Now let's break down the three fundamental concepts …", "By the end, you'll be
/// able to …", "In this section we will explore …", "Imagine navigating a dark room blindfolded."
/// Textbooks open sections with them; quoted, they answer nothing.
fn signposts(lower: &[String]) -> bool {
    // "Now let's …", "So, you've learned …": a leading adverb changes nothing.
    let start = usize::from(lower.first().is_some_and(|w| {
        matches!(
            w.as_str(),
            "now" | "so" | "next" | "first" | "finally" | "here"
        )
    }));
    let word = |i: usize| lower.get(start + i).map_or("", String::as_str);
    const PLAN_VERBS: WordList = WordList(concat!(
        "break|take|look|explore|dive|begin|start|walk|review|recap|move|turn|examine|",
        "discuss|summarize|revisit|introduce|learn|cover|discover",
    ));
    const PROGRESS_VERBS: WordList =
        WordList("learned|seen|explored|covered|mastered|completed|built|now");
    const PARTS: WordList = WordList("chapter|section|lesson|module|tutorial|page|unit|part");
    let is_part = |w: &str| PARTS.contains(w) || PARTS.contains(w.strip_suffix('s').unwrap_or(""));
    match (word(0), word(1)) {
        ("let's", verb) => PLAN_VERBS.contains(verb),
        ("let", "us") => PLAN_VERBS.contains(word(2)),
        ("you've", verb) => PROGRESS_VERBS.contains(verb),
        ("you", "have") => PROGRESS_VERBS.contains(word(2)),
        // "You'll learn the fundamental building blocks …" (not "You'll see a message …").
        ("you'll", "learn" | "discover") => true,
        ("you", "will") => matches!(word(2), "learn" | "discover"),
        ("by", "the") => word(2) == "end",
        ("imagine", _) | ("welcome", "to") | ("stay", "tuned") => true,
        // "So far we've built individual nodes …" ("so" is skipped as a leading adverb).
        ("far", "we" | "we've" | "you" | "you've") => start == 1,
        // "Proceed to Chapter 05 to learn about …", "Continue to the next section."
        ("proceed" | "continue", "to") => (2..=4).any(|i| is_part(word(i))),
        // "In this section we will explore …", "In the following sections, we will introduce …",
        // "In this chapter, you learned:".
        ("in", "this" | "the") => {
            let Some(part) = (2..=3).find(|&i| is_part(word(i))) else {
                return false;
            };
            // Only an order word may stand between "the" and the part ("the next chapter").
            let placed = part == 2
                || matches!(
                    word(2),
                    "next" | "previous" | "following" | "last" | "coming" | "upcoming" | "first"
                );
            placed
                && (part + 1..part + 4).any(|i| {
                    PLAN_VERBS.contains(word(i))
                        || (matches!(word(i), "you" | "you've" | "we" | "we've")
                            && PROGRESS_VERBS.contains(word(i + 1)))
                })
        }
        _ => false,
    }
}

/// Words of a sentence that only points elsewhere ("See the docs below for more details.",
/// "Check this page for more information."): a sentence made of these and stop words alone is
/// never quoted.
const POINTER_WORDS: WordList = WordList(concat!(
    "see|check|refer|read|visit|learn|find|follow|look|click|go|page|pages|",
    "information|info|details|detail|here|below|above|following|link|links|docs|",
    "documentation|guide|section|article|further|additional|full|complete|list|",
    "reference|explanation",
));

/// What a sentence that sends the reader away offers "more" of ("… for more information.").
const MORE_OF: WordList = WordList("information|info|details|detail|examples|options");

/// `.1.4.` or `2.1.3.` inside a sentence: the remains of a numbered heading list.
fn has_heading_numbering(s: &str) -> bool {
    let b = s.as_bytes();
    b.windows(4).any(|w| {
        w[0] == b'.'
            && w[1].is_ascii_digit()
            && w[2] == b'.'
            && (w[3] == b' ' || w[3].is_ascii_digit())
    }) || s.contains(" .")
}

/// At most [`MAX_CODE_LINES`] lines of a code block, with `…` where lines are left out: the lines
/// holding the most of the question's `terms` (its first lines when none does, or on a tie). A long
/// script's answer is often far below its imports ("SPEED_LIMITS = …", the `feedback_callback`
/// line), and the block's top alone would cut it off.
pub fn code_window(body: &str, terms: &[String]) -> String {
    let lines: Vec<&str> = body.trim_end().lines().collect();
    if lines.len() <= MAX_CODE_LINES {
        return body.trim_end().to_string();
    }
    let hits: Vec<usize> = lines
        .iter()
        .map(|l| {
            let words = crate::text::terms(l);
            terms.iter().filter(|t| words.contains(t)).count()
        })
        .collect();
    let mut best = (0, hits[..MAX_CODE_LINES].iter().sum::<usize>());
    let mut sum = best.1;
    for start in 1..=lines.len() - MAX_CODE_LINES {
        sum = sum + hits[start + MAX_CODE_LINES - 1] - hits[start - 1];
        if sum > best.1 {
            best = (start, sum);
        }
    }
    let start = best.0;
    let end = start + MAX_CODE_LINES;
    let mut out = String::new();
    if start > 0 {
        out.push_str("…\n");
    }
    out.push_str(&lines[start..end].join("\n"));
    if end < lines.len() {
        out.push_str("\n…");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_of_a_sentence_begun_elsewhere_is_told() {
        assert!(continues_a_sentence(
            "via the automatic plugin discovery process, which discovers plugins in `hydra_plugins`"
        ));
        assert!(continues_a_sentence(
            "and contents will be generated within the `/build` directory."
        ));
        assert!(!continues_a_sentence("Via a bridge, topics reach Gazebo."));
        assert!(!continues_a_sentence(
            "rclpy is the Python client library of ROS 2."
        ));
    }

    #[test]
    fn a_quoted_utterance_is_only_quoted() {
        assert!(only_quoted(
            "\"Go to the kitchen table and pick up the blue cup\""
        ));
        assert!(only_quoted("“Pick up the cup and bring it here”."));
        assert!(only_quoted("**\"Go to the kitchen table\"**"));
        assert!(only_quoted("**\"Go to the kitchen table\"**."));
        assert!(!only_quoted("\"Go\" and \"Stop\" are the two commands."));
        assert!(!only_quoted("Say \"stop\" to halt the robot."));
        assert!(!only_quoted(
            "\"Go to the kitchen\" then \"pick up the cup\""
        ));
    }

    #[test]
    fn a_lowercase_lead_in_after_the_last_sentence_is_its_own_piece() {
        let text = "Use `++` to override a config value if it's already in the config, or add it \
                    otherwise. e.g:\n```shell\n$ python my_app.py ++db.timeout=5\n```\n";
        let ps = passages(text);
        assert_eq!(
            ps[0].text,
            "Use `++` to override a config value if it's already in the config, or add it otherwise."
        );
        assert_eq!(ps[1].intro, Some(0));
        assert_eq!(
            sentences("Enable SSL by setting the relevant variables. for example:"),
            [
                "Enable SSL by setting the relevant variables.",
                "for example:"
            ]
        );
        // A real lead-in stays whole: no sentence before it, a long tail, a short sentence.
        for whole in [
            "Set the variables, then start the worker with these flags:",
            "Set the variables first. then start the worker with these flags:",
            "e.g:",
            "Go. e.g:",
        ] {
            assert_eq!(split_lead_tail(whole), [whole]);
        }
    }

    #[test]
    fn troubleshooting_labels_are_read() {
        assert_eq!(label("Symptom: Goal accepted"), Some(Label::Problem));
        assert_eq!(
            label("-   **Root Cause**: TF is missing."),
            Some(Label::Answer)
        );
        assert_eq!(label("**Solution**:"), Some(Label::Answer));
        assert_eq!(label("Goal: Robot navigates to commanded locations"), None);
        assert_eq!(label("The cause of this is simple: a typo."), None);
        // The problem alone restates the question; with its fix on the same line it answers it.
        assert!(restates_problem(
            "Symptom: Goal accepted, but no feedback callbacks triggered"
        ));
        assert!(!restates_problem(
            "Issue: GPU out of memory Solution: Reduce parallel environments from 1024 to 512"
        ));
        assert!(!restates_problem("Cause: Forgot to pass the callback"));
    }

    #[test]
    fn troubleshooting_entries_are_told_from_other_labelled_text() {
        assert!(is_troubleshooting(
            "Symptom: Goal accepted, but no feedback.\n\nCause: Forgot the callback.\n\nSolution:\n```python\nx()\n```"
        ));
        // The heading names the problem: a cause and a solution make the entry.
        assert!(is_troubleshooting(
            "Cause: TRANSIENT_LOCAL durability with stale data\n\nSolution: Use VOLATILE durability"
        ));
        // A worked case: the challenge and its approach.
        assert!(is_troubleshooting(
            "Challenge: Teach Atlas to do a backflip\n\nApproach:\n1. Simulate it\n2. Transfer it"
        ));
        // A quiz's explanation names a problem with no cause or fix; labels in code do not count.
        assert!(!is_troubleshooting(
            "Problem: 500K+ points are too dense for real-time control.\n\nTarget: 50,000 points."
        ));
        assert!(!is_troubleshooting(
            "Run it:\n\n```text\nError: not found\nFix: none\n```"
        ));
    }

    #[test]
    fn an_entrys_fix_is_found_with_its_steps() {
        let text = "- Symptom: The viewport is black.\n- Root Cause: The windowing system.\n- **Solution**: Switch from Wayland to X11.\n  1. Log out of your session.\n  2. Select Ubuntu on Xorg.\n\n### 3. Next problem\n- Symptom: Other.\n- Solution: Other fix.";
        let (fix, steps) = fix_of(text, "Symptom: The viewport is black.").expect("a fix");
        assert_eq!(fix, "Solution: Switch from Wayland to X11.");
        assert_eq!(
            steps,
            ["Log out of your session.", "Select Ubuntu on Xorg."]
        );
        // From the cause too; never the next entry's fix.
        assert!(fix_of(text, "Root Cause: The windowing system.").is_some());
        let lone = "Symptom: It fails.\n\nCause: A typo.\n\n### Next\n\nSolution: Not this one.";
        assert_eq!(fix_of(lone, "Symptom: It fails."), None);
        // A fix given as code is left to the code block.
        let code = "Symptom: It fails.\n\n```bash\nrun it\n```\n\nSolution: After the code.";
        assert_eq!(fix_of(code, "Symptom: It fails."), None);
    }

    #[test]
    fn prose_in_other_scripts_is_quoted() {
        // Urdu: its own full stop, no letter case, no English function words.
        assert_eq!(
            prose("بھونپو ہر تیس سیکنڈ بعد دو سیکنڈ کی آواز دیتا ہے۔ یہ ترتیب ملاحوں کو بتاتی ہے کہ وہ کون سا لائٹ ہاؤس سن رہے ہیں۔"),
            [
                "بھونپو ہر تیس سیکنڈ بعد دو سیکنڈ کی آواز دیتا ہے۔",
                "یہ ترتیب ملاحوں کو بتاتی ہے کہ وہ کون سا لائٹ ہاؤس سن رہے ہیں۔"
            ]
        );
        // Hindi's danda ends a sentence too.
        assert!(ends_sentence("रोबोट चलता है।"));
        // A run of English labels is still not prose.
        assert!(prose("Robot Navigation Control System Overview Page").is_empty());
        // Chinese, written without spaces: words counted by characters, so a sentence is long
        // enough to quote; one naming Latin-script things is prose too.
        assert_eq!(
            prose("节点是 ROS 图中执行计算的进程。安装完成后，需要在每个终端中加载环境设置脚本。"),
            [
                "节点是 ROS 图中执行计算的进程。",
                "安装完成后，需要在每个终端中加载环境设置脚本。"
            ]
        );
        assert!(is_quotable(
            "在 Ubuntu 24.04 上安装 ROS 2 Jazzy 需要先设置软件源，然后使用 apt 安装 ros-jazzy-desktop 软件包。"
        ));
        // Still too short: two words' worth of characters.
        assert!(!is_quotable("节点。"));
    }

    #[test]
    fn the_parts_of_a_sentence_a_list_spells_out_are_not_sentences() {
        let prose = |text: &str| -> Vec<String> {
            passages(text)
                .into_iter()
                .filter(|p| p.kind == Kind::Prose)
                .map(|p| p.text)
                .collect()
        };
        let parts = "At this point, you should have:\n\n\
                     - the source repo with the workflow set with the private key as a secret, and\n\
                     - your deployment repo set with the public SSH key in its deploy keys.\n";
        assert_eq!(prose(parts), ["At this point, you should have:"]);
        let loose = "The visual SLAM node publishes two things:\n\n\
                     - the odometry of the robot on a topic such as `/visual_slam/odometry`,\n\n\
                     - the map of the landmarks it tracked on the topic named `/visual_slam/map`.\n";
        assert_eq!(prose(loose), ["The visual SLAM node publishes two things:"]);
        // Items that are sentences of their own stay, lowercase or not.
        let own = "Keep these two rules in mind:\n\n\
                   - the robot must be powered off before you connect the battery pack.\n\
                   - Each joint is checked against its limits before the controller starts.\n";
        assert_eq!(prose(own).len(), 3, "{:?}", prose(own));
    }

    #[test]
    fn a_short_cause_or_fix_is_quotable() {
        assert_eq!(
            prose("Cause: Forgot to pass `feedback_callback` to `send_goal_async()`"),
            ["Cause: Forgot to pass `feedback_callback` to `send_goal_async()`"]
        );
        // Other short labelled fragments stay captions.
        assert!(prose("Goal: Robot navigates to commanded locations").is_empty());
        // Where to read next is not an answer.
        assert!(
            prose("Next: Practice exercises to reinforce your understanding of the system.")
                .is_empty()
        );
    }

    fn prose(text: &str) -> Vec<String> {
        passages(text)
            .into_iter()
            .filter(|p| p.kind == Kind::Prose)
            .map(|p| p.text)
            .collect()
    }

    #[test]
    fn table_soup_and_code_as_text_are_not_quoted() {
        assert!(prose("Name\tType\tDefault\tDescription `showLastUpdateAuthor`\t`boolean`\t`false`\tWhether to display the author.").is_empty());
        assert!(prose("import Admonition from '@theme/Admonition'; export default function MyReactPage() { return ( <div> <Admonition type=\"info\"> <p>Some information</p> </Admonition> </div> ); }").is_empty());
        // Semicolons alone are prose.
        assert_eq!(
            prose("Nodes do the work; topics stream data; services answer quick questions; actions run long tasks."),
            ["Nodes do the work; topics stream data; services answer quick questions; actions run long tasks."]
        );
        // A sentence with a little inline code is still a sentence.
        assert_eq!(
            prose(
                "Set `trailingSlash: false` in the config when the host serves pages without it."
            ),
            ["Set `trailingSlash: false` in the config when the host serves pages without it."]
        );
    }

    #[test]
    fn task_list_boxes_are_not_quoted() {
        assert_eq!(
            prose("- [ ] The Jetson can connect to the lab Wi-Fi.\n- [x] The battery is charged before the demo."),
            ["The Jetson can connect to the lab Wi-Fi.", "The battery is charged before the demo."]
        );
    }

    #[test]
    fn pointers_elsewhere_are_not_quoted() {
        assert!(prose("Check this page for more information.").is_empty());
        assert!(prose("See the following guide for the full details.").is_empty());
        // Naming where to read does not make it an answer.
        assert!(prose("See the GitHub documentation for more information.").is_empty());
        // The reader's progress, the text's plan, a scene to picture: nothing of the subject.
        for signpost in [
            "You've learned why ROS 2 exists and its overall architecture.",
            "Now let's break down the three fundamental concepts with concrete examples.",
            "By the end, you'll be able to deploy your policies onto physical hardware.",
            "In this section we will explore how the sidebar is generated.",
            "In the next chapter, you will learn how to spawn the robot.",
            "In the following sections, we will introduce a few common hosting providers.",
            "In this chapter, you learned how the three pieces fit together.",
            "In this chapter, you've built a complete voice-to-ROS 2 pipeline:",
            "Imagine navigating a dark room blindfolded with your hands tied.",
            "Below is just some dummy content to have more table of contents items available.",
            "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.",
            "Stay tuned to see how to run all of the combinations automatically (Multi-run).",
            "So far we've built individual nodes that communicate via topics and services.",
            "You'll learn the fundamental building blocks that make this nervous system function.",
            "You will discover how the planner turns a sentence into actions.",
            "Proceed to Chapter 05: Simulation Ecosystem to learn about Gazebo and Isaac Sim.",
            "The moment of inertia is (3*r\u{FFFD} + h\u{FFFD}) / 12 for this cylinder.",
            // A question hands the reader's question back.
            "You might wonder: \"Why not write everything in Python?\"",
            "**How do I make every page start with a copyright notice?**",
        ] {
            assert!(prose(signpost).is_empty(), "{signpost}");
        }
        for subject in [
            "Let's add a Dataset and a Trainer class to the config.",
            "In this case the router catches the path and shows a 404 page.",
            "You have to restart the server after changing the config file.",
            "In this chapter you will add a LiDAR, a depth camera and an IMU to the robot.",
            "In the last part of the launch file, the node reads the parameters.",
            "So far the plugin supports only the classic theme and its layouts.",
            "Continue to press the button until the light turns green on the board.",
            "You'll see a message saying the node has started.",
            "You will need a GPU with at least 8 GB of memory.",
            "Not sure which to pick (or can we?) the default works for most books.",
        ] {
            assert_eq!(prose(subject).len(), 1, "{subject}");
        }
        assert!(prose("Check the example plugin linked above for more details.").is_empty());
        assert_eq!(
            prose("See the setup.py file of the example plugin for hints on packaging."),
            ["See the setup.py file of the example plugin for hints on packaging."]
        );
        assert_eq!(
            prose("See the logging page: Hydra writes one log file per job."),
            ["See the logging page: Hydra writes one log file per job."]
        );
    }

    #[test]
    fn a_list_of_questions_is_not_a_block() {
        let questions = "Sometimes you may want to extend it. For example:\n\n- How do I embed youtube videos?\n- How do I style links differently?\n\nAnd the answer is: a plugin.";
        assert!(blocks(questions).is_empty());
        let mixed = "- How do I embed youtube videos?\n- Use the `youtube` plugin.";
        assert_eq!(blocks(mixed).len(), 1);
    }

    #[test]
    fn tables_and_lists_are_blocks() {
        let text = "Pick the joint type for each part:\n\nType | Motion\n--- | ---\n`revolute` | Rotation with limits\n`fixed` | No motion\n\n- Unitree G1: $16,000\n\n- Unitree H1: $90,000\n\n```bash\n- not | a | list\n```\n\n1. One\n2. [Next →](/x)\n\nA line | alone";
        assert_eq!(
            blocks(text),
            [
                (
                    Block::Table(vec![
                        vec!["Type".into(), "Motion".into()],
                        vec!["`revolute`".into(), "Rotation with limits".into()],
                        vec!["`fixed`".into(), "No motion".into()],
                    ]),
                    Some("Pick the joint type for each part:".into())
                ),
                (
                    Block::List(vec![
                        "Unitree G1: $16,000".into(),
                        "Unitree H1: $90,000".into()
                    ]),
                    None
                ),
            ]
        );
        // A `|` in inline code stays in its cell.
        assert_eq!(
            blocks("Name | Type\n`lastmod` | `'date' | 'datetime' | null`"),
            [(
                Block::Table(vec![
                    vec!["Name".into(), "Type".into()],
                    vec!["`lastmod`".into(), "`'date' | 'datetime' | null`".into()],
                ]),
                None
            )]
        );
        // Table rows stay out of the sentences.
        // A lone sentence right above a table leads into it (a table has no caption in the
        // text); two sentences, or a sentence above a list, do not.
        let intro = |text: &str| blocks(text).into_iter().next().and_then(|(_, i)| i);
        let table = "\n\nVersion | Docs\n1.1 | Documentation\n1.0 | Documentation";
        assert_eq!(
            intro(&format!("Older versions remain available.{table}")).as_deref(),
            Some("Older versions remain available.")
        );
        assert_eq!(
            intro(&format!("See below. Older ones remain.{table}")),
            None
        );
        assert_eq!(
            intro("Older versions remain available.\n\n- 1.1 docs\n- 1.0 docs"),
            None
        );
        assert_eq!(prose(text), ["Pick the joint type for each part:"]);
    }

    #[test]
    fn sentence_splitting() {
        assert_eq!(
            prose("1. First step is to install it.\n2. Second step runs the demo now.\n| a | b |\nVersion 2.0 is out today for you. Done!"),
            [
                "First step is to install it.",
                "Second step runs the demo now.",
                "Version 2.0 is out today for you."
            ]
        );
        assert_eq!(
            prose("Use a launch file, e.g. the one below, to start all nodes at once."),
            ["Use a launch file, e.g. the one below, to start all nodes at once."]
        );
    }

    #[test]
    fn abbreviations_and_parentheses_do_not_end_sentences() {
        assert_eq!(
            prose("Visual SLAM uses cameras as the primary sensor (vs. LiDAR in most robots). It runs in real time on a Jetson."),
            [
                "Visual SLAM uses cameras as the primary sensor (vs. LiDAR in most robots).",
                "It runs in real time on a Jetson."
            ]
        );
        assert_eq!(
            prose("The gains are listed in the table (see Fig. 3 below). They were tuned by hand on the real robot."),
            [
                "The gains are listed in the table (see Fig. 3 below).",
                "They were tuned by hand on the real robot."
            ]
        );
        // A parenthesis that never closes does not swallow the paragraph.
        assert_eq!(
            prose("Options are a) fast or b) safe for the arm. Pick the safe one when people are near."),
            [
                "Options are a) fast or b) safe for the arm.",
                "Pick the safe one when people are near."
            ]
        );
    }

    #[test]
    fn symbol_bullets_are_items_and_short_fragments_are_not_quoted() {
        let text = "Why Python:\n✅ Computer vision: OpenCV, PIL, object detection models\n✅ Inverse kinematics: Libraries like `ikpy`, `pybullet`\n⚠️ Real-time control needs C++ because Python's garbage collector can pause for milliseconds.";
        assert_eq!(
            prose(text),
            [
                "Real-time control needs C++ because Python's garbage collector can pause for milliseconds."
            ]
        );
        assert_eq!(
            blocks(text),
            [(
                Block::List(vec![
                    "Computer vision: OpenCV, PIL, object detection models".into(),
                    "Inverse kinematics: Libraries like `ikpy`, `pybullet`".into(),
                    "Real-time control needs C++ because Python's garbage collector can pause for milliseconds.".into(),
                ]),
                Some("Why Python:".into())
            )]
        );
        // A line without closing punctuation is quoted only when long enough to read as a sentence;
        // "Issue: … Solution: …" lines read as one.
        assert_eq!(
            prose("Scenario: Humanoid delivers documents in office\n\nIssue: `ros2: command not found`\nSolution: `source /opt/ros/jazzy/setup.bash`"),
            ["Issue: `ros2: command not found` Solution: `source /opt/ros/jazzy/setup.bash`"]
        );
        // Quotes and navigation arrows open prose, not items.
        assert_eq!(
            prose("“Robots that learn” is the theme of this whole chapter of the book."),
            ["“Robots that learn” is the theme of this whole chapter of the book."]
        );
    }

    #[test]
    fn a_list_item_wrapped_onto_the_next_line_stays_whole() {
        let text = "- output_dir: This is the directory created by Hydra for saving logs and\n  yaml config files, as configured by the pattern.\n- choices: A dictionary containing the final config\ngroup choices, wrapped without indent.\n\nA paragraph follows the list here for you.";
        assert_eq!(
            prose(text),
            [
                "output_dir: This is the directory created by Hydra for saving logs and yaml config files, as configured by the pattern.",
                "choices: A dictionary containing the final config group choices, wrapped without indent.",
                "A paragraph follows the list here for you."
            ]
        );
        assert_eq!(
            blocks(text),
            [(
                Block::List(vec![
                    "output_dir: This is the directory created by Hydra for saving logs and yaml config files, as configured by the pattern.".into(),
                    "choices: A dictionary containing the final config group choices, wrapped without indent.".into(),
                ]),
                None
            )]
        );
    }

    #[test]
    fn a_sentence_leaning_on_the_one_before_gets_it() {
        let text = "Sidebar items can be HTML.\n\nYou can render raw HTML inside sidebar items. This can be useful for inserting custom items such as dividers.\n\nThis plugin supports the PNG and JPG formats only.";
        assert_eq!(
            antecedent(
                text,
                "This can be useful for inserting custom items such as dividers."
            )
            .as_deref(),
            Some("You can render raw HTML inside sidebar items.")
        );
        // "This plugin" names its subject; a paragraph's first sentence has nothing before it.
        assert_eq!(
            antecedent(text, "This plugin supports the PNG and JPG formats only."),
            None
        );
        assert_eq!(
            antecedent("It is fast and it is small.", "It is fast and it is small."),
            None
        );
        let expletive = "Build the site first. It is important to test your build locally.";
        assert_eq!(
            antecedent(expletive, "It is important to test your build locally."),
            None
        );
        let leaning = "Build the whole site on your machine first. It is fast on two cores.";
        assert_eq!(
            antecedent(leaning, "It is fast on two cores.").as_deref(),
            Some("Build the whole site on your machine first.")
        );
        // Not inside lists, nor past a quote's length.
        let list = "- Install the package first.\n- It will then appear in the menu.";
        assert_eq!(antecedent(list, "It will then appear in the menu."), None);
        let long = format!("{} word. It is short.", "A very long sentence".repeat(20));
        assert_eq!(antecedent(&long, "It is short."), None);
    }

    #[test]
    fn a_sentence_opened_by_a_connective_gets_the_one_before() {
        let text = "Connect your repository to Netlify and set the build command. Then, create your site with Netlify.\n\nIn that case, set the base URL. Nextra is another tool.";
        assert_eq!(
            antecedent(text, "Then, create your site with Netlify.").as_deref(),
            Some("Connect your repository to Netlify and set the build command.")
        );
        // A paragraph's first sentence has nothing before it, whatever opens it.
        assert_eq!(antecedent(text, "In that case, set the base URL."), None);
        // A word that merely starts like a connective does not lean.
        assert_eq!(antecedent(text, "Nextra is another tool."), None);
        let phrase = "The build may fail after an upgrade of the theme. In that case, clear the cache first.";
        assert_eq!(
            antecedent(phrase, "In that case, clear the cache first.").as_deref(),
            Some("The build may fail after an upgrade of the theme.")
        );
        let plain = "The build failed twice. Clear the cache first.";
        assert_eq!(antecedent(plain, "Clear the cache first."), None);
    }

    #[test]
    fn the_sentence_after_is_found_in_its_paragraph() {
        let text = "The blog sidebar displays recent blog posts. The default number of items shown is 5, but you can customize it with `blogSidebarCount`.\n\nAnother paragraph starts here and goes on.";
        assert_eq!(
            successor(text, "The blog sidebar displays recent blog posts.").as_deref(),
            Some("The default number of items shown is 5, but you can customize it with `blogSidebarCount`.")
        );
        // The last sentence of a paragraph has none (the next paragraph is another topic), nor
        // does a list item, nor a sentence followed by a fragment.
        assert_eq!(
            successor(text, "The default number of items shown is 5, but you can customize it with `blogSidebarCount`."),
            None
        );
        let list = "- Install the package first and wait.\n- Then restart the server to apply it.";
        assert_eq!(successor(list, "Install the package first and wait."), None);
        let fragment = "Set the option in your config file. See below";
        assert_eq!(
            successor(fragment, "Set the option in your config file."),
            None
        );
        let question = "Robotics research dates back to the 1950s. So why is 2024-2026 the inflection point? Five trends converge.";
        assert_eq!(
            successor(question, "Robotics research dates back to the 1950s."),
            None
        );
    }

    #[test]
    fn a_lead_in_ending_its_section_is_completed_with_the_sections_under_it() {
        let text = "Robotics research dates back to the 1950s. So why now? Five technological trends are\nconverging simultaneously:";
        let lead = "Five technological trends are converging simultaneously:";
        let subs = [
            "1. Vision-Language-Action (VLA) Models".to_string(),
            "2. **Sim-to-Real Transfer**".to_string(),
        ];
        assert_eq!(
            with_its_subsections(text, lead, &subs).as_deref(),
            Some("Five technological trends are converging simultaneously: Vision-Language-Action (VLA) Models; Sim-to-Real Transfer.")
        );
        // Not a lead-in, not the end of its section, or one subsection: nothing to complete.
        assert_eq!(with_its_subsections(text, "So why now?", &subs), None);
        let more = format!("{text}\n\nThey are listed below.");
        assert_eq!(with_its_subsections(&more, lead, &subs), None);
        assert_eq!(with_its_subsections(text, lead, &subs[..1]), None);
    }

    #[test]
    fn a_lead_in_is_completed_with_its_list() {
        let text = "Intro.\n\nThe engine computes three\nthings:\n\n- contact forces\n- friction;\n1. joint limits.\n\nNext paragraph here.";
        let lead = passages(text)
            .into_iter()
            .find(|p| p.text.ends_with(':'))
            .map(|p| p.text)
            .unwrap();
        assert_eq!(
            with_its_list(text, &lead),
            "The engine computes three things: contact forces; friction; joint limits."
        );
        assert_eq!(with_its_list(text, "Intro."), "Intro.");
        assert_eq!(
            with_its_list("No list follows:\n\nProse.", "No list follows:"),
            "No list follows:"
        );
    }

    #[test]
    fn lists_of_options_are_told_from_other_lists() {
        let text = "Intro line here.\n\nChoosing queue size:\n\n- Small (1-10): Real-time data where old messages are irrelevant\n- Large (100+): Important data that shouldn't be lost\n\nSteps:\n\n1. Install the driver from the vendor's page today.\n2. Reboot the machine before you go on to the next step.\n\n- Cause: The driver is missing from the kernel modules.\n- Solution: Install the driver and reboot the machine.";
        let (items, intro) =
            options_list(text, "Large (100+): Important data that shouldn't be lost").unwrap();
        assert_eq!(items.len(), 2);
        assert!(items[0].starts_with("Small (1-10):"));
        assert_eq!(intro.as_deref(), Some("Choosing queue size:"));
        // Steps name no options; a troubleshooting entry's labels have rules of their own.
        assert_eq!(
            options_list(
                text,
                "Reboot the machine before you go on to the next step."
            ),
            None
        );
        assert_eq!(
            options_list(text, "Solution: Install the driver and reboot the machine."),
            None
        );
        // A long list, or one with a long item, is not shown whole.
        let long = format!("- A: {}\n- B: two words", "word ".repeat(60));
        assert_eq!(options_list(&long, "B: two words"), None);
        let many: String = (1..=9)
            .map(|i| format!("- Option {i}: does thing {i}\n"))
            .collect();
        assert_eq!(options_list(&many, "Option 2: does thing 2"), None);
    }

    #[test]
    fn value_lines_are_found_with_their_values() {
        let text = "- Type: `'ignore' | 'log' | 'warn' | 'throw'`\n\nThe behavior when a link is broken.\n\n* **Possible values**: \"top\" | \"bottom\"\n\n- Type: string\n\nDefault: none at all.";
        let found = value_lines(text);
        assert_eq!(found.len(), 2, "{found:?}");
        assert_eq!(found[0].0, "Type: `'ignore' | 'log' | 'warn' | 'throw'`");
        assert_eq!(found[1].1, "\"top\" | \"bottom\"");
    }

    #[test]
    fn table_rows_are_not_sentences() {
        let text = "Question | Topic | Service | Action\nContinuous data stream? | yes | no | no\nTopics stream data between many nodes.";
        assert_eq!(prose(text), ["Topics stream data between many nodes."]);
    }

    #[test]
    fn heading_lists_and_navigation_are_dropped() {
        let text = "- 2.1.3. Whole-Body Control for Balancing and Disturbance Rejection\n- 2.1.4. Sensors for Humanoid Robots\n\nWhole-Body Control for Balancing and Disturbance Rejection .1.4. Sensors\n\nIMUs measure the angular velocity of the torso so the controller can keep the robot upright.\n\n[Previous](/a) → Next chapter";
        assert_eq!(
            prose(text),
            ["IMUs measure the angular velocity of the torso so the controller can keep the robot upright."]
        );
    }

    #[test]
    fn code_blocks_carry_their_intro() {
        let text = "Run the bridge with the following command.\n\n```bash\nros2 run ros_gz_bridge parameter_bridge /clock@rosgraph_msgs/msg/Clock[gz.msgs.Clock\n```";
        let ps = passages(text);
        assert_eq!(ps.len(), 2);
        assert_eq!(
            ps[1].kind,
            Kind::Code {
                lang: "bash".into()
            }
        );
        assert!(ps[1].text.starts_with("ros2 run ros_gz_bridge"));
        assert_eq!(ps[1].intro, Some(0));
    }

    #[test]
    fn a_block_under_a_short_item_carries_the_item_as_its_label() {
        let text = "- Stop when done:\n  ```bash\nstop=true\n  ```\n\n- Keep cluster running after jobs finish\n  ```bash\nstop=false\n  ```\n\nWe run the launcher with these flags every time.\n\n```bash\nlaunch\n```";
        let ps = passages(text);
        let code: Vec<&Passage> = ps
            .iter()
            .filter(|p| matches!(p.kind, Kind::Code { .. }))
            .collect();
        assert_eq!(code.len(), 3);
        assert_eq!(code[0].label.as_deref(), Some("Stop when done:"));
        assert_eq!(
            code[1].label.as_deref(),
            Some("Keep cluster running after jobs finish")
        );
        // A quotable sentence before a block is its intro, not a label.
        assert!(code[2].intro.is_some() && code[2].label.is_none());
    }

    #[test]
    fn a_block_showing_markdown_holds_the_fences_inside_it() {
        // The Docusaurus docs show Markdown source in a ```` block: its ``` lines are code.
        let text = "Pass a custom counter start value to split large code blocks for readability:\n\n````md\n```jsx showLineNumbers=3\nexport default function A() {}\n```\n````\n\nThe counter then starts at line number three in the rendered block.\n\n- one item of a list\n- another item of a list";
        let ps = passages(text);
        let kinds: Vec<&Kind> = ps.iter().map(|p| &p.kind).collect();
        let md = Kind::Code { lang: "md".into() };
        assert_eq!(kinds, [&Kind::Prose, &md, &Kind::Prose], "{ps:?}");
        assert_eq!(
            ps[1].text,
            "```jsx showLineNumbers=3\nexport default function A() {}\n```"
        );
        assert_eq!(ps[1].intro, Some(0));
        // The list after the block is still read as a list.
        assert!(blocks(text)
            .iter()
            .any(|(b, _)| matches!(b, Block::List(items) if items.len() == 2)));
    }

    #[test]
    fn diagrams_are_never_quoted() {
        let text = "The robot moves between these walking states.\n\n```mermaid\nstateDiagram-v2\n    Idle --> Walking\n```\n\n```python\nwalk()\n```";
        let kinds: Vec<Kind> = passages(text).into_iter().map(|p| p.kind).collect();
        assert_eq!(
            kinds,
            [
                Kind::Prose,
                Kind::Code {
                    lang: "python".into()
                }
            ]
        );
    }

    #[test]
    fn long_code_is_cut_around_the_question() {
        let mut body: Vec<String> = (0..40).map(|i| format!("value_{i} = {i}")).collect();
        body[30] = "MAX_GRIP_FORCE = 50.0  # Newtons".into();
        let text = format!("```python\n{}\n```", body.join("\n"));
        let code = &passages(&text)[0].text;
        assert_eq!(
            code.lines().count(),
            40,
            "the passage keeps the whole block"
        );
        // No question term: the block's first lines.
        let top = code_window(code, &[]);
        assert!(
            top.starts_with("value_0 = 0\n") && top.ends_with("\n…"),
            "{top}"
        );
        assert_eq!(top.lines().count(), MAX_CODE_LINES + 1);
        // The line the question asks about is shown, with `…` on both sides.
        let grip = code_window(code, &crate::text::terms("what is the max grip force"));
        assert!(grip.starts_with("…\n") && grip.ends_with("\n…"), "{grip}");
        assert!(grip.contains("MAX_GRIP_FORCE = 50.0"), "{grip}");
        assert_eq!(grip.lines().count(), MAX_CODE_LINES + 2);
        // Short blocks are whole.
        assert_eq!(code_window("a = 1\n", &[]), "a = 1");
    }
}

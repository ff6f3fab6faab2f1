//! The text a custom MDX component is given in its props. Real books keep whole sections there:
//! a hardware table as `requirements={[{ tier: 'minimum', specification: 'NVIDIA GTX 1070 (8GB
//! VRAM)', … }]}`, a troubleshooting accordion as `entries={[{ problem: '…', cause: '…',
//! solution: `…` }]}`, an installation step as `title="…" description="…"`. The page shows that
//! text; without it the section had no chunk and its questions could never be answered.
//!
//! Written by hand: a prop is a JavaScript expression, and all we need from it is its string and
//! number literals with the key each is given; a JavaScript parser (swc, oxc) would be a large
//! dependency of the builder for that. Anything else in the expression (calls, variables,
//! interpolated template literals) is skipped, never guessed.

use super::category::humanize;

/// Props that make a component a link.
const LINK_KEYS: &[&str] = &["to", "href", "url", "link"];

/// Keys whose values are never reader-facing text (identifiers, styling, links).
const SKIPPED_KEYS: &[&str] = &[
    "id",
    "key",
    "classname",
    "class",
    "style",
    "color",
    "href",
    "src",
    "url",
    "to",
    "slug",
    "image",
    "img",
    "variant",
    "size",
    "width",
    "height",
];

/// The reader-facing text of one custom component's props: each literal prop that reads as
/// words (`title="Install Isaac Sim"`), then each object in an expression prop, as one line of
/// its `key: value` pairs (`tier: minimum; specification: NVIDIA GTX 1070 (8GB VRAM)`), in
/// source order; a run of objects with the same keys and short values (a hardware list, a price
/// list) is one table instead, a header row of the keys and a row an object, the form the book
/// shows it in and the one answers quote tables from. An object is left out unless a value
/// reads as words or it has two pairs or more with a word among them (`vram: 8; architecture:
/// Pascal`, not `componentType: gpu`).
pub fn component_text(props: &[(&str, PropValue<'_>)]) -> Vec<String> {
    let mut out = Vec::new();
    // A component given a link target is a link or a button ("Example applications" to
    // GitHub): its words label where it goes, they are not the page's content.
    if props
        .iter()
        .any(|(name, _)| LINK_KEYS.contains(&name.to_ascii_lowercase().as_str()))
    {
        return out;
    }
    // Whether the last text given is a literal prop's (a title, a caption).
    let mut after_literal = false;
    for (name, value) in props {
        if skipped(name) {
            continue;
        }
        match value {
            PropValue::Literal(s) => {
                let s = plain(s);
                if reads_as_words(&s) {
                    out.push(s);
                    after_literal = true;
                }
            }
            PropValue::Expression(src) => {
                let shown: Vec<Pairs> = objects(src)
                    .into_iter()
                    .filter(|pairs| {
                        pairs.iter().any(|(_, v)| reads_as_words(v))
                            || pairs.len() >= 2
                                && pairs
                                    .iter()
                                    .any(|(_, v)| v.chars().any(char::is_alphabetic))
                    })
                    .collect();
                for text in lines_and_tables(&shown) {
                    // A caption right above a table (`caption="Hardware requirements across
                    // tiers"`) announces it, and reads as its lead-in, as "…:" does in prose.
                    if text.contains('\n') && after_literal {
                        if let Some(caption) = out
                            .last_mut()
                            .filter(|c| !c.ends_with(['.', ':', '!', '?', ';']))
                        {
                            caption.push(':');
                        }
                    }
                    out.push(text);
                    after_literal = false;
                }
            }
        }
    }
    out
}

/// One object's `key: value` pairs.
type Pairs = Vec<(String, String)>;

/// The longest value (in characters) a table cell takes; an object with a longer one (a
/// troubleshooting entry's paragraph of a solution) reads better as its own line.
const TABLE_CELL_CHARS: usize = 80;

/// `objects` as text: each run of two or more objects with the same keys, in the same order, and
/// no value longer than [`TABLE_CELL_CHARS`] is one table (its rows joined by newlines; cells by
/// " | ", as the section text gives Markdown tables); any other object is one line of pairs.
fn lines_and_tables(objects: &[Pairs]) -> Vec<String> {
    let same_keys = |a: &Pairs, b: &Pairs| a.iter().map(|(k, _)| k).eq(b.iter().map(|(k, _)| k));
    let fits =
        |o: &Pairs| o.len() >= 2 && o.iter().all(|(_, v)| v.chars().count() <= TABLE_CELL_CHARS);
    let mut out = Vec::new();
    let mut i = 0;
    while i < objects.len() {
        let mut end = i + 1;
        if fits(&objects[i]) {
            while end < objects.len()
                && fits(&objects[end])
                && same_keys(&objects[end], &objects[i])
            {
                end += 1;
            }
        }
        if end - i >= 2 {
            let mut rows = vec![objects[i]
                .iter()
                .map(|(k, _)| humanize(&spoken_key(k)).replace('|', "/"))
                .collect::<Vec<_>>()
                .join(" | ")];
            rows.extend(objects[i..end].iter().map(|o| {
                o.iter()
                    .map(|(_, v)| v.replace('|', "/"))
                    .collect::<Vec<_>>()
                    .join(" | ")
            }));
            out.push(rows.join("\n"));
        } else {
            out.push(
                objects[i]
                    .iter()
                    .map(|(k, v)| format!("{}: {v}", spoken_key(k)))
                    .collect::<Vec<_>>()
                    .join("; "),
            );
        }
        i = end;
    }
    out
}

/// A prop's value as the MDX tree gives it.
#[derive(Debug, Clone, Copy)]
pub enum PropValue<'a> {
    /// `name="text"`.
    Literal(&'a str),
    /// `name={source}`.
    Expression(&'a str),
}

/// A key as a reader would say it: `expectedResult` → "expected result", `gpu_model` → "gpu
/// model" (an acronym stays whole: `vramGB` → "vram gb").
fn spoken_key(key: &str) -> String {
    let mut out = String::new();
    let mut prev_lower = false;
    for c in key.chars() {
        if c == '_' || c == '-' {
            out.push(' ');
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower {
            out.push(' ');
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        out.extend(c.to_lowercase());
    }
    out
}

/// A key whose value is not text a reader reads: an identifier, a style, a link, or a
/// decoration (`emojiPrefix: '🔧'`, `iconName`).
fn skipped(key: &str) -> bool {
    let key = key.to_ascii_lowercase();
    SKIPPED_KEYS.contains(&key.as_str())
        || ["emoji", "icon"]
            .iter()
            .any(|d| key.starts_with(d) || key.ends_with(d))
}

/// Two words or more with a letter: a title, a note, a sentence; not an id or a class name.
fn reads_as_words(s: &str) -> bool {
    s.split_whitespace().count() >= 2 && s.chars().any(char::is_alphabetic)
}

/// One line of text: whitespace runs joined, Markdown links shown by their text.
fn plain(s: &str) -> String {
    static LINK: std::sync::OnceLock<Option<regex::Regex>> = std::sync::OnceLock::new();
    let s = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match LINK.get_or_init(|| regex::Regex::new(r"\[([^\]\n]*)\]\([^)\s]*\)").ok()) {
        Some(re) => re.replace_all(&s, "$1").into_owned(),
        None => s,
    }
}

/// What the scanner is inside of.
enum Frame {
    /// An object literal: its pairs are `objects`' entry at this index.
    Object(usize),
    /// An array: the key it is the value of, if any (its strings become that key's value).
    Array(Option<String>),
    /// Parentheses or anything else opened with a bracket: skipped through.
    Other,
}

/// The `key: literal` pairs of each object literal in `src`, objects in the order they open; a
/// key whose value is an array of literals gets them joined with "; ". Values are [`plain`].
/// An object that is a key's value in an object with pairs of its own (`{ tier: 'minimum',
/// value: { vram: 8 }, notes: '…' }`) is part of it, its pairs where it stands, unless a key
/// would repeat: alone, "vram: 8" would not say which tier it belongs to.
fn objects(src: &str) -> Vec<Pairs> {
    let mut objects: Vec<Pairs> = Vec::new();
    // For each object, the object it is a key's value in and how many pairs that one had then.
    let mut parents: Vec<Option<(usize, usize)>> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    // The last key read (an identifier or a string followed by ':'), waiting for its value.
    let mut key: Option<String> = None;
    // The last identifier or string read, which a ':' makes a key.
    let mut word: Option<String> = None;
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '{' => {
                parents.push(match (stack.last(), &key) {
                    (Some(Frame::Object(o)), Some(_)) => Some((*o, objects[*o].len())),
                    _ => None,
                });
                objects.push(Vec::new());
                stack.push(Frame::Object(objects.len() - 1));
                key = None;
                word = None;
            }
            '[' => {
                stack.push(Frame::Array(key.take()));
                word = None;
            }
            '(' => {
                stack.push(Frame::Other);
                key = None;
                word = None;
            }
            '}' | ']' | ')' => {
                stack.pop();
                key = None;
                word = None;
            }
            ':' => key = word.take(),
            ',' => {
                key = None;
                word = None;
            }
            '\'' | '"' | '`' => {
                let (text, end) = string_at(&chars, i);
                i = end;
                match text {
                    Some(t) => literal(&mut objects, &stack, &mut key, &mut word, plain(&t)),
                    None => key = None,
                }
            }
            c if c.is_ascii_digit()
                || c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit) =>
            {
                let start = i;
                while chars
                    .get(i + 1)
                    .is_some_and(|d| d.is_ascii_alphanumeric() || *d == '.')
                {
                    i += 1;
                }
                let n: String = chars[start..=i].iter().collect();
                literal(&mut objects, &stack, &mut key, &mut word, n);
            }
            c if c.is_alphabetic() || c == '_' || c == '$' => {
                let start = i;
                while chars
                    .get(i + 1)
                    .is_some_and(|d| d.is_alphanumeric() || *d == '_' || *d == '$')
                {
                    i += 1;
                }
                // An identifier: a key when ':' follows; as a value (a variable, a call) it is
                // nothing we can show, and the key waiting for it is dropped.
                word = Some(chars[start..=i].iter().collect());
                key = None;
            }
            _ => {}
        }
        i += 1;
    }
    // Latest first, so a nested object is whole before its parent takes it, and each position
    // recorded in a parent is still where its child stood.
    let had_pairs: Vec<bool> = objects.iter().map(|o| !o.is_empty()).collect();
    for child in (0..objects.len()).rev() {
        let Some(Some((parent, at))) = parents.get(child).copied() else {
            continue;
        };
        let repeats = objects[child]
            .iter()
            .any(|(k, _)| objects[parent].iter().any(|(pk, _)| pk == k));
        if had_pairs[parent] && !repeats {
            let pairs = std::mem::take(&mut objects[child]);
            let at = at.min(objects[parent].len());
            objects[parent].splice(at..at, pairs);
        }
    }
    objects.retain(|pairs| !pairs.is_empty());
    objects
}

/// A string or number literal read at the current position: the value of the waiting key (in
/// its object, or appended to its array's key), else possibly a key itself.
fn literal(
    objects: &mut [Pairs],
    stack: &[Frame],
    key: &mut Option<String>,
    word: &mut Option<String>,
    text: String,
) {
    match (stack.last(), key.take()) {
        (Some(Frame::Object(o)), Some(k)) => {
            // A tab's or an option's machine value (`values={[{ label: 'Apple', value:
            // 'apple' }]}`) is a lowercase identifier; a value a reader reads (`value: '30 s'`,
            // `value: 3`) stays.
            let machine_value = k.eq_ignore_ascii_case("value")
                && text.starts_with(|c: char| c.is_ascii_lowercase())
                && text
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
            if !skipped(&k) && !machine_value && !text.is_empty() {
                objects[*o].push((k, text));
            }
        }
        (Some(Frame::Array(Some(k))), None) if !skipped(k) && !text.is_empty() => {
            // The array's object is the nearest object frame below it.
            if let Some(o) = stack.iter().rev().find_map(|f| match f {
                Frame::Object(o) => Some(*o),
                _ => None,
            }) {
                match objects[o].iter_mut().find(|(key, _)| key == k) {
                    Some((_, v)) => {
                        v.push_str("; ");
                        v.push_str(&text);
                    }
                    None => objects[o].push((k.clone(), text)),
                }
            }
        }
        _ => *word = Some(text),
    }
}

/// The string literal opening at `chars[start]` and the index of its closing quote; `None` as
/// text for a template literal with `${…}` (what it shows depends on the page's code).
fn string_at(chars: &[char], start: usize) -> (Option<String>, usize) {
    let quote = chars[start];
    let mut text = String::new();
    let mut interpolated = false;
    let mut i = start + 1;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' {
            if let Some(&next) = chars.get(i + 1) {
                text.push(match next {
                    'n' => '\n',
                    't' => '\t',
                    other => other,
                });
            }
            i += 2;
            continue;
        }
        if c == quote {
            return ((!interpolated).then_some(text), i);
        }
        if quote == '`' && c == '$' && chars.get(i + 1) == Some(&'{') {
            interpolated = true;
        }
        text.push(c);
        i += 1;
    }
    (None, chars.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Pieces of JavaScript object literals, shuffled into anything.
    fn js() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            Just("{".to_string()),
            Just("}".to_string()),
            Just("[".to_string()),
            Just("]".to_string()),
            Just("(".to_string()),
            Just(")".to_string()),
            Just(", ".to_string()),
            Just(": ".to_string()),
            Just("`a ${b} c`".to_string()),
            Just("\\".to_string()),
            "[a-zA-Z_]{1,8}".prop_map(|s| s),
            "-?[0-9]{1,4}(\\.[0-9])?".prop_map(|s| s),
            "'[a-z é]{0,12}'".prop_map(|s| s),
            "\"[a-z ']{0,12}\"".prop_map(|s| s),
            "[\\PC]{0,3}".prop_map(|s| s),
        ];
        prop::collection::vec(piece, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Never panics; everything it gives is a line of pairs whose values were literals or a
        /// table of a header and two rows or more, each with as many cells as the header.
        #[test]
        fn any_expression_gives_lines_of_pairs_or_tables(src in js()) {
            for text in component_text(&[("p", PropValue::Expression(&src))]) {
                let rows: Vec<&str> = text.split('\n').collect();
                if rows.len() == 1 {
                    prop_assert!(text.contains(": "), "{text:?} from {src:?}");
                } else {
                    prop_assert!(rows.len() >= 3, "{text:?} from {src:?}");
                    let cells = rows[0].matches(" | ").count();
                    prop_assert!(cells >= 1, "{text:?} from {src:?}");
                    for row in &rows {
                        prop_assert_eq!(row.matches(" | ").count(), cells, "{:?} from {:?}", text, src);
                    }
                }
            }
        }
    }

    #[test]
    fn objects_with_the_same_keys_become_a_table() {
        let src = "[\n  { id: 'hw-gpu-minimum', tier: 'minimum', specification: 'NVIDIA GTX 1070 (8GB VRAM)',\n    value: { vram: 8, architecture: 'Pascal' }, notes: 'Basic simulation; limited scene complexity' },\n  { id: 'hw-gpu-recommended', tier: 'recommended', specification: 'RTX 4070 Ti',\n    value: { vram: 12, architecture: 'Ada | Lovelace' }, notes: 'Optimal' },\n  { id: 'hw-ram', tier: \"recommended\", specification: \"64 GB DDR5\" },\n]";
        let lines = component_text(&[
            (
                "title",
                PropValue::Literal("Isaac Sim 2024.1 Hardware Requirements"),
            ),
            ("className", PropValue::Literal("hardware table")),
            ("requirements", PropValue::Expression(src)),
        ]);
        assert_eq!(
            lines,
            [
                "Isaac Sim 2024.1 Hardware Requirements:",
                "Tier | Specification | Vram | Architecture | Notes\n\
                 minimum | NVIDIA GTX 1070 (8GB VRAM) | 8 | Pascal | Basic simulation; limited scene complexity\n\
                 recommended | RTX 4070 Ti | 12 | Ada / Lovelace | Optimal",
                "tier: recommended; specification: 64 GB DDR5",
            ]
            .map(String::from)
        );
    }

    #[test]
    fn long_values_and_lone_objects_stay_lines() {
        let long = "Reduce the number of parallel environments, then restart the simulator and check the GPU memory again";
        let src = format!("[{{ problem: 'Isaac Sim runs slowly', solution: '{long}' }}, {{ problem: 'Crash on start', solution: 'Update the driver' }}]");
        assert_eq!(
            component_text(&[("entries", PropValue::Expression(&src))]),
            [
                format!("problem: Isaac Sim runs slowly; solution: {long}"),
                "problem: Crash on start; solution: Update the driver".to_string(),
            ]
        );
        // A nested object whose keys its parent already has stays its own line; a parent with
        // no pairs of its own keeps its children apart.
        assert_eq!(
            component_text(&[(
                "p",
                PropValue::Expression(
                    "{ name: 'Jetson Orin', spec: { name: 'Orin NX module', ram: '16 GB' } }"
                )
            )]),
            ["name: Jetson Orin", "name: Orin NX module; ram: 16 GB"].map(String::from)
        );
        // A bar in a key or a value does not add a cell.
        assert_eq!(
            component_text(&[(
                "rows",
                PropValue::Expression("[{ 'in | out': 'a | b', n: 1 }, { 'in | out': 'c', n: 2 }]")
            )]),
            ["In / out | N\na / b | 1\nc | 2"].map(String::from)
        );
        // A value a reader reads stays.
        assert_eq!(
            component_text(&[
                (
                    "limits",
                    PropValue::Expression(
                        "[{ name: 'Timeout', value: '30 s' }, { name: 'Retries', value: 3 }]"
                    )
                ),
                ("value", PropValue::Literal("20 ms")),
            ]),
            ["Name | Value\nTimeout | 30 s\nRetries | 3", "20 ms"].map(String::from)
        );
        // Tabs' values are machine values; their labels are the tab items' own.
        assert!(component_text(&[(
            "values",
            PropValue::Expression(
                "[{label: 'Apple', value: 'apple'}, {label: 'Orange', value: 'orange'}]"
            )
        )])
        .is_empty());
    }

    #[test]
    fn arrays_template_literals_and_code_in_props() {
        let src = "{{ ubuntu: { instructions: `Visit the [Download Page](https://x.y/z) and click\n  \"Download\".`, commands: ['sudo apt update', \"sudo apt install foo\"] },\n  windows: { instructions: `Run ${installer} as admin` } }}";
        assert_eq!(
            component_text(&[("platforms", PropValue::Expression(src))]),
            ["instructions: Visit the Download Page and click \"Download\".; commands: sudo apt update; sudo apt install foo"]
                .map(String::from)
        );
        // A link's label is not content.
        assert!(component_text(&[
            ("text", PropValue::Literal("Example applications")),
            ("to", PropValue::Literal("examples/instantiate")),
        ])
        .is_empty());
        // Calls and variables show nothing; an id alone, a number alone are not text.
        assert!(component_text(&[
            (
                "sources",
                PropValue::Expression("{{ light: useBaseUrl('/img/a light.svg') }}")
            ),
            ("toc", PropValue::Expression("toc")),
            ("step", PropValue::Expression("{1}")),
            ("id", PropValue::Literal("install step one")),
            ("label", PropValue::Literal("npm")),
        ])
        .is_empty());
    }

    #[test]
    fn keys_are_said_in_words() {
        assert_eq!(spoken_key("expectedResult"), "expected result");
        assert_eq!(spoken_key("gpu_model"), "gpu model");
        assert_eq!(spoken_key("vramGB"), "vram gb");
        assert_eq!(spoken_key("notes"), "notes");
    }

    #[test]
    fn broken_expressions_end_without_panicking() {
        for src in [
            "{ a: 'unclosed",
            "}}]]) a: 'x y'",
            "{ 'quoted key': 'two words', : 'x y' }",
            "`${",
        ] {
            let _ = component_text(&[("p", PropValue::Expression(src))]);
        }
        assert_eq!(
            component_text(&[("p", PropValue::Expression("{ 'quoted key': 'two words' }"))]),
            ["quoted key: two words"].map(String::from)
        );
    }
}

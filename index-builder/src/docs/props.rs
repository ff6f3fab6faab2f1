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

/// Props that make a component a link.
const LINK_KEYS: &[&str] = &["to", "href", "url", "link"];

/// Keys whose values are never reader-facing text (identifiers, styling, links).
const SKIPPED_KEYS: &[&str] = &[
    "id",
    "key",
    "classname",
    "class",
    "style",
    "icon",
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
/// source order. An object is left out unless a value reads as words or it has two pairs or more
/// with a word among them (`vram: 8; architecture: Pascal`, not `componentType: gpu`).
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
    for (name, value) in props {
        if skipped(name) {
            continue;
        }
        match value {
            PropValue::Literal(s) => {
                let s = plain(s);
                if reads_as_words(&s) {
                    out.push(s);
                }
            }
            PropValue::Expression(src) => out.extend(
                objects(src)
                    .into_iter()
                    .filter(|pairs| {
                        pairs.iter().any(|(_, v)| reads_as_words(v))
                            || pairs.len() >= 2
                                && pairs
                                    .iter()
                                    .any(|(_, v)| v.chars().any(char::is_alphabetic))
                    })
                    .map(|pairs| {
                        pairs
                            .iter()
                            .map(|(k, v)| format!("{}: {v}", spoken_key(k)))
                            .collect::<Vec<_>>()
                            .join("; ")
                    }),
            ),
        }
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

fn skipped(key: &str) -> bool {
    SKIPPED_KEYS.contains(&key.to_ascii_lowercase().as_str())
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
fn objects(src: &str) -> Vec<Vec<(String, String)>> {
    let mut objects: Vec<Vec<(String, String)>> = Vec::new();
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
    objects.retain(|pairs| !pairs.is_empty());
    objects
}

/// A string or number literal read at the current position: the value of the waiting key (in
/// its object, or appended to its array's key), else possibly a key itself.
fn literal(
    objects: &mut [Vec<(String, String)>],
    stack: &[Frame],
    key: &mut Option<String>,
    word: &mut Option<String>,
    text: String,
) {
    match (stack.last(), key.take()) {
        (Some(Frame::Object(o)), Some(k)) => {
            if !skipped(&k) && !text.is_empty() {
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

        /// Never panics; every line it gives is made of pairs whose values were literals.
        #[test]
        fn any_expression_gives_lines_of_pairs(src in js()) {
            for line in component_text(&[("p", PropValue::Expression(&src))]) {
                prop_assert!(line.contains(": "), "{line:?} from {src:?}");
            }
        }
    }

    #[test]
    fn a_table_given_as_a_prop_becomes_one_line_an_object() {
        let src = "[\n  { id: 'hw-gpu-minimum', tier: 'minimum', specification: 'NVIDIA GTX 1070 (8GB VRAM)',\n    value: { vram: 8, architecture: 'Pascal' }, notes: 'Basic simulation; limited scene complexity' },\n  { id: 'hw-ram', tier: \"recommended\", specification: \"64 GB DDR5\" },\n]";
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
                "Isaac Sim 2024.1 Hardware Requirements",
                "tier: minimum; specification: NVIDIA GTX 1070 (8GB VRAM); notes: Basic simulation; limited scene complexity",
                "vram: 8; architecture: Pascal",
                "tier: recommended; specification: 64 GB DDR5",
            ]
            .map(String::from)
        );
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

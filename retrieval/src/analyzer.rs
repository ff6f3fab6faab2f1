//! Text analysis for BM25, shared by the builder (documents) and the browser (questions) so both
//! see the same terms.
//!
//! Unicode-aware: a word is a run of letters, digits and combining marks (Arabic/Urdu harakat,
//! Indic viramas and vowel signs, decomposed accents), joined across ZWNJ/ZWJ as Persian and Urdu
//! write them; scripts written without spaces (Han, Hiragana, Katakana, Thai, Lao, Khmer, Myanmar)
//! give one term per character plus each pair of neighbours. English stop words and the English
//! stemmer apply to ASCII words only, so other scripts are matched as written (lowercased).

/// Words too common to say anything about a section. Sorted (binary search). The apostrophe splits
/// words, so the pieces of contractions are listed too ("don't" → `don`, "won't" → `won`, "you'll" →
/// `ll`): left in, "won't" in a book matched "who won the world cup", and `ll`, `ve`, `re` matched
/// nothing a reader meant. `m` and `d` ("I'm", "I'd") stay terms: "-m" and "-d" are command flags.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "aren", "as", "at",
    "be", "been", "before", "being", "between", "both", "but", "by", "can", "could", "couldn",
    "did", "didn", "do", "does", "doesn", "doing", "don", "each", "eg", "explain", "for", "from",
    "further", "get", "had", "hadn", "has", "hasn", "have", "haven", "having", "he", "her", "here",
    "him", "his", "how", "i", "ie", "if", "im", "in", "into", "is", "isn", "it", "its", "ive",
    "just", "know", "ll", "make", "makes", "me", "more", "most", "mustn", "my", "need", "needn",
    "no", "nor", "not", "of", "off", "on", "once", "one", "only", "or", "other", "our", "out",
    "over", "own", "please", "re", "s", "same", "she", "should", "shouldn", "so", "some", "such",
    "t", "tell", "than", "that", "the", "their", "them", "then", "there", "these", "they", "thing",
    "things", "this", "those", "through", "to", "too", "under", "until", "up", "us", "use", "used",
    "using", "ve", "very", "wanna", "want", "was", "wasn", "way", "we", "were", "weren", "what",
    "whats", "when", "where", "which", "while", "who", "whom", "why", "will", "with", "won",
    "work", "works", "would", "wouldn", "you", "your", "yours",
];

/// Splits text into lowercase, stemmed terms, dropping stop words. `useDocusaurusContext` yields the
/// whole identifier and its camel-case parts, and `hydra.job.chdir` its words and the whole
/// unstemmed, so both ways of asking match.
pub fn analyze(text: &str) -> Vec<String> {
    let mut terms = Vec::new();
    // The identifier being read (`hydra.job.chdir`, `config_path`): byte range and word count.
    let mut joined: Option<(usize, usize, usize)> = None;
    for word in words(text) {
        let start = word.as_ptr() as usize - text.as_ptr() as usize;
        let end = start + word.len();
        joined = match joined {
            Some((s, e, n)) if joins_identifier(text.as_bytes().get(e..start)) => {
                Some((s, end, n + 1))
            }
            other => {
                push_identifier(&mut terms, text, other);
                Some((start, end, 1))
            }
        };
        if is_unspaced(word.chars().next().unwrap_or(' ')) {
            push_unspaced(&mut terms, word);
            continue;
        }
        let parts = camel_parts(word);
        if parts.len() > 1 {
            for p in &parts {
                push_term(&mut terms, p);
            }
        }
        push_term(&mut terms, word);
    }
    push_identifier(&mut terms, text, joined);
    terms
}

/// Whether `term` is a whole identifier of [`analyze`] (`overrides.yaml`): its parts are terms of
/// their own, so a book that lacks the whole lacks nothing the question asks for.
pub fn is_identifier(term: &str) -> bool {
    term.bytes().any(joins_words)
}

/// The characters that join words into one identifier.
fn joins_words(b: u8) -> bool {
    b == b'.' || b == b'_'
}

/// Whether the characters between two words join them into one identifier: one or two dots or
/// underscores and nothing else (`config.yaml`, `config_path`, `_category_.json`).
fn joins_identifier(gap: Option<&[u8]>) -> bool {
    gap.is_some_and(|g| (1..=2).contains(&g.len()) && g.iter().copied().all(joins_words))
}

/// The whole identifier of words joined by dots or underscores, as one more term, lowercase and
/// unstemmed: its parts match a reader who names them in words, the whole a reader who names
/// `overrides.yaml` or `hydra.job.chdir` exactly, which the parts alone (`yaml`, `job`, common all
/// over a book) rank no higher than any page that uses them. Like a camel-case word's whole.
fn push_identifier(terms: &mut Vec<String>, text: &str, joined: Option<(usize, usize, usize)>) {
    let Some((whole, words)) = joined.and_then(|(start, end, n)| Some((text.get(start..end)?, n)))
    else {
        return;
    };
    // Not "e.g" or "i.e": an abbreviation's letters say nothing.
    let letters_only = whole.bytes().filter(u8::is_ascii_alphabetic).count() == words;
    if words < 2 || letters_only || whole.len() > 40 {
        return;
    }
    terms.push(whole.to_lowercase());
}

/// Terms of the words `text` capitalizes inside a sentence (not its first word): "How do Hugo
/// shortcodes take parameters?" → `hugo`. A reader capitalizes names there, so an unseen one is a
/// name the book lacks even when it is also an everyday English word (Hugo, Liquid, Confluence),
/// and the refusal counts it as one. Only the whole word's term: `GitHub`'s part `hub` stays an
/// everyday word. A question written in Title Case (more than half of its words after the first
/// capitalized, four words or more) names nothing this way.
pub fn named_terms(text: &str) -> Vec<String> {
    let capitalized = |w: &str| w.chars().next().is_some_and(char::is_uppercase);
    let all: Vec<&str> = words(text).collect();
    let rest = all.get(1..).unwrap_or_default();
    if rest.len() >= 4 && rest.iter().filter(|w| capitalized(w)).count() * 2 > rest.len() {
        return Vec::new();
    }
    let mut terms = Vec::new();
    let mut prev_end: Option<usize> = None;
    for word in all {
        let start = word.as_ptr() as usize - text.as_ptr() as usize;
        // A word opens a sentence when it is the first one or punctuation that ends a sentence
        // (or a line break) stands between it and the word before.
        let opens =
            prev_end.is_none_or(|end| text[end..start].contains(['.', '?', '!', ':', '\n']));
        prev_end = Some(start + word.len());
        if !opens && capitalized(word) {
            push_term(&mut terms, word);
        }
    }
    terms
}

/// Words of `text`: maximal runs of word characters, a run of an unspaced script kept apart from
/// its neighbours (`ROS2は速い` → `ROS2`, `は速い`).
fn words(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let start = rest.find(is_word_char)?;
        rest = &rest[start..];
        let first_unspaced = rest.chars().next().is_some_and(is_unspaced);
        let end = rest
            .char_indices()
            .find(|&(_, c)| !is_word_char(c) || (is_unspaced(c) != first_unspaced && !is_mark(c)))
            .map_or(rest.len(), |(i, _)| i);
        let (word, tail) = rest.split_at(end);
        rest = tail;
        Some(word)
    })
}

fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || is_mark(c) || c == '\u{200C}' || c == '\u{200D}'
}

fn is_mark(c: char) -> bool {
    !c.is_ascii() && crate::marks::is_mark(c)
}

/// Whether `c` is of a script written without spaces between words (Chinese, Japanese, Thai, Lao,
/// Khmer, Myanmar): the analyzer makes characters and pairs of it, and the answer core counts its
/// words by characters.
pub fn is_unspaced(c: char) -> bool {
    matches!(c as u32,
        0x0E00..=0x0EFF // Thai, Lao
        | 0x1000..=0x109F // Myanmar
        | 0x1780..=0x17FF // Khmer
        | 0x3040..=0x30FF // Hiragana, Katakana
        | 0x3400..=0x4DBF // CJK extension A
        | 0x4E00..=0x9FFF // CJK unified ideographs
        | 0xF900..=0xFAFF // CJK compatibility ideographs
        | 0x20000..=0x2FFFF // CJK extensions B-F
    )
}

/// Function words of Chinese and Japanese, `|`-separated: the stop words of scripts written without
/// spaces ("什么" what, "如何" how, "是" is, "的"; "は", "を", "です"). Taken out of a run before its
/// characters and pairs are made, they leave no term and split the run: "什么是节点" gives `节`,
/// `点`, `节点`, not `什么`, `么是` and `是节` as well, which no section holds and which sank a
/// question's term coverage until the refusal turned away "what is a node?" in a book with a
/// section on nodes. A question's "how to" words go too ("使い方" how to use, "方法" way, "教えて
/// ください" please tell me, "どうやって" how; "怎么样", "请问"): "トピックの使い方" (how to use
/// topics) was refused in a Japanese book with a section on topics. Kept to words that are rarely
/// part of content words (not "能", part of "功能"; not "对", part of "对象"); "方法" is the one
/// noun, taken as a question's "how" at the cost of a section headed by it. A word comes before
/// any shorter one it begins with ("是否", "是").
const UNSPACED_STOP_WORDS: &str =
    "为什么|什么|怎么样|怎么|怎样|如何|哪些|哪个|可以|是否|我们|一个|请问|告诉我|一下|的|了|吗|呢|是|\
在|和|我|你|这|那|ですか|ますか|です|ます|しますか|します|する|して|できますか|できます|できる|\
について|とは|には|教えてください|教えて|ください|どうやって|どうすれば|どう|使い方|やり方|方法|こと|\
の|は|が|を|に|で|と|も|か|何";

/// A run of an unspaced script: each character (with its marks), then each neighbouring pair,
/// within the pieces its function words ([`UNSPACED_STOP_WORDS`]) leave.
fn push_unspaced(terms: &mut Vec<String>, run: &str) {
    let mut starts: Vec<usize> = vec![0];
    starts.extend(
        run.char_indices()
            .skip(1)
            .filter(|&(_, c)| !is_mark(c))
            .map(|(i, _)| i),
    );
    starts.push(run.len());
    // Each unit, or `None` where a function word was taken out (a break between pieces).
    let mut units: Vec<Option<&str>> = Vec::new();
    let mut k = 0;
    while k + 1 < starts.len() {
        let at = starts[k];
        // The list puts a longer word before any word it begins with, so the first match is the
        // longest.
        match UNSPACED_STOP_WORDS
            .split('|')
            .find(|w| run[at..].starts_with(w))
        {
            Some(w) => {
                units.push(None);
                while starts[k] < at + w.len() {
                    k += 1;
                }
            }
            None => {
                units.push(run.get(at..starts[k + 1]));
                k += 1;
            }
        }
    }
    for u in units.iter().flatten() {
        terms.push(u.to_lowercase());
    }
    for pair in units.windows(2) {
        if let [Some(a), Some(b)] = pair {
            terms.push(format!("{a}{b}").to_lowercase());
        }
    }
}

/// Whether `word` (lowercase) is one of the stop words BM25 ignores; the answer core uses the same
/// list to find a question's topic words.
pub fn is_stop_word(word: &str) -> bool {
    let listed = |w: &str| STOP_WORDS.binary_search(&w).is_ok();
    // A contraction typed without its apostrophe ("didnt", "arent", "wont") is its listed "n"
    // piece and a "t"; otherwise a word the book never writes, it cost the question the unseen-word
    // penalty. Three letters at least before the "t": "ant" and "int" are words.
    listed(word)
        || word
            .strip_suffix('t')
            .is_some_and(|w| w.len() > 2 && w.ends_with('n') && listed(w))
}

/// Whether `question` is a bare topic, typed as into a search box ("tf2", "dark mode", "defaults
/// list"): one or two words, each a topic term (not "what urdf", "how install"). It names no aspect
/// of the topic: the search prefers where the book introduces it, and no answer to it is graded
/// "high". `Some` of its terms, as [`analyze`] gives them, when it is one. A question in a script
/// written without spaces (Chinese, Japanese, Thai) is never one: its words cannot be counted, and
/// a whole question there is one run of characters.
pub fn bare_topic(question: &str) -> Option<Vec<String>> {
    if question.chars().any(is_unspaced) {
        return None;
    }
    let words = question.split_whitespace().count();
    let terms = analyze(question);
    ((1..=2).contains(&words) && terms.len() >= words).then_some(terms)
}

fn push_term(terms: &mut Vec<String>, word: &str) {
    let lower: String = word
        .chars()
        .filter(|&c| c != '\u{200C}' && c != '\u{200D}')
        .flat_map(char::to_lowercase)
        .collect();
    if lower.is_empty() {
        return;
    }
    if lower.chars().count() > 40 || is_stop_word(&lower) {
        return;
    }
    terms.push(stem(&lower));
}

/// `useDocusaurusContext` → `use`, `Docusaurus`, `Context`; `HTTPServer` → `HTTP`, `Server`.
fn camel_parts(word: &str) -> Vec<&str> {
    let chars: Vec<(usize, char)> = word.char_indices().collect();
    let mut parts = Vec::new();
    let mut start = 0;
    for i in 1..chars.len() {
        let (prev, cur) = (chars[i - 1].1, chars[i].1);
        let next_lower = chars.get(i + 1).is_some_and(|c| c.1.is_lowercase());
        let boundary = (prev.is_lowercase() && cur.is_uppercase())
            || (prev.is_uppercase() && cur.is_uppercase() && next_lower)
            || (prev.is_alphabetic() && cur.is_ascii_digit())
            || (prev.is_ascii_digit() && cur.is_alphabetic());
        if boundary {
            parts.push(&word[start..chars[i].0]);
            start = chars[i].0;
        }
    }
    parts.push(&word[start..]);
    parts
}

/// A light English stemmer (plurals, -ing, -ed, -ly, -ation…).
///
/// Hand-written: the Snowball crates bundle every language (hundreds of KB of wasm) while the
/// widget only needs English conflation of the common inflections.
pub fn stem(word: &str) -> String {
    if word.len() <= 3 || !word.is_ascii() || word.bytes().any(|b| b.is_ascii_digit()) {
        return word.to_string();
    }
    let w = word;
    let rules: &[(&str, &str)] = &[
        ("ational", "ate"),
        ("ization", "ize"),
        ("ations", "ate"),
        ("ation", "ate"),
        ("iveness", "ive"),
        ("fulness", "ful"),
        ("ousness", "ous"),
        ("nesses", ""),
        ("ness", ""),
        ("ments", ""),
        ("ment", ""),
        ("ingly", ""),
        ("ies", "y"),
        ("ied", "y"),
        ("sses", "ss"),
        ("ing", ""),
        ("edly", ""),
        ("ed", ""),
        ("ly", ""),
        ("es", "e"),
        ("s", ""),
    ];
    for (suffix, repl) in rules {
        if let Some(base) = w.strip_suffix(suffix) {
            if base.len() < 3
                || (*suffix == "s"
                    && (base.ends_with('s') || base.ends_with('u') || base.ends_with('i')))
            {
                continue;
            }
            let has_vowel = base.bytes().any(|b| b"aeiouy".contains(&b));
            if !has_vowel {
                continue;
            }
            let mut out = format!("{base}{repl}");
            // "running" -> "runn" -> "run"; "stopped" -> "stop".
            if repl.is_empty() && matches!(*suffix, "ing" | "ed") {
                let b = out.as_bytes();
                let n = b.len();
                if n >= 2 && b[n - 1] == b[n - 2] && !b"lsz".contains(&b[n - 1]) {
                    out.pop();
                }
            }
            return out.trim_end_matches('e').to_string();
        }
    }
    w.trim_end_matches('e').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_topics_are_told_from_questions() {
        let bare = |q: &str| bare_topic(q).is_some();
        for topic in ["tf2", "dark mode", "defaults list", "useDocusaurusContext"] {
            assert!(bare(topic), "{topic}");
        }
        for question in [
            "what is urdf",
            "how install",
            "why hydra",
            "add a search bar to my site",
            "future.result() gives None",
            "",
            // Whole questions in scripts written without spaces ("how do I install ROS 2?").
            "如何安装ROS2？",
            "ROS2をインストールするには",
        ] {
            assert!(!bare(question), "{question}");
        }
    }

    #[test]
    fn names_are_words_capitalized_inside_a_sentence() {
        assert_eq!(
            named_terms("How do Hugo shortcodes receive named parameters?"),
            ["hugo"]
        );
        // A sentence's first word, a camel-case word's parts and lowercase words are not names.
        assert_eq!(named_terms("Liquid includes. Where is GitHub?"), ["github"]);
        assert_eq!(
            named_terms("In Jekyll, pass a Liquid include"),
            ["jekyll", "liquid"]
        );
        assert!(named_terms("what is a ros node\nWhy").is_empty());
        assert!(named_terms("How To Make Tabs Sync Across Pages").is_empty());
        assert!(named_terms("").is_empty());
    }

    #[test]
    fn contractions_leave_no_pieces() {
        assert_eq!(
            analyze("It won't build, you'll see; we've tried and they're stuck. Sure it doesn't."),
            ["build", "see", "tri", "stuck", "sur"]
        );
        // A command's flag is a term: `python -m`.
        assert_eq!(analyze("python -m pkg"), ["python", "m", "pkg"]);
    }

    #[test]
    fn contractions_typed_without_their_apostrophe_are_stop_words() {
        for word in [
            "dont", "didnt", "arent", "wont", "cant", "isnt", "doesnt", "shouldnt",
        ] {
            assert!(is_stop_word(word), "{word}");
        }
        for word in ["ant", "int", "paint", "went", "want_not", "print"] {
            assert!(!is_stop_word(word), "{word}");
        }
        assert!(analyze("why didnt it work, arent they?").is_empty());
    }

    #[test]
    fn stop_words_are_sorted_for_binary_search() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        assert_eq!(sorted, STOP_WORDS);
    }

    #[test]
    fn inflections_conflate() {
        for group in [
            &["publish", "publishes", "publishing", "published"][..],
            &["topic", "topics"],
            &["simulate", "simulation", "simulations"],
            &["run", "running"],
            &["versions", "version", "versioning"],
            &["library", "libraries"],
        ] {
            let stems: Vec<String> = group.iter().map(|w| stem(w)).collect();
            assert!(
                stems.iter().all(|s| s == &stems[0]),
                "{group:?} -> {stems:?}"
            );
        }
    }

    #[test]
    fn camel_case_and_stop_words() {
        assert_eq!(
            analyze("How do I useDocusaurusContext?"),
            vec!["docusaurus", "context", "usedocusauruscontext"]
        );
        assert_eq!(analyze("ROS2 nodes"), vec!["ros", "2", "ros2", "nod"]);
    }

    #[test]
    fn identifiers_joined_by_dots_or_underscores_are_terms_whole_and_in_parts() {
        assert_eq!(
            analyze("Set hydra.job.chdir in overrides.yaml"),
            [
                "set",
                "hydra",
                "job",
                "chdir",
                "hydra.job.chdir",
                "overrid",
                "yaml",
                "overrides.yaml"
            ]
        );
        assert_eq!(
            analyze("config_path, _category_.json and Hydra 1.2"),
            [
                "config",
                "path",
                "config_path",
                "category",
                "json",
                "category_.json",
                "hydra",
                "1",
                "2",
                "1.2"
            ]
        );
        // A sentence's full stop, a spaced dot, an abbreviation and a path's slash join nothing.
        assert_eq!(analyze("Run it. Then stop"), ["run", "stop"]);
        assert_eq!(analyze("e.g. docs/intro"), ["e", "g", "doc", "intro"]);
        assert_eq!(analyze("a...b"), ["b"]);
        assert!(is_identifier("overrides.yaml") && !is_identifier("overrid"));
    }

    #[test]
    fn other_scripts_keep_their_words_whole_and_unstemmed() {
        // Urdu with harakat and a zero-width non-joiner: one word each, marks kept, joiner dropped.
        assert_eq!(analyze("روزانہ پہرہ"), vec!["روزانہ", "پہرہ"]);
        assert_eq!(analyze("کُتب خانہ"), vec!["کُتب", "خانہ"]);
        assert_eq!(analyze("می\u{200C}خواهم"), vec!["میخواهم"]);
        // Hindi: the virama does not split a word.
        assert_eq!(analyze("नमस्ते दुनिया"), vec!["नमस्ते", "दुनिया"]);
        // Decomposed accents stay inside the word; non-English Latin words are not stop words.
        assert_eq!(analyze("cafe\u{301} the"), vec!["cafe\u{301}"]);
        // Russian is lowercased, not stemmed.
        assert_eq!(analyze("Узлы ROS"), vec!["узлы", "ros"]);
    }

    #[test]
    fn unspaced_scripts_give_characters_and_pairs() {
        assert_eq!(
            analyze("ROS2は速い"),
            vec!["ros", "2", "ros2", "速", "い", "速い"]
        );
        assert_eq!(analyze("灯塔"), vec!["灯", "塔", "灯塔"]);
    }

    #[test]
    fn function_words_of_unspaced_scripts_split_runs_and_leave_no_term() {
        // "What is a node?": only the node's characters and their pair.
        assert_eq!(analyze("什么是节点？"), vec!["节", "点", "节点"]);
        // "How do I install ROS 2?" and the book's "install ROS 2 on Ubuntu" share 安装.
        assert_eq!(
            analyze("如何安装ROS 2"),
            vec!["安", "装", "安装", "ros", "2"]
        );
        assert_eq!(
            analyze("在Ubuntu上安装"),
            vec!["ubuntu", "上", "安", "装", "上安", "安装"]
        );
        // Longest first: "为什么" (why) goes whole, not "为" kept with "什么" taken out.
        assert_eq!(analyze("为什么失败"), vec!["失", "败", "失败"]);
        // Japanese particles: "ノードとは何ですか" (what is a node?).
        assert_eq!(
            analyze("ノードとは何ですか"),
            vec!["ノ", "ー", "ド", "ノー", "ード"]
        );
        // Only whole words: "功能" (feature) keeps both characters and its pair.
        assert_eq!(analyze("功能"), vec!["功", "能", "功能"]);
        // A run that is all function words gives nothing.
        assert!(analyze("是的").is_empty());
        // A question's "how to" words leave only its topic: "how to use topics", "please tell me
        // how to install", "how do nodes communicate" (before 2026-12-01 all three were refused
        // in a Japanese book with sections on each).
        assert_eq!(
            analyze("トピックの使い方"),
            vec!["ト", "ピ", "ッ", "ク", "トピ", "ピッ", "ック"]
        );
        assert_eq!(
            analyze("インストール方法を教えてください"),
            analyze("インストール")
        );
        assert_eq!(
            analyze("ノードはどうやって通信しますか"),
            vec!["ノ", "ー", "ド", "通", "信", "ノー", "ード", "通信"]
        );
        // Chinese "how is it" / "please": 怎么样 goes whole, before 怎么.
        assert_eq!(analyze("请问节点怎么样"), vec!["节", "点", "节点"]);
    }

    #[test]
    fn a_function_word_comes_before_any_shorter_one_it_begins_with() {
        // The first match is taken, so a word listed after a shorter one it begins with would
        // never match ("について" after "に").
        let words: Vec<&str> = UNSPACED_STOP_WORDS.split('|').collect();
        for (i, short) in words.iter().enumerate() {
            for long in &words[i + 1..] {
                assert!(
                    !long.starts_with(short),
                    "{long:?} must come before {short:?}"
                );
            }
        }
    }
}

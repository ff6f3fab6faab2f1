//! The answer core: what a reader sees for a question when no LLM writes the answer (every static
//! book's default), and the parts of an LLM answer that do not come from the LLM (confidence,
//! follow-ups). The chat widget and `index-builder answer` both call [`compose`], so the CLI prints
//! exactly what the widget shows. Pure Rust: compiles natively and to wasm32.
//!
//! Path of a question: the search (`book_retrieval::Index::search`) → [`found::collect`] (sources
//! with texts, related sections) → [`compose`] (refusal, or quotes from [`extractive`], numbered
//! sources, [`confidence`], follow-ups from [`suggest`]).
#![warn(missing_docs)]

pub mod confidence;
pub mod extractive;
pub mod followup;
pub mod found;
pub mod passage;
#[cfg(feature = "phrasing")]
pub mod phrasing;
pub mod read;
pub mod source;
pub mod suggest;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;
pub mod words;

pub use book_prompt::prefs::Preferences;
/// A finished turn of the conversation (the follow-up rule reads the previous one).
pub use book_prompt::Turn;
pub use confidence::Confidence;
pub use extractive::{Embed, Quote, Style, EMBED_TOKENS};
pub use found::Found;
pub use read::AlreadyRead;
pub use source::{distinct_labels, Source, SourceRef};

pub use words::{Words, REFUSAL, REFUSAL_NOTHING};
/// Sections listed under a refusal.
pub const REFUSAL_SOURCES: usize = 3;
/// Least relevance of a section listed under a refusal as one of the nearest. Far under the
/// refusal threshold in both phases (0.4–0.44 with the encoder, 0.16 before it), a section matched
/// only by chance: "give me a recipe for chocolate cake" in a robotics book is nearest to "The
/// transfer recipe at a glance" at -0.63. Chosen on the Docusaurus and Hydra docs as the highest
/// floor that hides no gold page from a wrongly refused answerable question there; on the other
/// three labelled books (both phases) it leaves 38 of 88 out-of-scope refusals with no list and
/// hides the gold page from 2 of 23 wrongly refused questions (README).
pub const NEAREST_FLOOR: f32 = -0.3;
/// Sources listed when nothing could be quoted.
pub const UNQUOTED_SOURCES: usize = 3;

/// An answer as the reader sees it (without an LLM).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    /// The book does not cover the question.
    pub refused: bool,
    /// The answer text (Markdown with `[n]` citations numbered like `sources`).
    pub markdown: String,
    /// The quotes, each citing `sources[quote.source]`.
    pub quotes: Vec<Quote>,
    /// The sources listed under the answer, numbered from 1 in this order. Never empty unless the
    /// search found nothing at all (then the answer is a refusal).
    pub sources: Vec<Source>,
    /// Sections linked after the quotes ("Also relevant"), best-ranked first: not numbered, not
    /// quoted. Empty for refusals.
    pub also: Vec<Source>,
    /// `None` for refusals.
    pub confidence: Option<Confidence>,
    /// Follow-up questions, each with the section that offers it.
    pub suggestions: Vec<suggest::Suggestion>,
}

/// Builds the answer to `question` from what the search `found`. `embed` is given once the encoder
/// has loaded (with `found.vector`, quotes are then chosen by meaning). The reader's `prefs` shape
/// the excerpts (see [`Style`]); `index-builder answer` passes the defaults. `words` frame the
/// quotes in the book's language (English: `Words::default()`). `read`: what the reader has just
/// read ([`AlreadyRead::of`]: the passage the question is about, or the answer a follow-up
/// follows), which is not quoted to them again (see [`extractive::choose`]).
pub fn compose(
    question: &str,
    found: &Found,
    embed: Option<Embed>,
    prefs: &Preferences,
    words: &Words,
    read: Option<&AlreadyRead>,
) -> Answer {
    let style = Style::from(prefs);
    if found.refused || found.sources.is_empty() {
        let sources: Vec<Source> = found
            .sources
            .iter()
            .take(REFUSAL_SOURCES)
            .filter(|s| s.score >= NEAREST_FLOOR)
            .cloned()
            .collect();
        // The questions the listed sections answer: a way on from the refusal, never a section
        // the refusal does not list.
        let listed: Vec<&str> = sources.iter().map(|s| s.url.as_str()).collect();
        let nearest: Vec<suggest::Related> = found
            .related
            .iter()
            .filter(|r| listed.contains(&r.url.as_str()))
            .cloned()
            .collect();
        let suggestions = suggest::suggestions(question, &nearest, &[]);
        return Answer {
            refused: true,
            markdown: if sources.is_empty() {
                &words.refusal_nothing
            } else {
                &words.refusal
            }
            .clone(),
            quotes: Vec::new(),
            sources,
            also: Vec::new(),
            confidence: None,
            suggestions,
        };
    }
    let chosen = extractive::choose(
        question,
        &found.sources,
        found.vector.as_deref(),
        embed,
        &style,
        read,
    );
    // Sources are numbered in the order the answer first quotes them: the list under the answer
    // is 1, 2, 3… with no gaps.
    let mut order: Vec<usize> = Vec::new();
    for q in &chosen {
        if !order.contains(&q.source) {
            order.push(q.source);
        }
    }
    // `also`: the sections linked as "Also relevant", which follow-ups do not repeat.
    let (markdown, sources, quotes, also) = if chosen.is_empty() {
        let sources: Vec<Source> = found
            .sources
            .iter()
            .take(UNQUOTED_SOURCES)
            .cloned()
            .collect();
        (
            unquoted_markdown(sources.len(), words),
            sources,
            Vec::new(),
            Vec::new(),
        )
    } else {
        let number = |s: usize| order.iter().position(|&o| o == s).map_or(1, |p| p + 1);
        let also = also_relevant(found, &order);
        let md = extractive::render(
            &chosen,
            number,
            style.citations,
            &also_markdown(&also, words),
            words,
        );
        let quotes: Vec<Quote> = chosen
            .into_iter()
            .map(|q| Quote {
                source: number(q.source) - 1,
                ..q
            })
            .collect();
        let sources = order.iter().map(|&i| found.sources[i].clone()).collect();
        (md, sources, quotes, also)
    };
    let confidence = confidence::for_excerpts(
        &signals(question, found, &sources, &quotes),
        &confidence::ExcerptCutoffs::for_phase(found.vector.is_some()),
    );
    let quoted: Vec<&str> = sources
        .iter()
        .map(|s| s.url.as_str())
        .chain(also.iter().map(|s| s.url.as_str()))
        .collect();
    Answer {
        refused: false,
        suggestions: suggest::suggestions(question, &found.related, &quoted),
        markdown,
        quotes,
        sources,
        also,
        confidence: Some(confidence),
    }
}

/// Sections linked after the quotes at most.
pub const ALSO_RELEVANT: usize = 2;

/// How far under the relevance threshold a section may be and still be linked as also relevant
/// (the threshold decides whether the book covers the question; once it does, the sections ranked
/// next are where a reader looks on). With the encoder, the section that answers is often ranked
/// second or third just under the threshold: 0.2 links it most often on the Docusaurus and Hydra
/// docs (of 0, 0.05, 0.1, 0.15, 0.2 and none; the other three books held out).
const ALSO_MARGIN: f32 = 0.2;

/// The best-ranked sections the excerpts do not quote (`listed`: indices of `found.sources` listed
/// under the answer), as long as they are within [`ALSO_MARGIN`] of the relevance threshold, at
/// most [`ALSO_RELEVANT`]: the search often ranks the section that answers second or third, and
/// only quoted sources are listed. Sections that point elsewhere (a quiz, objectives) and a second
/// part of a listed section are left out.
fn also_relevant(found: &Found, listed: &[usize]) -> Vec<Source> {
    let mut urls: Vec<&str> = listed
        .iter()
        .filter_map(|&i| found.sources.get(i))
        .map(|s| s.url.as_str())
        .collect();
    let mut also: Vec<Source> = Vec::new();
    for s in &found.sources {
        if also.len() >= ALSO_RELEVANT {
            break;
        }
        if urls.contains(&s.url.as_str())
            || s.score < found.threshold - ALSO_MARGIN
            || extractive::points_elsewhere(s)
        {
            continue;
        }
        urls.push(&s.url);
        also.push(s.clone());
    }
    also
}

/// "Also relevant: [Chapter › Section](url) · …", or empty.
fn also_markdown(also: &[Source], words: &Words) -> String {
    if also.is_empty() {
        return String::new();
    }
    let links: Vec<String> = also
        .iter()
        .zip(distinct_labels(also))
        .map(|(s, label)| {
            let label = extractive::escape_md(&label);
            // Angle brackets keep a URL with spaces or parentheses one link destination.
            let url = s.url.replace(['<', '>'], "");
            format!("[{label}](<{url}>)")
        })
        .collect();
    format!("{} {}.", words.also_relevant, links.join(" · "))
}

/// The text when no sentence could be quoted: it cites every listed source, so the list shows.
fn unquoted_markdown(n: usize, words: &Words) -> String {
    let cites: Vec<String> = (1..=n).map(|i| format!("[{i}]")).collect();
    words.unquoted.replace("{list}", &cites.join(", "))
}

/// The confidence signals of an excerpt answer.
pub fn signals(
    question: &str,
    found: &Found,
    shown: &[Source],
    quotes: &[Quote],
) -> confidence::ExcerptSignals {
    let margin = found.margin();
    let first = quotes.first().and_then(|q| shown.get(q.source));
    let q_terms = text::terms(question);
    let covered = first.map_or(0.0, |s| {
        let heading = s.section.as_deref().unwrap_or("");
        extractive::term_share(&q_terms, &format!("{} {heading} {}", s.chapter, s.text))
    });
    confidence::ExcerptSignals {
        margin,
        support: found
            .sources
            .iter()
            .filter(|s| s.score >= found.threshold)
            .count(),
        covered,
        from_top: first.is_some_and(|s| found.sources.first().is_some_and(|t| t.chunk == s.chunk))
            && quotes.first().is_some_and(|f| {
                // A table, list or code block quoted first is the top section's own answer.
                !f.matched_as_sentence
                    || quotes
                        .iter()
                        .filter(|q| q.matched_as_sentence)
                        .all(|q| q.score <= f.score)
            }),
        quoted: !quotes.is_empty(),
        agree: found.agree,
        topic_only: book_retrieval::analyzer::bare_topic(question).is_some(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use book_prompt::prefs::{Detail, Format};
    use book_retrieval::SearchRequest;

    fn ask(q: &str) -> Answer {
        ask_with(q, &Preferences::default())
    }

    fn ask_with(q: &str, prefs: &Preferences) -> Answer {
        let (index, texts) = testing::robot_book();
        let res = index.search(&SearchRequest::new(q, None));
        compose(
            q,
            &found::collect(&index, &texts, &res, None),
            None,
            prefs,
            &Words::default(),
            None,
        )
    }

    /// The answer searched and composed for `query` on the robot book, by a reader who has `read`
    /// what is given.
    fn answer_query(query: &str, read: Option<&AlreadyRead>) -> Answer {
        let (index, texts) = testing::robot_book();
        let res = index.search(&SearchRequest::new(query, None));
        compose(
            query,
            &found::collect(&index, &texts, &res, None),
            None,
            &Preferences::default(),
            &Words::default(),
            read,
        )
    }

    #[test]
    fn a_selected_passage_is_not_quoted_back() {
        // "Ask about this" on the Nodes section's first sentence: the reader has read it.
        let selection = "A node is a process in the ROS graph that performs computation.";
        let question = "what does this mean?";
        let about = followup::Leaning::of(question, Some(selection), &[]);
        let query = followup::standalone_query(question, about);
        let answer = |selected: Option<&AlreadyRead>| answer_query(&query, selected);
        let echoed = answer(None);
        assert!(
            echoed.quotes.iter().any(|q| q.text.contains(selection)),
            "without the selection known, the passage is quoted: the test would not check it ({echoed:?})"
        );
        let selected = AlreadyRead::of(question, about);
        let a = answer(selected.as_ref());
        assert!(!a.refused && !a.quotes.is_empty(), "{a:?}");
        assert!(
            a.quotes
                .iter()
                .all(|q| !q.text.contains("performs computation")),
            "{a:?}"
        );
        // The rest of its section is quoted: "Nodes publish data on topics."
        assert!(
            a.quotes
                .iter()
                .any(|q| q.text.contains("Nodes publish data")),
            "{a:?}"
        );
        // Asked for in short, the passage itself is the answer.
        let summary = AlreadyRead::of("summarize this", about);
        assert!(answer(summary.as_ref())
            .quotes
            .iter()
            .any(|q| q.text.contains(selection)));
    }

    #[test]
    fn a_follow_up_quotes_what_the_answer_before_did_not() {
        let ask_after = |previous: &str, quoted: &str, question: &str| {
            let history = [Turn {
                question: previous.into(),
                answer: format!("{}\n\n> {quoted} [1]", words::EXCERPT_LABEL),
            }];
            let leaning = followup::Leaning::of(question, None, &history);
            let query = followup::standalone_query(question, leaning);
            let read = AlreadyRead::of(question, leaning);
            assert!(read.is_some(), "{question:?} is not read as a follow-up");
            answer_query(&query, read.as_ref())
        };
        // The section has another line: it comes first, and the line read is not repeated.
        let a = ask_after(
            "what is a ros node?",
            "A node is a process in the ROS graph that performs computation.",
            "and what else does it do?",
        );
        assert!(a.quotes[0].text.contains("Nodes publish data"), "{a:?}");
        assert!(
            a.quotes
                .iter()
                .all(|q| !q.text.contains("performs computation")),
            "{a:?}"
        );
        // The section has nothing else: its line is quoted again rather than another section's.
        let bridge = "ros2 run ros_gz_bridge parameter_bridge /chatter@std_msgs/msg/String@gz.msgs.StringMsg";
        let a = ask_after(
            "how do I bridge gazebo topics to ros 2?",
            bridge,
            "can you show that command again?",
        );
        assert!(a.quotes.iter().any(|q| q.text.contains(bridge)), "{a:?}");
    }

    #[test]
    fn off_topic_is_refused_with_nearest_sections() {
        let a = ask("best pizza dough recipe");
        assert!(a.refused, "{a:?}");
        assert!(a.quotes.is_empty() && a.confidence.is_none());
    }

    #[test]
    fn a_refusal_lists_only_sections_near_enough() {
        let section = |score: f32| Source {
            chunk: 0,
            chapter: "Nodes".into(),
            section: Some("Topics".into()),
            parent: None,
            url: "/docs/nodes#topics".into(),
            text: "Nodes talk over topics.".into(),
            score,
            subsections: Vec::new(),
        };
        let refusal = |scores: &[f32]| {
            let found = Found {
                sources: scores.iter().map(|&s| section(s)).collect(),
                refused: true,
                ..Found::default()
            };
            compose(
                "q",
                &found,
                None,
                &Preferences::default(),
                &Words::default(),
                None,
            )
        };
        // Matched by chance (far under the threshold): no list, and the refusal does not promise one.
        let far = refusal(&[-0.6, -0.45]);
        assert!(far.refused && far.sources.is_empty(), "{far:?}");
        assert_eq!(far.markdown, REFUSAL_NOTHING);
        // A near miss keeps its nearest sections (the answer may be there).
        let near = refusal(&[0.1, -0.2, -0.5]);
        assert_eq!(near.sources.len(), 2, "{near:?}");
        assert_eq!(near.markdown, REFUSAL);
    }

    #[test]
    fn a_refusal_offers_the_questions_its_nearest_sections_answer() {
        let (index, texts) = testing::robot_book();
        let question = "Gazebo bridge topics";
        let mut res = index.search(&SearchRequest::new(question, None));
        res.refused = true;
        let found = found::collect(&index, &texts, &res, None);
        let answer = |found: &Found| {
            compose(
                question,
                found,
                None,
                &Preferences::default(),
                &Words::default(),
                None,
            )
        };
        let a = answer(&found);
        assert!(a.refused && !a.sources.is_empty(), "{a:?}");
        assert!(!a.suggestions.is_empty(), "{a:?}");
        // Each is the stored question of a section the refusal lists, none of another section.
        for s in &a.suggestions {
            let r = found
                .related
                .iter()
                .find(|r| r.question == s.question && r.url == s.url);
            let r = r.unwrap_or_else(|| panic!("{s:?} is not a nearest section's question"));
            assert_eq!(r.relation, suggest::Relation::Nearest);
            assert!(a.sources.iter().any(|src| src.url == r.url), "{s:?}");
        }
        // Far sections are not listed, so their questions are not offered either.
        let far = Found {
            sources: found
                .sources
                .iter()
                .map(|s| Source {
                    score: -0.9,
                    ..s.clone()
                })
                .collect(),
            ..found.clone()
        };
        let a = answer(&far);
        assert!(a.sources.is_empty() && a.suggestions.is_empty(), "{a:?}");
    }

    #[test]
    fn answer_quotes_and_lists_its_sources_numbered_from_one() {
        let a = ask("What is a URDF file?");
        assert!(!a.refused);
        assert_eq!(a.quotes.len(), 1, "{a:?}");
        assert_eq!(a.sources.len(), 1);
        assert!(a.markdown.contains("[1]") && !a.markdown.contains("[2]"));
        for s in &a.suggestions {
            assert!(s.question.ends_with('?'), "{s:?}");
        }
    }

    #[test]
    fn command_answer_is_a_code_block_with_sources() {
        let a = ask("How do I bridge Gazebo topics to ROS 2?");
        assert!(!a.refused);
        assert!(
            a.markdown.contains("```bash\nros2 run ros_gz_bridge"),
            "{}",
            a.markdown
        );
        assert!(!a.sources.is_empty());
    }

    #[test]
    fn never_a_dead_end() {
        // Sections with nothing quotable: the answer still lists (and cites) them.
        let (index, texts) = testing::tiny_index(&[(
            "Widgets",
            Some("Widget table"),
            "/docs/w",
            Some("t"),
            "Widget | Size | Colour\nsprocket | 3 | red",
        )]);
        let res = index.search(&SearchRequest::new("widget sprocket size", None));
        let a = compose(
            "widget sprocket size",
            &found::collect(&index, &texts, &res, None),
            None,
            &Preferences::default(),
            &Words::default(),
            None,
        );
        assert!(!a.refused);
        assert_eq!(a.sources.len(), 1);
        assert!(a.markdown.contains("[1]"), "{}", a.markdown);
        // No sources: never an answer pointing at a list that is not there.
        for refused in [false, true] {
            let empty = Found {
                refused,
                ..Found::default()
            };
            let a = compose(
                "anything",
                &empty,
                None,
                &Preferences::default(),
                &Words::default(),
                None,
            );
            assert!(a.sources.is_empty());
            assert!(!a.markdown.contains("below"), "{}", a.markdown);
            assert!(!a.markdown.contains("sources"), "{}", a.markdown);
        }
    }

    #[test]
    fn follow_ups_come_from_related_sections() {
        let a = ask("What is a ROS node?");
        assert!(!a.suggestions.is_empty(), "{a:?}");
        assert!(a.suggestions.iter().all(|s| s.question.ends_with('?')));
        assert!(!a.suggestions.iter().any(|s| s.question.contains("Nodes")));
    }

    /// A book where many sentences of three sections answer the same question.
    fn gripper_book() -> (book_retrieval::Index, book_retrieval::ChunkTexts) {
        testing::tiny_index(&[
            ("Grippers", Some("Parallel grippers"), "/docs/grip", Some("parallel"),
             "A parallel gripper grasps objects between two fingers. The gripper closes its fingers until they touch the object. Gripper force is limited so grasped objects are not crushed.\n\n```python\ngripper.close(force=5)\n```"),
            ("Grippers", Some("Suction grippers"), "/docs/grip", Some("suction"),
             "A suction gripper grasps objects with a vacuum cup. The suction gripper needs a flat surface on the object. Such a gripper holds objects without fingers."),
            ("Grippers", Some("Soft grippers"), "/docs/grip", Some("soft"),
             "A soft gripper grasps fragile objects with inflatable fingers. The soft gripper adapts to the shape of the object. Soft gripper fingers grasp fruit safely."),
        ])
    }

    fn ask_grippers(q: &str, prefs: &Preferences) -> Answer {
        let (index, texts) = gripper_book();
        let res = index.search(&SearchRequest::new(q, None));
        compose(
            q,
            &found::collect(&index, &texts, &res, None),
            None,
            prefs,
            &Words::default(),
            None,
        )
    }

    fn prefs(detail: Detail, format: Format, citations: bool) -> Preferences {
        Preferences {
            detail,
            format,
            citations,
        }
    }

    fn prose(a: &Answer) -> usize {
        a.quotes.iter().filter(|q| q.is_sentence()).count()
    }

    #[test]
    fn detail_and_format_set_how_many_quotes() {
        let q = "gripper grasps objects";
        let basic = ask_grippers(q, &prefs(Detail::Basic, Format::Concise, true));
        let default = ask_grippers(q, &Preferences::default());
        let advanced = ask_grippers(q, &prefs(Detail::Advanced, Format::Concise, true));
        let detailed = ask_grippers(q, &prefs(Detail::Advanced, Format::Detailed, true));
        assert_eq!(prose(&basic), 2, "{basic:?}");
        assert_eq!(prose(&default), extractive::MAX_SENTENCES, "{default:?}");
        assert_eq!(prose(&advanced), 4, "{advanced:?}");
        assert!(prose(&detailed) > prose(&advanced), "{detailed:?}");
        // The default preferences are today's answer (what `index-builder answer` prints).
        assert_eq!(Style::default(), Style::from(&Preferences::default()));
        assert_eq!(Style::default().sentences, extractive::MAX_SENTENCES);
    }

    #[test]
    fn examples_prefer_a_code_block() {
        let q = "What is a ROS node?";
        let plain = ask(q);
        assert!(
            plain.quotes.iter().all(|q| q.code_lang().is_none()),
            "{plain:?}"
        );
        let ex = ask_with(q, &prefs(Detail::Intermediate, Format::Examples, true));
        assert!(ex.quotes.iter().any(|q| q.code_lang().is_some()), "{ex:?}");
        assert!(ex.markdown.contains("```bash\nros2 run"), "{}", ex.markdown);
        assert!(prose(&ex) >= 1, "examples still quote the explanation");
    }

    #[test]
    fn ranked_sections_not_quoted_are_linked_before_the_closing_line() {
        let src = |chunk: u32, section: &str, text: &str, score: f32| Source {
            chunk,
            chapter: "Joints".into(),
            section: Some(section.into()),
            parent: None,
            url: format!("/docs/joints#s{chunk}"),
            text: text.into(),
            score,
            subsections: Vec::new(),
        };
        let found = Found {
            sources: vec![
                src(
                    0,
                    "Revolute joints",
                    "A revolute joint rotates about one axis within its limits.",
                    0.9,
                ),
                src(
                    1,
                    "Joint limits",
                    "Limits keep a joint inside the range its motor can reach.",
                    0.8,
                ),
                src(2, "Quiz", "Which joint rotates about one axis?", 0.7),
                src(
                    3,
                    "Prismatic joints",
                    "A prismatic joint slides along one axis.",
                    // Under the threshold, within the margin: still linked.
                    0.35,
                ),
                src(
                    4,
                    "Fixed joints",
                    "A fixed joint welds two links together.",
                    0.1,
                ),
            ],
            related: Vec::new(),
            refused: false,
            threshold: 0.5,
            words_margin: None,
            vector: None,
            agree: false,
        };
        let a = compose(
            "how does a revolute joint rotate",
            &found,
            None,
            &Preferences::default(),
            &Words::default(),
            None,
        );
        let listed: Vec<&str> = a.sources.iter().map(|s| s.url.as_str()).collect();
        let paragraphs: Vec<&str> = a.markdown.split("\n\n").collect();
        let also = paragraphs[paragraphs.len() - 2];
        assert!(also.starts_with("Also relevant: "), "{}", a.markdown);
        for s in &a.also {
            assert!(also.contains(&s.url), "{also}");
        }
        assert!(paragraphs[paragraphs.len() - 1].starts_with("Follow the sources"));
        // Listed sources are not linked again; the quiz points elsewhere; a section far under
        // the threshold (more than the margin) is not relevant; at most two links.
        for url in &listed {
            assert!(!also.contains(url), "{also}");
        }
        assert!(!also.contains("#s2") && !also.contains("#s4"), "{also}");
        assert_eq!(
            also.matches("](<").count(),
            ALSO_RELEVANT.min(found.sources.len() - listed.len() - 2)
        );
        let nodes = book_markdown::parse(&a.markdown);
        assert!(
            format!("{nodes:?}").contains("Link(\"/docs/joints#s"),
            "links parse as links"
        );
    }

    #[test]
    fn citations_off_drops_markers_but_keeps_the_sources() {
        for q in ["gripper grasps objects", "How do I close the gripper?"] {
            let on = ask_grippers(q, &Preferences::default());
            let off = ask_grippers(q, &prefs(Detail::Intermediate, Format::Concise, false));
            assert_eq!(on.quotes, off.quotes, "{q}");
            assert_eq!(on.sources, off.sources, "{q}");
            assert!(!off.sources.is_empty());
            let (body, last) = off.markdown.rsplit_once("\n\n").expect("closing line");
            assert!(
                !body.contains("[1]") && !body.contains("[2]"),
                "{}",
                off.markdown
            );
            // Every listed source is still cited once, in the closing line: the list stays.
            for n in 1..=off.sources.len() {
                assert!(last.contains(&format!("[{n}]")), "{}", off.markdown);
            }
        }
    }
}

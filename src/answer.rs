//! From a question to what to do: refuse (nothing relevant, no LLM call), answer with excerpts, or
//! send a grounded prompt to the LLM. Pure: the UI runs the plan.

use book_answer::followup::{search_in_conversation, Leaning, Searched};
use book_answer::found::Found;
use book_answer::AlreadyRead;

use crate::citations;
use crate::confidence::{self, Confidence};
use crate::prefs::Preferences;
use crate::prompt::{build_prompt, chat_request_body, PromptInput, Turn};
use crate::retrieval::Retriever;
use crate::source::{Source, SourceRef};
use crate::suggest::{suggestions, Suggestion};

pub use book_answer::{Words, REFUSAL, REFUSAL_NOTHING};

/// What the reader is looking at when asking (captured on each question).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageContext {
    /// The page's path and query string (no origin, no anchor); search prefers sections of this page.
    pub url: String,
    /// The page's title without the site name suffix; given to the prompt. Empty when unknown.
    pub title: String,
    /// The nearest heading above the viewport.
    pub section: Option<String>,
    /// Selected text (already bounded by [`crate::selection::capture`]).
    pub selection: Option<String>,
}

/// The question used when the reader sends a selection without typing.
pub const EXPLAIN_THIS: &str = "Explain this";

/// A finished (non-streamed) answer: what the UI shows of a [`book_answer::Answer`].
#[derive(Debug, Clone, PartialEq)]
pub struct Direct {
    /// The answer text (Markdown) with its `[n]` citation markers.
    pub markdown: String,
    /// The numbered sources the answer may cite (`[n]` is `sources[n-1]`); for a refusal, the nearest sections.
    pub sources: Vec<SourceRef>,
    /// How well the book covers the question; `None` when it was not assessed.
    pub confidence: Option<Confidence>,
    /// Follow-up questions to offer as buttons, each with the section that offers it; may be empty.
    pub suggestions: Vec<Suggestion>,
}

/// What to do with a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Plan {
    /// Nothing in the book passes the threshold: no LLM call.
    Refuse(Direct),
    /// Excerpts from the book (no LLM available).
    Extractive(Direct),
    /// Stream from the LLM through the proxy.
    Llm(LlmPlan),
}

/// An LLM request and what is needed to finish the answer or fall back to excerpts.
#[derive(Debug, Clone, PartialEq)]
pub struct LlmPlan {
    /// JSON body for `POST /api/chat`.
    pub body: String,
    /// The search query: the question made standalone from the history and selection; reused for the excerpt fallback.
    pub query: String,
    /// What the search found, its sources cut to those the prompt numbers (`[n]` is
    /// `found.sources[n-1]`); its threshold and related sections serve confidence, the excerpt
    /// fallback and follow-ups.
    pub found: Found,
    /// What the reader has just read (the passage the question is about, or the answer a
    /// follow-up follows), which the excerpt fallback does not quote again.
    pub read: Option<AlreadyRead>,
}

/// How a question is to be answered, beyond the question itself.
#[derive(Debug, Clone, Copy)]
pub struct Answering<'a> {
    /// The reader's preferences.
    pub prefs: Preferences,
    /// The words excerpt answers and refusals are framed in (the book's language).
    pub words: &'a Words,
    /// The conversation's id, sent to the proxy.
    pub session_id: &'a str,
    /// A proxy with an upstream LLM is available.
    pub llm: bool,
}

/// The search for `question` (searched as `query`, its stand-alone form), asked from `page`,
/// leaning on `leaning`, in a conversation whose last answer listed `previous_source` first.
fn search_request<'a>(
    query: &'a str,
    question: &'a str,
    offered_by: Option<&'a str>,
    page: &'a PageContext,
    leaning: Leaning<'_>,
    previous_source: Option<&'a str>,
) -> book_retrieval::SearchRequest<'a> {
    book_answer::followup::search_request(
        query,
        question,
        (!page.url.is_empty()).then_some(page.url.as_str()),
        leaning,
        previous_source,
        offered_by,
    )
}

/// What came before a question in its conversation.
#[derive(Debug, Clone, Copy, Default)]
pub struct ConversationSoFar<'a> {
    /// The earlier answered turns, oldest first.
    pub history: &'a [Turn],
    /// The URL of the first source the last of them listed (`Session::previous_source`).
    pub previous_source: Option<&'a str>,
}

/// Plans an answer to `question`, asked from `page` (`offered_by`: the URL of the section that
/// offered it as a follow-up, when the reader clicked it; see [`Suggestion`]).
pub fn plan(
    retriever: &dyn Retriever,
    question: &str,
    offered_by: Option<&str>,
    page: &PageContext,
    conversation: &ConversationSoFar,
    how: &Answering,
) -> Plan {
    let ConversationSoFar {
        history,
        previous_source,
    } = *conversation;
    let Answering {
        prefs,
        words,
        session_id,
        llm,
    } = *how;
    let Searched {
        leaning,
        query,
        found,
    } = search_in_conversation(
        question,
        page.selection.as_deref(),
        history,
        |query, leaning| {
            retriever.search(search_request(
                query,
                question,
                offered_by,
                page,
                leaning,
                previous_source,
            ))
        },
    );
    let read = AlreadyRead::of(question, leaning);
    if found.refused || found.sources.is_empty() {
        return Plan::Refuse(direct(book_answer::compose(
            &query,
            &found,
            None,
            &prefs,
            words,
            read.as_ref(),
        )));
    }
    if !llm {
        let embed = |t: &str, max_tokens: usize| retriever.embed(t, max_tokens);
        return Plan::Extractive(direct(book_answer::compose(
            &query,
            &found,
            Some(&embed),
            &prefs,
            words,
            read.as_ref(),
        )));
    }
    let prompt = build_prompt(&PromptInput {
        question,
        sources: &found.sources,
        selection: page.selection.as_deref(),
        history,
        prefs,
        page_title: (!page.title.is_empty()).then_some(page.title.as_str()),
    });
    let body = chat_request_body(&prompt, session_id, retriever.content_id());
    let kept: Vec<Source> = prompt
        .kept
        .iter()
        .filter_map(|&i| found.sources.get(i).cloned())
        .collect();
    let found = Found {
        sources: kept,
        ..found
    };
    Plan::Llm(LlmPlan {
        body,
        query,
        found,
        read,
    })
}

/// What the UI keeps of an answer.
fn direct(a: book_answer::Answer) -> Direct {
    Direct {
        markdown: a.markdown,
        sources: a.sources.iter().map(Source::to_ref).collect(),
        confidence: a.confidence,
        suggestions: a.suggestions,
    }
}

/// The excerpt answer for an LLM plan's sources (when the proxy reports no upstream after the
/// plan was made), shaped by the reader's `prefs` like every excerpt answer.
pub fn extractive_answer(plan: &LlmPlan, prefs: Preferences, words: &Words) -> Direct {
    direct(book_answer::compose(
        &plan.query,
        &plan.found,
        None,
        &prefs,
        words,
        plan.read.as_ref(),
    ))
}

/// Confidence and suggestions once a streamed LLM answer is complete.
pub fn finish_llm(
    answer: &str,
    question: &str,
    plan: &LlmPlan,
    prefs: Preferences,
) -> (Confidence, Vec<Suggestion>) {
    let sources = &plan.found.sources;
    let n = sources.len();
    let scores: Vec<f32> = sources.iter().map(|s| s.score).collect();
    let coverage = prefs.citations.then(|| citations::coverage(answer, n));
    let conf = confidence::assess(&scores, plan.found.threshold, coverage);
    let cited: Vec<&str> = citations::cited(answer, n)
        .into_iter()
        .filter_map(|c| sources.get(c - 1).map(|s| s.url.as_str()))
        .collect();
    (conf, suggestions(question, &plan.found.related, &cited))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::BookIndex;

    fn retriever() -> BookIndex {
        let (index, texts) = book_answer::testing::robot_book();
        BookIndex::new(index, texts)
    }

    /// Plans `question` on the robot book with no page, history or preferences.
    fn ask(question: &str, session_id: &str, llm: bool) -> Plan {
        ask_on(&PageContext::default(), question, session_id, llm)
    }

    /// Plans `question` on the robot book, asked from `page`, with no history or preferences.
    fn ask_on(page: &PageContext, question: &str, session_id: &str, llm: bool) -> Plan {
        plan(
            &retriever(),
            question,
            None,
            page,
            &ConversationSoFar::default(),
            &Answering {
                prefs: Preferences::default(),
                words: &Words::default(),
                session_id,
                llm,
            },
        )
    }

    #[test]
    fn a_follow_up_favours_the_page_the_conversation_was_answered_from() {
        let previous = Some("/docs/gazebo#bridging-topics");
        let favoured = |question: &str, selection: Option<&str>| {
            let page = PageContext {
                url: "/docs/ros".into(),
                selection: selection.map(str::to_string),
                ..PageContext::default()
            };
            let history = [Turn {
                question: "How do I bridge Gazebo topics?".into(),
                answer: "Run the bridge.".into(),
            }];
            let leaning = Leaning::of(question, page.selection.as_deref(), &history);
            search_request(question, question, None, &page, leaning, previous)
                .conversation_source_url
                .map(str::to_string)
        };
        assert_eq!(
            favoured("How do I run it?", None).as_deref(),
            previous,
            "a follow-up"
        );
        assert_eq!(favoured("What does a world file describe?", None), None);
        assert_eq!(favoured(EXPLAIN_THIS, Some("a passage")), None);
    }

    #[test]
    fn a_selected_passage_is_not_quoted_back_nor_in_the_fallback() {
        let selection = "A node is a process in the ROS graph that performs computation.";
        let page = PageContext {
            url: "/docs/ros".into(),
            selection: Some(selection.into()),
            ..PageContext::default()
        };
        let planned = |llm: bool| ask_on(&page, EXPLAIN_THIS, "s", llm);
        let Plan::Extractive(d) = planned(false) else {
            panic!("no excerpt answer")
        };
        assert!(
            !d.markdown.contains("performs computation"),
            "{}",
            d.markdown
        );
        assert!(d.markdown.contains("Nodes publish data"), "{}", d.markdown);
        // The excerpt answer an LLM plan falls back to when the proxy has no model.
        let Plan::Llm(l) = planned(true) else {
            panic!("no LLM plan")
        };
        let fallback = extractive_answer(&l, Preferences::default(), &Words::default());
        assert_eq!(fallback.markdown, d.markdown);
        // The model is still given the passage.
        assert!(l.body.contains("performs computation"));
    }

    #[test]
    fn refusal_makes_no_llm_plan() {
        let p = ask("best pizza?", "s", true);
        let Plan::Refuse(d) = p else { panic!("{p:?}") };
        // Nothing shares a word with the question: nothing to list, and the text says none is.
        assert!(d.sources.is_empty());
        assert_eq!(d.markdown, REFUSAL_NOTHING);
    }

    #[test]
    fn extractive_without_llm() {
        let p = ask("What is a ROS node?", "s", false);
        let Plan::Extractive(d) = p else {
            panic!("{p:?}")
        };
        assert!(d.markdown.contains("[1]"));
        assert!(!d.sources.is_empty());
        assert!(d.confidence.is_some());
        assert!(d.suggestions.iter().all(|s| s.question.ends_with('?')));
    }

    #[test]
    fn widget_shows_exactly_the_answer_core() {
        // `index-builder answer` prints `book_answer::compose` on the same search: same text.
        let (index, texts) = book_answer::testing::robot_book();
        for q in [
            "How do I bridge Gazebo topics to ROS 2?",
            "What is a URDF file?",
            "pizza",
        ] {
            let res = index.search(&book_retrieval::SearchRequest::new(q, None));
            let core = book_answer::compose(
                q,
                &book_answer::found::collect(&index, &texts, &res, None),
                None,
                &Preferences::default(),
                &Words::default(),
                None,
            );
            let p = ask(q, "s", false);
            let d = match p {
                Plan::Refuse(d) | Plan::Extractive(d) => d,
                Plan::Llm(_) => panic!("no LLM"),
            };
            assert_eq!(d.markdown, core.markdown, "{q}");
            assert_eq!(d.suggestions, core.suggestions, "{q}");
            assert_eq!(d.sources.len(), core.sources.len(), "{q}");
        }
    }

    #[test]
    fn llm_plan_numbers_sources() {
        let p = ask("What is a ROS node?", "sid", true);
        let Plan::Llm(l) = p else { panic!("{p:?}") };
        assert!(!l.found.sources.is_empty());
        assert!(l.body.contains("\"session_id\":\"sid\""));
        let (conf, sugg) = finish_llm(
            "A node is a process in the graph of ROS [1].",
            "What is a ROS node?",
            &l,
            Preferences::default(),
        );
        assert_ne!(conf, Confidence::Low);
        assert!(sugg.iter().all(|s| s.question.ends_with('?')));
        // The excerpt fallback quotes the same numbered sources.
        let d = extractive_answer(&l, Preferences::default(), &Words::default());
        assert!(d.markdown.contains("[1]"), "{}", d.markdown);
        assert!(!d.sources.is_empty());
        assert!(d
            .sources
            .iter()
            .all(|s| l.found.sources.iter().any(|f| f.url == s.url)));
    }
}

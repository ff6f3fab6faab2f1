//! From a question to what to do: refuse (nothing relevant, no LLM call), answer with excerpts, or
//! send a grounded prompt to the LLM. Pure: the UI runs the plan.

use crate::citations;
use crate::confidence::{self, Confidence};
use crate::extractive;
use crate::followup::standalone_query;
use crate::prefs::Preferences;
use crate::prompt::{build_prompt, chat_request_body, PromptInput, Turn};
use crate::retrieval::{Retriever, DEFAULT_TOP_K};
use crate::source::{Source, SourceRef};
use crate::suggest::suggestions;

/// What the reader is looking at when asking (captured on each question).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PageContext {
    pub url: String,
    pub title: String,
    /// The nearest heading above the viewport.
    pub section: Option<String>,
    /// Selected text (already bounded by [`crate::selection::capture`]).
    pub selection: Option<String>,
}

/// The text of a refusal.
pub const REFUSAL: &str = "The book does not cover this, so I can't answer it from the book. The nearest sections are listed below in case they help.";
/// The question used when the reader sends a selection without typing.
pub const EXPLAIN_THIS: &str = "Explain this";

/// A finished (non-streamed) answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Direct {
    pub markdown: String,
    pub sources: Vec<SourceRef>,
    pub confidence: Option<Confidence>,
    pub suggestions: Vec<String>,
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
    /// The numbered sources (`[n]` is `sources[n-1]`).
    pub sources: Vec<Source>,
    pub query: String,
    pub threshold: f32,
}

/// Plans an answer. `llm` says whether a proxy with an upstream is available.
pub fn plan(
    retriever: &dyn Retriever,
    question: &str,
    page: &PageContext,
    history: &[Turn],
    prefs: Preferences,
    session_id: &str,
    llm: bool,
) -> Plan {
    let query = standalone_query(question, history, page.selection.as_deref());
    let page_url = (!page.url.is_empty()).then_some(page.url.as_str());
    let found = retriever.search(&query, DEFAULT_TOP_K, page_url);
    if found.refused || found.sources.is_empty() {
        return Plan::Refuse(Direct {
            markdown: REFUSAL.to_string(),
            sources: found.sources.iter().take(3).map(Source::to_ref).collect(),
            confidence: None,
            suggestions: Vec::new(),
        });
    }
    if !llm {
        return Plan::Extractive(extractive_answer(
            &query,
            question,
            &found.sources,
            found.threshold,
        ));
    }
    let prompt = build_prompt(&PromptInput {
        question,
        sources: &found.sources,
        selection: page.selection.as_deref(),
        history,
        prefs,
        page_title: (!page.title.is_empty()).then_some(page.title.as_str()),
    });
    let sources: Vec<Source> = prompt
        .kept
        .iter()
        .filter_map(|&i| found.sources.get(i).cloned())
        .collect();
    Plan::Llm(LlmPlan {
        body: chat_request_body(&prompt, session_id, retriever.content_id()),
        sources,
        query,
        threshold: found.threshold,
    })
}

/// The excerpt answer for `sources` (used directly, and when the proxy reports no upstream).
pub fn extractive_answer(
    query: &str,
    question: &str,
    sources: &[Source],
    threshold: f32,
) -> Direct {
    match extractive::extract(query, sources) {
        Some(e) => {
            let scores: Vec<f32> = sources.iter().map(|s| s.score).collect();
            Direct {
                confidence: Some(confidence::assess(&scores, threshold, None).min_medium()),
                suggestions: suggestions(question, sources, &e.cited),
                markdown: e.markdown,
                sources: sources.iter().map(Source::to_ref).collect(),
            }
        }
        None => Direct {
            markdown: "I found related sections but no sentence to quote; see the sources below."
                .into(),
            sources: sources.iter().map(Source::to_ref).collect(),
            confidence: Some(Confidence::Low),
            suggestions: suggestions(question, sources, &[]),
        },
    }
}

impl Confidence {
    /// Excerpts are never "high": they may not answer the question directly.
    fn min_medium(self) -> Confidence {
        if self == Confidence::High {
            Confidence::Medium
        } else {
            self
        }
    }
}

/// Confidence and suggestions once a streamed LLM answer is complete.
pub fn finish_llm(
    answer: &str,
    question: &str,
    plan: &LlmPlan,
    prefs: Preferences,
) -> (Confidence, Vec<String>) {
    let n = plan.sources.len();
    let scores: Vec<f32> = plan.sources.iter().map(|s| s.score).collect();
    let coverage = prefs.citations.then(|| citations::coverage(answer, n));
    let conf = confidence::assess(&scores, plan.threshold, coverage);
    let cited = citations::cited(answer, n);
    (conf, suggestions(question, &plan.sources, &cited))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::retrieval::{demo_meta, MemoryRetriever};

    fn retriever() -> MemoryRetriever {
        MemoryRetriever::new(
            vec![
                (
                    demo_meta(0, "ROS 2", Some("Nodes"), "/docs/ros#nodes"),
                    "A node is a process in the ROS graph. Nodes publish data.".into(),
                ),
                (
                    demo_meta(1, "ROS 2", Some("Topics"), "/docs/ros#topics"),
                    "Topics carry messages between ROS nodes.".into(),
                ),
            ],
            1.0,
        )
    }

    #[test]
    fn refusal_makes_no_llm_plan() {
        let p = plan(
            &retriever(),
            "best pizza?",
            &PageContext::default(),
            &[],
            Preferences::default(),
            "s",
            true,
        );
        let Plan::Refuse(d) = p else { panic!("{p:?}") };
        assert_eq!(d.markdown, REFUSAL);
        assert!(!d.sources.is_empty());
    }

    #[test]
    fn extractive_without_llm() {
        let p = plan(
            &retriever(),
            "What is a ROS node?",
            &PageContext::default(),
            &[],
            Preferences::default(),
            "s",
            false,
        );
        let Plan::Extractive(d) = p else {
            panic!("{p:?}")
        };
        assert!(d.markdown.contains("[1]"));
        assert_ne!(d.confidence, Some(Confidence::High));
        assert!((2..=3).contains(&d.suggestions.len()));
    }

    #[test]
    fn llm_plan_numbers_sources() {
        let p = plan(
            &retriever(),
            "What is a ROS node?",
            &PageContext::default(),
            &[],
            Preferences::default(),
            "sid",
            true,
        );
        let Plan::Llm(l) = p else { panic!("{p:?}") };
        assert_eq!(l.sources.len(), 2);
        assert!(l.body.contains("\"session_id\":\"sid\""));
        let (conf, sugg) = finish_llm(
            "A node is a process in the graph of ROS [1].",
            "What is a ROS node?",
            &l,
            Preferences::default(),
        );
        assert_ne!(conf, Confidence::Low);
        assert!(!sugg.is_empty());
    }
}

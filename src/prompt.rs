//! The grounded prompt. The contract (system texts, source blocks, selection, history, budget and
//! the request body) lives in the shared `book-prompt` crate, which the proxy compiles too to check
//! requests; this module re-exports it under its old path and adapts the widget's [`Source`].

pub use book_prompt::limits::{CONTEXT_BUDGET_TOKENS, MAX_HISTORY_TURNS};
pub use book_prompt::prompt::{ChatMessage, Prompt, Role, Turn};
pub use book_prompt::text::{estimate_tokens, neutralise};
pub use book_prompt::wire::ChatRequestBody;

use crate::prefs::Preferences;
use crate::source::Source;

/// Everything a prompt is built from (the widget's retrieved [`Source`]s).
#[derive(Debug, Clone)]
pub struct PromptInput<'a> {
    /// The validated question.
    pub question: &'a str,
    /// Ranked best first.
    pub sources: &'a [Source],
    /// The reader's selection.
    pub selection: Option<&'a str>,
    /// Oldest first.
    pub history: &'a [Turn],
    /// The reader's preferences.
    pub prefs: Preferences,
    /// Title of the page the selection comes from.
    pub page_title: Option<&'a str>,
}

/// Builds the prompt within [`CONTEXT_BUDGET_TOKENS`] (see `book_prompt::build_prompt`).
pub fn build_prompt(input: &PromptInput<'_>) -> Prompt {
    let sources: Vec<book_prompt::PromptSource<'_>> = input
        .sources
        .iter()
        .map(|s| book_prompt::PromptSource {
            label: s.label(),
            url: &s.url,
            text: &s.text,
        })
        .collect();
    book_prompt::build_prompt(&book_prompt::PromptInput {
        question: input.question,
        sources: &sources,
        selection: input.selection,
        history: input.history,
        prefs: input.prefs,
        page_title: input.page_title,
    })
}

/// The JSON body for the proxy's `POST /api/chat`; `content_id` is the loaded manifest's
/// `content_hash` (the proxy answers 409 `book_updated` when it serves a newer book).
pub fn chat_request_body(prompt: &Prompt, session_id: &str, content_id: Option<&str>) -> String {
    crate::json::to_string(&ChatRequestBody::new(prompt, session_id, content_id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widget_sources_are_quoted_with_label_and_url() {
        let sources = vec![Source {
            chunk: 1,
            chapter: "Chapter 1".into(),
            section: Some("Section 1".into()),
            parent: None,
            url: "/docs/c1#s1".into(),
            text: "Nodes are processes.".into(),
            score: 1.0,
            subsections: Vec::new(),
        }];
        let p = build_prompt(&PromptInput {
            question: "What is a node?",
            sources: &sources,
            selection: None,
            history: &[],
            prefs: Preferences::default(),
            page_title: None,
        });
        let user = &p
            .messages
            .last()
            .map(|m| m.content.clone())
            .unwrap_or_default();
        assert!(
            user.contains("<source n=\"1\" title=\"Chapter 1 › Section 1\" url=\"/docs/c1#s1\">")
        );
        let v: serde_json::Value =
            serde_json::from_str(&chat_request_body(&p, "sid", Some("abc"))).unwrap();
        assert_eq!(v["stream"], true);
        assert_eq!(v["session_id"], "sid");
        assert_eq!(v["content_id"], "abc");
        assert_eq!(v["messages"][0]["role"], "system");
    }
}

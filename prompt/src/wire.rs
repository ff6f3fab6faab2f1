//! The JSON bodies the widget sends to the proxy: `POST /api/chat` and `POST /api/feedback`.

use serde::{Deserialize, Serialize};

use crate::prompt::{ChatMessage, Prompt};

/// `POST /api/chat`. The proxy rejects unknown fields, so a client cannot smuggle a `model`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatRequestBody {
    /// The prompt built by [`crate::build_prompt`].
    pub messages: Vec<ChatMessage>,
    /// Stream the answer as SSE (the widget's normal mode).
    #[serde(default)]
    pub stream: bool,
    /// The widget's session (size-checked, never forwarded upstream).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The `content_hash` of the index manifest the page loaded: a stale page gets 409 `book_updated`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_id: Option<String>,
}

impl ChatRequestBody {
    /// The streaming request for `prompt`.
    pub fn new(prompt: &Prompt, session_id: &str, content_id: Option<&str>) -> Self {
        Self {
            messages: prompt.messages.clone(),
            stream: true,
            session_id: Some(session_id.to_string()),
            content_id: content_id.map(str::to_string),
        }
    }

    /// As JSON (serialising strings and booleans cannot fail; `{}` if it ever did).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| String::from("{}"))
    }
}

/// A reader's rating; `none` is the widget's automatic report of a refused question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    /// Thumbs up.
    Up,
    /// Thumbs down.
    Down,
    /// No rating: sent with `refused: true` for each refused question.
    None,
}

impl Rating {
    /// The stored and reported name.
    pub fn as_str(self) -> &'static str {
        match self {
            Rating::Up => "up",
            Rating::Down => "down",
            Rating::None => "none",
        }
    }
}

/// `POST /api/feedback` (shared contract 2).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FeedbackBody {
    /// The rating.
    pub rating: Rating,
    /// The assistant declined to answer from the book.
    #[serde(default)]
    pub refused: bool,
    /// The widget's session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The question (stored only if the operator enabled storing questions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub question: Option<String>,
    /// The start of the answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_excerpt: Option<String>,
    /// Pages the answer cited.
    #[serde(default)]
    pub cited_urls: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chat_body_round_trips_and_rejects_extra_fields() {
        let body = r#"{"messages":[{"role":"system","content":"s"}],"stream":true,"session_id":"a","content_id":"h"}"#;
        let b: ChatRequestBody = serde_json::from_str(body).unwrap();
        assert_eq!(b.content_id.as_deref(), Some("h"));
        let again: ChatRequestBody = serde_json::from_str(&b.to_json()).unwrap();
        assert_eq!(again, b);
        assert!(
            serde_json::from_str::<ChatRequestBody>(r#"{"messages":[],"model":"gpt-evil"}"#)
                .is_err()
        );
        assert!(serde_json::from_str::<ChatRequestBody>(
            r#"{"messages":[{"role":"tool","content":"x"}]}"#
        )
        .is_err());
    }

    #[test]
    fn feedback_none_with_refused() {
        let f: FeedbackBody =
            serde_json::from_str(r#"{"rating":"none","refused":true,"cited_urls":[]}"#).unwrap();
        assert_eq!(f.rating, Rating::None);
        assert!(f.refused);
    }
}

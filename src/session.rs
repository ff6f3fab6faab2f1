//! The conversation: a UUID session id, at most 50 question/answer pairs (oldest dropped), persisted as
//! JSON (localStorage in the browser), and a fresh session after 30 minutes idle.

use serde::{Deserialize, Serialize};

use crate::confidence::Confidence;
use crate::prefs::Preferences;
use crate::prompt::Turn;
use crate::source::SourceRef;
use crate::suggest::Suggestion;

/// Pairs kept at most.
pub const MAX_PAIRS: usize = 50;
/// Idle time after which a new session starts, in milliseconds.
pub const IDLE_MS: f64 = 30.0 * 60.0 * 1000.0;
/// The localStorage key.
pub const STORAGE_KEY: &str = "book-chat.session.v1";
/// Shown when an idle session was replaced.
pub const IDLE_NOTICE: &str =
    "Your previous chat ended after 30 minutes without activity; this is a new chat.";

/// How an answer was produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Written by the LLM from the sources.
    Llm,
    /// Quoted sentences from the book (no LLM).
    Extractive,
    /// Nothing relevant in the book: a refusal with the nearest sections.
    Refusal,
}

/// Where an answer stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase", tag = "state", content = "detail")]
pub enum Status {
    /// Asked; no answer text yet (retrieval or the request is running).
    Pending,
    /// Answer text is arriving.
    Streaming,
    /// The answer finished normally.
    Complete,
    /// Cut mid-stream or stopped by the reader: the partial text stays.
    Incomplete(String),
    /// Failed before any text: the message and whether Retry makes sense.
    Failed {
        /// What went wrong, shown to the reader.
        message: String,
        /// Whether the Retry button is offered (false when asking again cannot help).
        retry: bool,
    },
}

/// The reader's rating of an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    /// Thumbs up: the answer helped.
    Up,
    /// Thumbs down: the answer did not help.
    Down,
}

/// One question and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    /// Unique within the session (from [`Session::next_id`]); the UI and controller address the exchange by it.
    pub id: u64,
    /// The question as validated (an empty box with a selection becomes "Explain this").
    pub question: String,
    /// The text the reader had selected on the page when asking, if any; it goes into the page context.
    #[serde(default)]
    pub selection: Option<String>,
    /// The answer text (Markdown) so far; kept when the stream is cut.
    pub answer: String,
    /// How the answer was produced.
    pub mode: Mode,
    /// Where the answer stands (pending, streaming, done, cut or failed).
    pub status: Status,
    /// The numbered sources the answer may cite (`[n]` is `sources[n-1]`).
    #[serde(default)]
    pub sources: Vec<SourceRef>,
    /// How well the book covers the question; `None` until retrieval has run.
    #[serde(default)]
    pub confidence: Option<Confidence>,
    /// Follow-up questions offered as buttons once the answer is complete; empty when there are none.
    #[serde(default, deserialize_with = "suggestions_of_any_widget")]
    pub suggestions: Vec<Suggestion>,
    /// When the question is a follow-up the reader clicked: the URL of the section that offered
    /// it, which answers it (again on Retry or Regenerate).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offered_by: Option<String>,
    /// The reader's thumbs up/down, if given; `None` until rated or after a retry.
    #[serde(default)]
    pub rating: Option<Rating>,
    /// When the question was asked, ISO 8601 in UTC (empty in sessions stored by older widgets).
    #[serde(default)]
    pub asked_at: String,
}

/// Reads stored suggestions, both as this widget stores them and as bare questions (widgets before
/// suggestions carried their section), so an open conversation survives the update.
fn suggestions_of_any_widget<'de, D>(d: D) -> Result<Vec<Suggestion>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stored {
        Offered(Suggestion),
        Question(String),
    }
    let stored: Vec<Stored> = Vec::deserialize(d)?;
    Ok(stored
        .into_iter()
        .map(|s| match s {
            Stored::Offered(s) => s,
            Stored::Question(question) => Suggestion {
                question,
                url: String::new(),
            },
        })
        .collect())
}

/// `ms` since the epoch as ISO 8601 UTC with milliseconds (`2026-11-22T03:14:15.926Z`), the
/// timestamp format of the chat models this widget keeps; empty for an impossible time.
pub fn iso8601(ms: f64) -> String {
    if !ms.is_finite() {
        return String::new();
    }
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms as i64)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

/// A whole conversation, as persisted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// The UUID v4 sent with requests and feedback so the proxy can group one conversation.
    pub id: String,
    /// When the session was last used, in ms since the epoch; decides the 30-minute idle reset.
    pub last_active_ms: f64,
    /// The reader's answer preferences; kept across "New chat" and idle resets.
    #[serde(default)]
    pub prefs: Preferences,
    /// The kept exchanges, oldest first, at most [`MAX_PAIRS`].
    #[serde(default)]
    pub exchanges: Vec<Exchange>,
    /// The id the next exchange gets; only grows, so ids are never reused after old pairs are dropped.
    #[serde(default)]
    pub next_id: u64,
}

/// A UUID v4 string from 16 random bytes (the browser's `crypto.getRandomValues`).
pub fn uuid_v4(bytes: [u8; 16]) -> String {
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .hyphenated()
        .to_string()
}

impl Session {
    /// An empty session.
    pub fn new(id: String, now_ms: f64) -> Self {
        Self {
            id,
            last_active_ms: now_ms,
            prefs: Preferences::default(),
            exchanges: Vec::new(),
            next_id: 1,
        }
    }

    /// Restores the stored session, or starts a new one when there is none, it is unreadable, or it
    /// has been idle for 30 minutes (then with [`IDLE_NOTICE`]). Preferences survive an idle restart.
    pub fn restore(
        stored: Option<&str>,
        now_ms: f64,
        new_id: impl FnOnce() -> String,
    ) -> (Session, Option<&'static str>) {
        let parsed = stored.and_then(|s| crate::json::from_str::<Session>(s).ok());
        match parsed {
            Some(mut s)
                if now_ms - s.last_active_ms < IDLE_MS && now_ms >= s.last_active_ms - 60_000.0 =>
            {
                // An answer that was streaming when the page went away is incomplete now.
                for e in &mut s.exchanges {
                    if matches!(e.status, Status::Pending | Status::Streaming) {
                        e.status = if e.answer.is_empty() {
                            Status::Failed {
                                message: "The page was closed before the answer arrived.".into(),
                                retry: true,
                            }
                        } else {
                            Status::Incomplete(
                                "The page was closed while the answer was streaming.".into(),
                            )
                        };
                    }
                }
                s.next_id = s
                    .next_id
                    .max(s.exchanges.iter().map(|e| e.id + 1).max().unwrap_or(1));
                (s, None)
            }
            Some(old) => {
                let mut s = Session::new(new_id(), now_ms);
                s.prefs = old.prefs;
                let notice = (!old.exchanges.is_empty()).then_some(IDLE_NOTICE);
                (s, notice)
            }
            None => (Session::new(new_id(), now_ms), None),
        }
    }

    /// Whether the session has been idle too long at `now_ms`.
    pub fn is_idle(&self, now_ms: f64) -> bool {
        now_ms - self.last_active_ms >= IDLE_MS
    }

    /// Adds a new exchange (dropping the oldest beyond [`MAX_PAIRS`]) and returns its id.
    pub fn push(&mut self, question: String, selection: Option<String>, now_ms: f64) -> u64 {
        let id = self.next_id.max(1);
        self.next_id = id + 1;
        self.exchanges.push(Exchange {
            id,
            question,
            selection,
            answer: String::new(),
            mode: Mode::Llm,
            status: Status::Pending,
            sources: Vec::new(),
            confidence: None,
            suggestions: Vec::new(),
            offered_by: None,
            rating: None,
            asked_at: iso8601(now_ms),
        });
        if self.exchanges.len() > MAX_PAIRS {
            let extra = self.exchanges.len() - MAX_PAIRS;
            self.exchanges.drain(..extra);
        }
        self.last_active_ms = now_ms;
        id
    }

    /// The exchange with `id`, if still kept.
    pub fn get_mut(&mut self, id: u64) -> Option<&mut Exchange> {
        self.exchanges.iter_mut().find(|e| e.id == id)
    }

    /// The exchanges before `id` that were answered (not refused, not empty), oldest first.
    fn answered_before(&self, id: u64) -> impl Iterator<Item = &Exchange> {
        self.exchanges
            .iter()
            .take_while(move |e| e.id != id)
            .filter(|e| !e.answer.is_empty() && e.mode != Mode::Refusal)
    }

    /// Completed earlier turns before exchange `id`, oldest first, for the prompt and query rewriting.
    pub fn turns_before(&self, id: u64) -> Vec<Turn> {
        self.answered_before(id)
            .map(|e| Turn {
                question: e.question.clone(),
                answer: e.answer.clone(),
            })
            .collect()
    }

    /// The URL of the first source the last answer before exchange `id` listed: a follow-up's
    /// search favours the other sections of its page (`book_answer::followup::conversation_source`).
    pub fn previous_source(&self, id: u64) -> Option<&str> {
        self.answered_before(id)
            .last()
            .and_then(|e| e.sources.first())
            .map(|s| s.url.as_str())
    }

    /// "New chat": same preferences, new id, no messages.
    pub fn clear(&mut self, new_id: String, now_ms: f64) {
        let prefs = self.prefs;
        *self = Session::new(new_id, now_ms);
        self.prefs = prefs;
    }

    /// JSON for storage.
    pub fn to_json(&self) -> String {
        crate::json::to_string(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_iso8601_utc() {
        assert_eq!(iso8601(1_795_000_000_123.0), "2026-11-18T11:06:40.123Z");
        assert_eq!(iso8601(f64::NAN), "");
        let mut s = Session::new("id".into(), 0.0);
        s.push("q".into(), None, 1_795_000_000_123.0);
        assert_eq!(s.exchanges[0].asked_at, "2026-11-18T11:06:40.123Z");
    }

    fn ids() -> impl FnMut() -> String {
        let mut n = 0;
        move || {
            n += 1;
            format!("id{n}")
        }
    }

    #[test]
    fn uuid_is_v4() {
        let u = uuid_v4([0xAB; 16]);
        assert_eq!(u.len(), 36);
        assert_eq!(&u[14..15], "4");
        assert!(matches!(&u[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn keeps_at_most_fifty_pairs() {
        let mut s = Session::new("a".into(), 0.0);
        for i in 0..60 {
            s.push(format!("q{i}"), None, i as f64);
        }
        assert_eq!(s.exchanges.len(), MAX_PAIRS);
        assert_eq!(s.exchanges[0].question, "q10");
        assert_eq!(s.exchanges[49].question, "q59");
    }

    #[test]
    fn a_follow_ups_page_is_the_last_answers_first_source() {
        let source = |url: &str| SourceRef {
            chapter: "Gazebo".into(),
            section: None,
            parent: None,
            url: url.into(),
            excerpt: String::new(),
            score: 0.5,
        };
        let mut s = Session::new("sid".into(), 1000.0);
        let answered = |s: &mut Session, mode: Mode, urls: &[&str]| {
            let id = s.push("q".into(), None, 1000.0);
            let e = s.get_mut(id).unwrap();
            e.answer = "a".into();
            e.mode = mode;
            e.sources = urls.iter().map(|u| source(u)).collect();
            id
        };
        answered(&mut s, Mode::Extractive, &["/docs/ros#nodes", "/docs/urdf"]);
        let second = answered(&mut s, Mode::Llm, &["/docs/gazebo#bridging", "/docs/ros"]);
        let refused = answered(&mut s, Mode::Refusal, &["/docs/urdf"]);
        let asked = s.push("and then?".into(), None, 1000.0);
        // A refusal is no turn: the page is the answer's before it.
        assert_eq!(s.previous_source(asked), Some("/docs/gazebo#bridging"));
        assert_eq!(s.previous_source(refused), Some("/docs/gazebo#bridging"));
        assert_eq!(s.previous_source(second), Some("/docs/ros#nodes"));
        assert_eq!(s.previous_source(1), None);
    }

    #[test]
    fn round_trips_and_restores() {
        let mut s = Session::new("sid".into(), 1000.0);
        let id = s.push("What is ROS?".into(), Some("sel".into()), 1000.0);
        let e = s.get_mut(id).unwrap();
        e.answer = "A middleware [1].".into();
        e.status = Status::Complete;
        e.suggestions = vec![Suggestion {
            question: "What are topics?".into(),
            url: "/docs/ros#topics".into(),
        }];
        let id = s.push("What are topics?".into(), None, 1000.0);
        let e = s.get_mut(id).unwrap();
        e.offered_by = Some("/docs/ros#topics".into());
        e.status = Status::Complete;
        let json = s.to_json();
        let mut gen = ids();
        let (r, notice) = Session::restore(Some(&json), 1000.0 + 60_000.0, &mut gen);
        assert_eq!(notice, None);
        assert_eq!(r.id, "sid");
        assert_eq!(r.exchanges, s.exchanges);
        assert_eq!(r.turns_before(u64::MAX).len(), 1);
        // The first answer listed no source: no page to favour.
        assert_eq!(r.previous_source(u64::MAX), None);
    }

    #[test]
    fn suggestions_stored_as_bare_questions_are_restored() {
        let mut s = Session::new("sid".into(), 1000.0);
        let id = s.push("What is ROS?".into(), None, 1000.0);
        let e = s.get_mut(id).unwrap();
        e.status = Status::Complete;
        e.suggestions = vec![Suggestion {
            question: "What are topics?".into(),
            url: "/docs/ros#topics".into(),
        }];
        // As a widget before suggestions carried their section stored it.
        let old = s.to_json().replace(
            r#"{"question":"What are topics?","url":"/docs/ros#topics"}"#,
            r#""What are topics?""#,
        );
        assert!(
            old.contains(r#""suggestions":["What are topics?"]"#),
            "{old}"
        );
        let (r, _) = Session::restore(Some(&old), 1000.0, ids());
        assert_eq!(r.id, "sid", "the conversation survives");
        assert_eq!(r.exchanges[0].suggestions[0].question, "What are topics?");
        assert_eq!(r.exchanges[0].suggestions[0].url, "");
    }

    #[test]
    fn idle_session_is_replaced_with_notice() {
        let mut s = Session::new("old".into(), 0.0);
        s.prefs.citations = false;
        s.push("q".into(), None, 0.0);
        let (r, notice) = Session::restore(Some(&s.to_json()), IDLE_MS + 1.0, ids());
        assert_eq!(r.id, "id1");
        assert!(r.exchanges.is_empty());
        assert_eq!(notice, Some(IDLE_NOTICE));
        assert!(!r.prefs.citations, "preferences survive");
        assert!(s.is_idle(IDLE_MS));
    }

    #[test]
    fn corrupt_storage_starts_fresh() {
        for bad in ["", "{", "null", "{\"id\":5}", "[1,2]"] {
            let (r, notice) = Session::restore(Some(bad), 0.0, ids());
            assert_eq!(r.id, "id1", "{bad}");
            assert_eq!(notice, None);
        }
    }

    #[test]
    fn interrupted_stream_is_marked_on_restore() {
        let mut s = Session::new("s".into(), 0.0);
        let a = s.push("a".into(), None, 0.0);
        let b = s.push("b".into(), None, 0.0);
        s.get_mut(a).unwrap().status = Status::Streaming;
        s.get_mut(a).unwrap().answer = "part".into();
        s.get_mut(b).unwrap().status = Status::Pending;
        let (r, _) = Session::restore(Some(&s.to_json()), 10.0, ids());
        assert!(matches!(r.exchanges[0].status, Status::Incomplete(_)));
        assert!(matches!(
            r.exchanges[1].status,
            Status::Failed { retry: true, .. }
        ));
        assert_eq!(r.next_id, 3);
    }

    #[test]
    fn clear_keeps_prefs() {
        let mut s = Session::new("s".into(), 0.0);
        s.prefs.citations = false;
        s.push("a".into(), None, 0.0);
        s.clear("t".into(), 5.0);
        assert_eq!(s.id, "t");
        assert!(s.exchanges.is_empty());
        assert!(!s.prefs.citations);
    }
}

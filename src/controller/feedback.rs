//! The feedback request body (contract 2: widget -> proxy `POST /api/feedback`): a thumb, or
//! rating "none" with `refused: true` for each refused question (the authors' gap report).

use serde::Serialize;

use crate::citations;
use crate::session::{Exchange, Mode, Rating};
use crate::source::cut_at_word;

/// Longest answer excerpt sent, in characters.
pub const EXCERPT_CHARS: usize = 500;

#[derive(Serialize)]
struct Feedback<'a> {
    rating: &'static str,
    refused: bool,
    session_id: &'a str,
    question: &'a str,
    answer_excerpt: String,
    cited_urls: Vec<&'a str>,
}

/// Whether a POST status says this proxy keeps no feedback at all: no such route (404, 405, 410,
/// 501) or feedback storage switched off (503 `feedback_disabled`, the proxy without `--db`).
pub fn not_kept(status: u16) -> bool {
    matches!(status, 404 | 405 | 410 | 501 | 503)
}

/// JSON body for exchange `e`; `rating: None` = the automatic report of a refusal.
pub fn body(e: &Exchange, rating: Option<Rating>, session_id: &str) -> String {
    let refused = e.mode == Mode::Refusal;
    let cited_urls = if refused {
        Vec::new()
    } else {
        citations::cited(&e.answer, e.sources.len())
            .iter()
            .filter_map(|i| e.sources.get(i.wrapping_sub(1)))
            .map(|s| s.url.as_str())
            .collect()
    };
    let fb = Feedback {
        rating: match rating {
            Some(Rating::Up) => "up",
            Some(Rating::Down) => "down",
            None => "none",
        },
        refused,
        session_id,
        question: &e.question,
        answer_excerpt: cut_at_word(&e.answer, EXCERPT_CHARS),
        cited_urls,
    };
    crate::json::to_string(&fb)
}

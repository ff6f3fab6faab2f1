//! Follow-up questions offered under an answer: drawn from sections related to it (the next step
//! in the chapter, other sections the search found, the next page; under a refusal, the nearest
//! sections it lists). Each is the question the index
//! stores for its section (phrased and asked at build time: see the `phrasing` module and
//! `IndexMeta::follow_ups`), so it names a real section of the book and the book answers it.

use serde::{Deserialize, Serialize};

/// How a related section relates to the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Relation {
    /// The section after the answer's in the same page: the next step.
    Next,
    /// Another section the search found but the answer did not quote.
    Found,
    /// The first section of the next page.
    NextPage,
    /// The section before the answer's.
    Previous,
    /// One of the sections nearest a question the book does not answer (listed under the refusal).
    Nearest,
}

/// A section next to the answer, a source of follow-up questions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Related {
    /// Site URL of the section.
    pub url: String,
    /// How it relates to the answer.
    pub relation: Relation,
    /// The follow-up question the index stores for the section (never empty).
    pub question: String,
}

/// A follow-up offered under an answer, with the section that offered it: clicked, it is answered
/// from that section (`SearchRequest::offered_by`), not from another section whose follow-up has
/// the same words (the Docusaurus docs' 17 "Example configuration" sections all ask "Can you show
/// the example configuration?").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// The question, as its button shows it.
    pub question: String,
    /// Site URL of the section that offers it.
    pub url: String,
}

/// Follow-ups offered at most.
pub const MAX_SUGGESTIONS: usize = 3;

/// Up to [`MAX_SUGGESTIONS`] follow-ups from `related` (in the caller's order of preference), none
/// repeating the question or a section the answer already quotes (`quoted_urls`).
pub fn suggestions(question: &str, related: &[Related], quoted_urls: &[&str]) -> Vec<Suggestion> {
    let asked = question.trim().trim_end_matches('?').to_lowercase();
    // "What are VLA Models?" after "what is a VLA model": no term the reader did not ask.
    let asked_terms = crate::text::terms(question);
    let only_asked = |q: &str| {
        crate::text::terms(q)
            .iter()
            .all(|t| asked_terms.contains(t))
    };
    let mut out: Vec<Suggestion> = Vec::new();
    for r in related {
        if out.len() >= MAX_SUGGESTIONS {
            break;
        }
        if quoted_urls.contains(&r.url.as_str()) {
            continue;
        }
        let q = r.question.clone();
        let key = q.trim_end_matches('?').to_lowercase();
        // "What is Isaac Sim?" after "What is NVIDIA Isaac Sim?" asks the same thing.
        let topic = |k: &str| {
            let words: Vec<&str> = k.split_whitespace().skip(2).collect();
            format!(" {}", words.join(" "))
        };
        let same = |o: &Suggestion| {
            let o = o.question.trim_end_matches('?').to_lowercase();
            o == key || o.ends_with(&topic(&key)) || key.ends_with(&topic(&o))
        };
        if key == asked || only_asked(&q) || out.iter().any(same) {
            continue;
        }
        out.push(Suggestion {
            question: q,
            url: r.url.clone(),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A section the search found, with the question the index stores for it.
    fn found(question: &str, url: &str) -> Related {
        Related {
            url: url.into(),
            relation: Relation::Found,
            question: question.into(),
        }
    }

    fn questions(s: &[Suggestion]) -> Vec<&str> {
        s.iter().map(|s| s.question.as_str()).collect()
    }

    #[test]
    fn suggestions_skip_quoted_and_repeated() {
        let r = found;
        let related = vec![
            r("What are Nodes?", "/n"),
            r("What are Topics?", "/t"),
            r("What are Topics?", "/t2"),
            r("What are Services?", "/sv"),
            r("What are Actions?", "/a"),
        ];
        let s = suggestions("What are topics?", &related, &["/n"]);
        assert_eq!(questions(&s), ["What are Services?", "What are Actions?"]);
        // Each keeps the section that offered it.
        assert_eq!(s[1].url, "/a");
        let related = vec![
            r("What is NVIDIA Isaac Sim?", "/i"),
            r("What is Isaac Sim?", "/u"),
            r("What is Isaac Lab?", "/l"),
        ];
        assert_eq!(
            questions(&suggestions("Which GPU?", &related, &[])),
            ["What is NVIDIA Isaac Sim?", "What is Isaac Lab?"]
        );
        for q in questions(&s) {
            assert!(q.ends_with('?'));
        }
    }

    #[test]
    fn suggestions_never_ask_the_question_again() {
        let r = found;
        let related = vec![
            r("What are VLA Models?", "/m"),
            r("What is OpenVLA Architecture?", "/a"),
        ];
        assert_eq!(
            questions(&suggestions("what is a VLA model", &related, &[])),
            ["What is OpenVLA Architecture?"]
        );
    }
}

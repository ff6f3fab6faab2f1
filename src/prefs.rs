//! Reader preferences that shape the prompt: detail level, answer format, citations on or off.

use serde::{Deserialize, Serialize};

/// How much background the reader wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    Basic,
    #[default]
    Intermediate,
    Advanced,
}

/// The shape of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    #[default]
    Concise,
    Detailed,
    Examples,
}

/// Everything the reader can choose about answers; persisted with the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preferences {
    pub detail: Detail,
    pub format: Format,
    pub citations: bool,
}

impl Default for Preferences {
    fn default() -> Self {
        Self {
            detail: Detail::default(),
            format: Format::default(),
            citations: true,
        }
    }
}

impl Detail {
    /// The prompt instruction for this level.
    pub fn instruction(self) -> &'static str {
        match self {
            Detail::Basic => "The reader is a beginner: use plain language, define every technical term, avoid jargon.",
            Detail::Intermediate => "The reader knows the basics: be precise and explain only the less common terms.",
            Detail::Advanced => "The reader is advanced: be technical and precise, skip introductory explanations.",
        }
    }
}

impl Format {
    /// The prompt instruction for this format.
    pub fn instruction(self) -> &'static str {
        match self {
            Format::Concise => "Answer concisely: a short paragraph or a few bullet points.",
            Format::Detailed => {
                "Answer in detail, in several short paragraphs, following the book's explanation."
            }
            Format::Examples => {
                "Answer with concrete examples from the sources (code where the sources have it)."
            }
        }
    }
}

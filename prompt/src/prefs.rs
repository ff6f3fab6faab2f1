//! Reader preferences that shape the prompt: detail level, answer format, citations on or off.

use serde::{Deserialize, Serialize};

/// How much background the reader wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Detail {
    /// A beginner: plain words, every term defined.
    Basic,
    /// Knows the basics (the default).
    #[default]
    Intermediate,
    /// Wants technical precision without introductions.
    Advanced,
}

/// The shape of the answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// A short paragraph or a few bullets (the default).
    #[default]
    Concise,
    /// Several paragraphs following the book.
    Detailed,
    /// Concrete examples from the sources.
    Examples,
}

/// Everything the reader can choose about answers; persisted with the session.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Preferences {
    /// Detail level.
    pub detail: Detail,
    /// Answer format.
    pub format: Format,
    /// Whether answers carry `[n]` citation markers.
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
    /// Every level, for enumerating preference combinations.
    pub const ALL: [Detail; 3] = [Detail::Basic, Detail::Intermediate, Detail::Advanced];

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
    /// Every format, for enumerating preference combinations.
    pub const ALL: [Format; 3] = [Format::Concise, Format::Detailed, Format::Examples];

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

impl Preferences {
    /// All 18 combinations (3 levels × 3 formats × citations on/off): the proxy accepts exactly
    /// the system texts of these.
    pub fn all() -> Vec<Preferences> {
        let mut out = Vec::with_capacity(18);
        for detail in Detail::ALL {
            for format in Format::ALL {
                for citations in [true, false] {
                    out.push(Preferences {
                        detail,
                        format,
                        citations,
                    });
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_combinations_are_distinct() {
        let all = Preferences::all();
        assert_eq!(all.len(), 18);
        for (i, a) in all.iter().enumerate() {
            assert!(!all[i + 1..].contains(a));
        }
        assert!(all.contains(&Preferences::default()));
    }
}

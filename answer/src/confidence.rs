//! How sure an answer is: from retrieval scores (against the index threshold), and for excerpts the
//! share of the question the quoted section covers; for LLM answers, citation coverage.

use serde::{Deserialize, Serialize};

/// Shown as a small badge under each answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// The top source very likely answers the question.
    High,
    /// Probably answered; worth checking the sources.
    Medium,
    /// Related material only.
    Low,
}

impl Confidence {
    /// The badge text.
    pub fn label(self) -> &'static str {
        match self {
            Confidence::High => "High confidence",
            Confidence::Medium => "Medium confidence",
            Confidence::Low => "Low confidence",
        }
    }
}

/// Margin over the relevance threshold of a clear answer: relevance is about a cosine, and a clear
/// answer sits a tenth above the threshold. [`assess`] grades on it, and a question answered
/// weakly alone is answered from its conversation when that clears it
/// (`crate::followup::search_in_conversation`).
pub const CLEAR_MARGIN: f32 = 0.1;

/// The best of `scores` that is a number (−∞ when none is): what an answer's margin over the
/// relevance threshold is measured from.
pub(crate) fn best_score(scores: impl Iterator<Item = f32>) -> f32 {
    scores
        .filter(|s| s.is_finite())
        .fold(f32::NEG_INFINITY, f32::max)
}

/// Grades an answer. `scores` are the relevance scores of the sources given (the signal the index's
/// refusal threshold applies to; sources are in ranking order, which is not relevance order),
/// `threshold` that threshold, `coverage` the share of answer paragraphs carrying a valid citation
/// (`None` when citations are off, so only retrieval counts).
pub fn assess(scores: &[f32], threshold: f32, coverage: Option<f32>) -> Confidence {
    let top = best_score(scores.iter().copied());
    if !top.is_finite() {
        return Confidence::Low;
    }
    // Margin over the threshold, as a difference: per-book thresholds differ, so a ratio would
    // make every answer of a book with a low threshold look clear.
    let margin = top - threshold;
    let support = scores
        .iter()
        .filter(|s| s.is_finite() && **s >= threshold)
        .count();
    let cov = coverage.unwrap_or(1.0);
    // Relevance is about a cosine: a clear answer sits a tenth above the threshold
    // ([`CLEAR_MARGIN`]), a borderline one within a few hundredths.
    if margin < 0.03 || cov < 0.3 {
        Confidence::Low
    } else if margin >= CLEAR_MARGIN && support >= 2 && cov >= 0.6 {
        Confidence::High
    } else {
        Confidence::Medium
    }
}

/// What an excerpt answer's confidence is graded on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExcerptSignals {
    /// Best source relevance less the index threshold (0 = just answerable). A difference, not a
    /// ratio: per-book thresholds differ (a narrow book's is low), and a ratio to a low threshold
    /// makes every answer look far above it.
    pub margin: f32,
    /// Sources at or above the threshold.
    pub support: usize,
    /// Share of the question's topic terms found in the first quoted section (0–1).
    pub covered: f32,
    /// Whether the best-ranked source also holds the best-matching quoted sentence: the section
    /// ranking and the sentence match agree.
    pub from_top: bool,
    /// Whether anything was quoted at all.
    pub quoted: bool,
    /// The best source is the best by words alone, by meaning alone and fused
    /// (`SearchResults::agree`; never before the encoder has loaded).
    pub agree: bool,
    /// The question is a bare topic ("tf2", "dark mode", as typed into a search box): it names no
    /// aspect of the topic, so no section can be shown to answer it.
    pub topic_only: bool,
}

/// Cut-offs of [`for_excerpts`]; see [`ExcerptCutoffs::default`] for how they were chosen.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExcerptCutoffs {
    /// Margin from which an answer may be "high".
    pub high_margin: f32,
    /// Term coverage needed for "high".
    pub high_covered: f32,
    /// Below this margin an answer is "low".
    pub low_margin: f32,
    /// "High" also needs the three rankings to agree ([`ExcerptSignals::agree`]).
    pub high_agree: bool,
}

impl ExcerptCutoffs {
    /// The cut-offs of one phase: with the encoder (`hybrid`) or before it has loaded (BM25 only;
    /// margins are on another scale there). Fitted by `tests/quality.rs` ([`fit_cutoffs`]) on the
    /// labelled books; the reliability figures it reports come from refits that leave the
    /// measured book out.
    pub fn for_phase(hybrid: bool) -> Self {
        if hybrid {
            Self {
                high_margin: HIGH_MARGIN_HYBRID,
                high_covered: HIGH_COVERED_HYBRID,
                low_margin: LOW_MARGIN,
                high_agree: HIGH_AGREE_HYBRID,
            }
        } else {
            Self {
                high_margin: HIGH_MARGIN_BM25,
                high_covered: 0.9,
                low_margin: LOW_MARGIN,
                high_agree: false,
            }
        }
    }
}

/// Margin under which an answer is "low": just above the threshold.
const LOW_MARGIN: f32 = 0.02;
/// "High" margin with the encoder (fitted, see [`ExcerptCutoffs::for_phase`]).
const HIGH_MARGIN_HYBRID: f32 = 0.26;
/// "High" term coverage with the encoder (fitted).
const HIGH_COVERED_HYBRID: f32 = 0.0;
/// Whether "high" needs the rankings to agree with the encoder (fitted).
const HIGH_AGREE_HYBRID: bool = true;
/// "High" margin before the encoder has loaded (fitted).
const HIGH_MARGIN_BM25: f32 = 0.0;

/// Fits the "high" cut-offs on graded samples (signals, whether the top source was right): the
/// most "high" answers whose share of right top sources stays at or above `precision`.
pub fn fit_cutoffs(
    samples: &[(ExcerptSignals, bool)],
    precision: f32,
    base: ExcerptCutoffs,
) -> ExcerptCutoffs {
    let mut best = ExcerptCutoffs {
        high_margin: f32::INFINITY,
        ..base
    };
    let mut best_count = 0usize;
    for m in (0..=30).map(|i| i as f32 / 50.0) {
        for c in (0..=10).map(|i| i as f32 / 10.0) {
            for a in [false, true] {
                let cut = ExcerptCutoffs {
                    high_margin: m,
                    high_covered: c,
                    high_agree: a,
                    ..base
                };
                let graded: Vec<bool> = samples
                    .iter()
                    .filter(|(s, _)| for_excerpts(s, &cut) == Confidence::High)
                    .map(|(_, ok)| *ok)
                    .collect();
                let right = graded.iter().filter(|ok| **ok).count();
                if !graded.is_empty()
                    && right as f32 >= precision * graded.len() as f32
                    && graded.len() > best_count
                {
                    best_count = graded.len();
                    best = cut;
                }
            }
        }
    }
    best
}

/// Grades an excerpt answer: "high" needs a question that asks something (not a bare topic), a
/// clear margin and a first quote from the best source (covering a share of the question's terms
/// and agreeing rankings, as the cut-offs ask); "low" is a borderline margin or nothing quoted.
pub fn for_excerpts(s: &ExcerptSignals, cut: &ExcerptCutoffs) -> Confidence {
    if !s.quoted || !s.margin.is_finite() || s.margin < cut.low_margin {
        Confidence::Low
    } else if !s.topic_only
        && s.margin >= cut.high_margin
        && s.from_top
        && s.covered >= cut.high_covered
        && (s.agree || !cut.high_agree)
    {
        Confidence::High
    } else {
        Confidence::Medium
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grades() {
        assert_eq!(assess(&[3.0, 2.0], 1.0, Some(1.0)), Confidence::High);
        assert_eq!(
            assess(&[3.0], 1.0, Some(1.0)),
            Confidence::Medium,
            "one supporting source only"
        );
        assert_eq!(assess(&[3.0, 2.0], 1.0, Some(0.4)), Confidence::Medium);
        assert_eq!(
            assess(&[3.0, 2.0], 1.0, Some(0.1)),
            Confidence::Low,
            "answer barely cites"
        );
        assert_eq!(
            assess(&[1.02, 1.0], 1.0, Some(1.0)),
            Confidence::Low,
            "barely above threshold"
        );
        assert_eq!(
            assess(&[0.9, 1.4, 1.2], 1.0, Some(1.0)),
            Confidence::High,
            "the most relevant source need not be ranked first"
        );
        assert_eq!(assess(&[], 1.0, None), Confidence::Low);
        assert_eq!(assess(&[f32::NAN], 1.0, None), Confidence::Low);
        assert_eq!(assess(&[3.0, 2.0], 1.0, None), Confidence::High);
    }

    #[test]
    fn fitted_cut_offs_use_agreement_when_it_pays() {
        // Agreeing answers are right, the others are wrong whatever their margin: the fit asks
        // for agreement.
        let s = |agree: bool| ExcerptSignals {
            margin: 0.5,
            support: 3,
            covered: 1.0,
            from_top: true,
            quoted: true,
            agree,
            topic_only: false,
        };
        let samples: Vec<(ExcerptSignals, bool)> =
            (0..20).map(|i| (s(i % 2 == 0), i % 2 == 0)).collect();
        let cut = fit_cutoffs(&samples, 0.95, ExcerptCutoffs::for_phase(true));
        assert!(cut.high_agree, "{cut:?}");
        assert_eq!(for_excerpts(&s(true), &cut), Confidence::High);
    }

    #[test]
    fn excerpt_grades() {
        let cut = ExcerptCutoffs::for_phase(true);
        let s = ExcerptSignals {
            margin: 0.5,
            support: 3,
            covered: 1.0,
            from_top: true,
            quoted: true,
            agree: true,
            topic_only: false,
        };
        assert_eq!(for_excerpts(&s, &cut), Confidence::High);
        // A bare topic ("tf2") asks nothing a section can be shown to answer.
        assert_eq!(
            for_excerpts(
                &ExcerptSignals {
                    topic_only: true,
                    ..s
                },
                &cut
            ),
            Confidence::Medium
        );
        assert_eq!(
            for_excerpts(
                &ExcerptSignals {
                    from_top: false,
                    ..s
                },
                &cut
            ),
            Confidence::Medium
        );
        assert_eq!(
            for_excerpts(&ExcerptSignals { quoted: false, ..s }, &cut),
            Confidence::Low
        );
        assert_eq!(
            for_excerpts(&ExcerptSignals { margin: 0.0, ..s }, &cut),
            Confidence::Low
        );
        // Cut-offs that need the rankings to agree: a disagreement is "medium" at best.
        let agreeing = ExcerptCutoffs {
            high_agree: true,
            ..cut
        };
        assert_eq!(for_excerpts(&s, &agreeing), Confidence::High);
        assert_eq!(
            for_excerpts(&ExcerptSignals { agree: false, ..s }, &agreeing),
            Confidence::Medium
        );
    }
}

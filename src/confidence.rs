//! How sure the widget is of an answer: from retrieval scores (against the index threshold) and citation coverage.

use serde::{Deserialize, Serialize};

/// Shown as a small badge under each answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    High,
    Medium,
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

/// Grades an answer. `scores` are the relevance scores of the sources given (the signal the index's
/// refusal threshold applies to; sources are in ranking order, which is not relevance order),
/// `threshold` that threshold, `coverage` the share of answer paragraphs carrying a valid citation
/// (`None` when citations are off, so only retrieval counts).
pub fn assess(scores: &[f32], threshold: f32, coverage: Option<f32>) -> Confidence {
    let top = scores
        .iter()
        .copied()
        .filter(|s| s.is_finite())
        .fold(f32::NEG_INFINITY, f32::max);
    if !top.is_finite() {
        return Confidence::Low;
    }
    // Margin over the threshold; a non-positive threshold falls back to absolute scores.
    let margin = if threshold > 0.0 {
        top / threshold
    } else {
        1.0 + top.max(0.0)
    };
    let support = scores
        .iter()
        .filter(|s| s.is_finite() && **s >= threshold)
        .count();
    let cov = coverage.unwrap_or(1.0);
    // Relevance is cosine + weighted term coverage (threshold ≈ 0.77): a clear answer sits ~30 %
    // above the threshold, a borderline one within ~8 %.
    if margin < 1.08 || cov < 0.3 {
        Confidence::Low
    } else if margin >= 1.3 && support >= 2 && cov >= 0.6 {
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
            assess(&[1.05, 1.0], 1.0, Some(1.0)),
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
}

//! The numbered sources under an answer (or the nearest sections under a refusal); snippets are
//! rendered as safe Markdown, so a table stays a table.

use leptos::prelude::*;

use super::state::use_ui;
use crate::citations;
use crate::markdown;
use crate::session::{Exchange, Mode};
use crate::source::{distinct_labels, SourceRef};

/// One line of the list: its number, the label readers see, the source.
type Listed = (usize, String, SourceRef);

/// The sources an answer lists: the ones its text cites, numbered as cited; every source the
/// answer was drawn from when it cites none (a model answering with citations turned off, or one
/// that ignored them), so an answer is never left without its sources. `answer: None` (a
/// refusal) lists them all. Labels are told apart over the whole list ([`distinct_labels`]), so
/// a citation's tooltip and its line agree.
fn listed_sources(answer: Option<&str>, sources: &[SourceRef]) -> Vec<Listed> {
    let labels = distinct_labels(sources);
    let line = |n: usize| -> Option<Listed> {
        let i = n.wrapping_sub(1);
        Some((n, labels.get(i)?.clone(), sources.get(i)?.clone()))
    };
    let cited: Vec<Listed> = answer
        .map(|a| citations::cited(a, sources.len()))
        .unwrap_or_default()
        .into_iter()
        .filter_map(line)
        .collect();
    if !cited.is_empty() {
        return cited;
    }
    (1..=sources.len()).filter_map(line).collect()
}

/// The sources `e` cites (all of them for a refusal: the nearest sections).
#[component]
pub fn Sources(
    /// The exchange whose sources are listed (for a refusal, its nearest sections).
    e: Exchange,
) -> impl IntoView {
    let ui = use_ui();
    let (label, list) = match e.mode {
        Mode::Refusal => (ui.t("nearest"), listed_sources(None, &e.sources)),
        _ => (ui.t("sources"), listed_sources(Some(&e.answer), &e.sources)),
    };
    (!list.is_empty()).then(|| {
        view! {
            <ol class="bc-sources" aria-label=label>
                {list
                    .into_iter()
                    .map(|(n, name, s)| {
                        let href = markdown::safe_href(&s.url).unwrap_or_else(|| "#".into());
                        let snippet = super::md_view::render(
                            markdown::render(&markdown::drop_flat_tables(&s.excerpt), 0),
                            &[],
                        );
                        view! {
                            <li value=n.to_string()>
                                <a href=href>{name}</a>
                                <div class="bc-snippet">{snippet}</div>
                            </li>
                        }
                    })
                    .collect::<Vec<_>>()}
            </ol>
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(n: usize) -> SourceRef {
        SourceRef {
            chapter: "Joints".into(),
            section: None,
            parent: None,
            url: format!("/docs/p{n}"),
            excerpt: String::new(),
            score: 0.5,
        }
    }

    #[test]
    fn cited_sources_are_listed_with_their_numbers() {
        let sources: Vec<SourceRef> = (1..=3).map(source).collect();
        let listed = listed_sources(Some("Joints move [3], see also [1]."), &sources);
        let numbers: Vec<usize> = listed.iter().map(|(n, _, _)| *n).collect();
        assert_eq!(numbers, vec![1, 3]);
        assert_eq!(listed[1].2.url, "/docs/p3");
    }

    #[test]
    fn an_answer_citing_nothing_still_lists_its_sources() {
        let sources: Vec<SourceRef> = (1..=3).map(source).collect();
        for answer in ["A joint connects two links.", "Out of range [9] only."] {
            let listed = listed_sources(Some(answer), &sources);
            assert_eq!(listed.len(), 3, "{answer}");
            assert_eq!(listed[0].0, 1);
        }
        assert!(listed_sources(Some("text"), &[]).is_empty());
        assert_eq!(listed_sources(None, &sources).len(), 3);
    }

    #[test]
    fn two_sources_with_one_label_are_told_apart_by_the_heading_above() {
        let code = |n: usize, parent: &str| SourceRef {
            section: Some("Starter Code".into()),
            parent: Some(parent.into()),
            ..source(n)
        };
        let sources = vec![code(1, "Exercise 1"), code(2, "Exercise 2"), source(3)];
        // Only [2] is cited, but its label is told apart from [1]'s, as its tooltip is.
        let listed = listed_sources(Some("Start from this [2]."), &sources);
        assert_eq!(listed.len(), 1);
        assert_eq!(listed[0].1, "Joints › Exercise 2 › Starter Code");
    }
}

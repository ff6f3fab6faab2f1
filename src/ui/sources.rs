//! The numbered sources under an answer (or the nearest sections under a refusal); snippets are
//! rendered as safe Markdown, so a table stays a table.

use leptos::prelude::*;

use super::state::use_ui;
use crate::citations;
use crate::markdown;
use crate::session::{Exchange, Mode};
use crate::source::SourceRef;

/// The sources an answer lists: the ones its text cites, numbered as cited; every source the
/// answer was drawn from when it cites none (a model answering with citations turned off, or one
/// that ignored them), so an answer is never left without its sources.
fn listed_sources(answer: &str, sources: &[SourceRef]) -> Vec<(usize, SourceRef)> {
    let cited: Vec<(usize, SourceRef)> = citations::cited(answer, sources.len())
        .into_iter()
        .filter_map(|n| sources.get(n.wrapping_sub(1)).cloned().map(|s| (n, s)))
        .collect();
    if !cited.is_empty() {
        return cited;
    }
    sources
        .iter()
        .cloned()
        .enumerate()
        .map(|(i, s)| (i + 1, s))
        .collect()
}

/// The sources `e` cites (all of them for a refusal: the nearest sections).
#[component]
pub fn Sources(
    /// The exchange whose sources are listed (for a refusal, its nearest sections).
    e: Exchange,
) -> impl IntoView {
    let ui = use_ui();
    let (label, list): (String, Vec<(usize, SourceRef)>) = match e.mode {
        Mode::Refusal => (
            ui.t("nearest"),
            e.sources
                .iter()
                .cloned()
                .enumerate()
                .map(|(i, s)| (i + 1, s))
                .collect(),
        ),
        _ => (ui.t("sources"), listed_sources(&e.answer, &e.sources)),
    };
    (!list.is_empty()).then(|| {
        view! {
            <ol class="bc-sources" aria-label=label>
                {list
                    .into_iter()
                    .map(|(n, s)| {
                        let href = markdown::safe_href(&s.url).unwrap_or_else(|| "#".into());
                        let snippet = super::md_view::render(
                            markdown::render(&markdown::drop_flat_tables(&s.excerpt), 0),
                            &[],
                        );
                        view! {
                            <li value=n.to_string()>
                                <a href=href>{s.label()}</a>
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
            url: format!("/docs/p{n}"),
            excerpt: String::new(),
            score: 0.5,
        }
    }

    #[test]
    fn cited_sources_are_listed_with_their_numbers() {
        let sources: Vec<SourceRef> = (1..=3).map(source).collect();
        let listed = listed_sources("Joints move [3], see also [1].", &sources);
        let numbers: Vec<usize> = listed.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, vec![1, 3]);
        assert_eq!(listed[1].1.url, "/docs/p3");
    }

    #[test]
    fn an_answer_citing_nothing_still_lists_its_sources() {
        let sources: Vec<SourceRef> = (1..=3).map(source).collect();
        for answer in ["A joint connects two links.", "Out of range [9] only."] {
            let listed = listed_sources(answer, &sources);
            assert_eq!(listed.len(), 3, "{answer}");
            assert_eq!(listed[0].0, 1);
        }
        assert!(listed_sources("text", &[]).is_empty());
    }
}

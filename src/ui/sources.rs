//! The numbered sources under an answer (or the nearest sections under a refusal); snippets are
//! rendered as safe Markdown, so a table stays a table.

use leptos::prelude::*;

use super::state::use_ui;
use crate::citations;
use crate::markdown;
use crate::session::{Exchange, Mode};
use crate::source::SourceRef;

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
        _ => (
            ui.t("sources"),
            citations::cited(&e.answer, e.sources.len())
                .into_iter()
                .filter_map(|n| e.sources.get(n.wrapping_sub(1)).cloned().map(|s| (n, s)))
                .collect(),
        ),
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

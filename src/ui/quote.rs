//! A quoted selection, compact: about three lines with "Show more", code kept as code (the quote is
//! Markdown: a code selection arrives fenced).

use leptos::prelude::*;

use super::state::use_ui;
use crate::markdown;

/// Quotes longer than this (characters) or with more lines start collapsed.
const COMPACT_CHARS: usize = 180;
const COMPACT_LINES: usize = 3;

/// A compact quote of `text`; `label` is its accessible name.
#[component]
pub fn Quote(
    /// The quoted text; long quotes start collapsed with a toggle to expand them.
    text: String,
    /// The quote's accessible name (`aria-label`); none when omitted.
    #[prop(optional)]
    label: Option<String>,
) -> impl IntoView {
    let ui = use_ui();
    let long = text.chars().count() > COMPACT_CHARS || text.lines().count() > COMPACT_LINES + 2;
    let expanded = RwSignal::new(false);
    // Prose is quoted as typed text; only a fenced code selection is rendered (as code).
    let body = if text.starts_with("```") {
        super::md_view::render(markdown::render(&text, 0), &[]).into_any()
    } else {
        view! { <p>{text.clone()}</p> }.into_any()
    };
    view! {
        <div class="bc-quote-wrap">
            <blockquote
                class="bc-quote"
                aria-label=label
                data-collapsed=move || if long && !expanded.get() { "true" } else { "false" }
            >
                {body}
            </blockquote>
            <Show when=move || long>
                <button
                    type="button"
                    class="bc-link"
                    aria-expanded=move || if expanded.get() { "true" } else { "false" }
                    on:click=move |_| expanded.update(|v| *v = !*v)
                >
                    {move || if expanded.get() { ui.t("showLess") } else { ui.t("showMore") }}
                </button>
            </Show>
        </div>
    }
}

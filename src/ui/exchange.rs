//! One question and its answer: the question (with its compact quote), the answer as safe
//! Markdown, its status or error, sources, confidence, actions (Copy answer, Regenerate, thumbs)
//! and follow-up suggestions.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::composer::submit_suggestion;
use super::quote::Quote;
use super::sources::Sources;
use super::state::{use_ui, Ui};
use crate::confidence::Confidence;
use crate::controller::export::answer_markdown;
use crate::markdown;
use crate::session::{Exchange, Mode, Rating, Status};

/// Answers exchange `id` again (Retry, Regenerate).
pub fn rerun(ui: Ui, id: u64) {
    let conv = ui.conv();
    spawn_local(async move {
        conv.run(id).await;
    });
}

fn status_view(ui: Ui, id: u64, e: &Exchange) -> AnyView {
    match &e.status {
        Status::Pending => view! {
            <p class="bc-status" role="status"><span class="bc-spin"></span>{ui.t("searching")}</p>
        }
        .into_any(),
        Status::Streaming if e.answer.is_empty() => view! {
            <p class="bc-status" role="status"><span class="bc-spin"></span>{ui.t("writing")}</p>
        }
        .into_any(),
        Status::Streaming | Status::Complete => ().into_any(),
        Status::Incomplete(m) => view! { <p class="bc-error">{m.clone()}</p> }.into_any(),
        Status::Failed { message, retry } => {
            let retry = *retry;
            view! {
                <p class="bc-error" role="alert">{message.clone()}</p>
                <Show when=move || retry>
                    <button
                        type="button"
                        class="bc-btn"
                        disabled=move || ui.busy().is_some()
                        on:click=move |_| rerun(ui, id)
                    >
                        {ui.t("retry")}
                    </button>
                </Show>
            }
            .into_any()
        }
    }
}

fn meta_view(ui: Ui, e: &Exchange) -> AnyView {
    let id = e.id;
    if !matches!(e.status, Status::Complete | Status::Incomplete(_)) {
        return ().into_any();
    }
    let conf = e.confidence.map(|c| {
        let cls = if c == Confidence::Low {
            "bc-badge bc-badge-low"
        } else {
            "bc-badge"
        };
        view! { <span class=cls>{c.label()}</span> }
    });
    let mode = (e.mode == Mode::Extractive)
        .then(|| view! { <span class="bc-badge">{ui.t("excerpts")}</span> });
    let rating = e.rating;
    let rate = e.mode != Mode::Refusal;
    let copy_md = answer_markdown(e, &super::web::origin());
    let copied = RwSignal::new(false);
    view! {
        {conf}
        {mode}
        <button
            type="button"
            class="bc-btn"
            on:click=move |_| {
                let text = copy_md.clone();
                spawn_local(async move {
                    if super::web::copy_text(&text).await {
                        copied.set(true);
                    }
                });
            }
        >
            {move || if copied.get() { ui.t("copied") } else { ui.t("copyAnswer") }}
        </button>
        <button
            type="button"
            class="bc-btn"
            disabled=move || ui.busy().is_some()
            on:click=move |_| rerun(ui, id)
        >
            {ui.t("regenerate")}
        </button>
        <Show when=move || rate>
            <button
                type="button"
                class="bc-icon"
                aria-label=ui.t("helpful")
                aria-pressed=if rating == Some(Rating::Up) { "true" } else { "false" }
                on:click=move |_| ui.conv().rate(id, Rating::Up)
            >
                "▲"
            </button>
            <button
                type="button"
                class="bc-icon"
                aria-label=ui.t("notHelpful")
                aria-pressed=if rating == Some(Rating::Down) { "true" } else { "false" }
                on:click=move |_| ui.conv().rate(id, Rating::Down)
            >
                "▼"
            </button>
        </Show>
    }
    .into_any()
}

fn suggestions_view(ui: Ui, e: &Exchange) -> AnyView {
    if e.status != Status::Complete || e.suggestions.is_empty() {
        return ().into_any();
    }
    view! {
        <div class="bc-sugg" role="group" aria-label=ui.t("suggestions")>
            {e
                .suggestions
                .iter()
                .cloned()
                .map(|s| {
                    let label = s.question.clone();
                    view! {
                        <button type="button" on:click=move |_| submit_suggestion(ui, s.clone())>
                            {label}
                        </button>
                    }
                })
                .collect::<Vec<_>>()}
        </div>
    }
    .into_any()
}

/// One exchange of the conversation; redraws only when that exchange changed.
#[component]
pub fn ExchangeView(
    /// The [`Exchange::id`] of the exchange to show.
    id: u64,
) -> impl IntoView {
    let ui = use_ui();
    let ex = Memo::new(move |_| ui.exchange(id));
    // The question and its quote never change while the answer streams: a memo of their own.
    let asked = Memo::new(move |_| {
        ex.with(|e| {
            e.as_ref()
                .map(|e| (e.question.clone(), e.selection.clone()))
        })
    });
    let question = move || {
        ui.md_rev.track();
        asked.get().map(|(q, sel)| {
            let quote = sel.map(|s| view! { <Quote text=s /> });
            view! {
                {quote}
                <span>{q}</span>
            }
        })
    };
    let answer = move || {
        ui.md_rev.track();
        ex.with(|e| {
            e.as_ref().map(|e| {
                let n = if e.mode == Mode::Refusal {
                    0
                } else {
                    e.sources.len()
                };
                let body = super::md_view::render(markdown::render(&e.answer, n), &e.sources);
                view! {
                    {body}
                    {status_view(ui, id, e)}
                    <Sources e=e.clone() />
                    <div class="bc-meta">{meta_view(ui, e)}</div>
                    {suggestions_view(ui, e)}
                }
            })
        })
    };
    let mode = move || {
        ex.with(|e| {
            e.as_ref()
                .map(|e| match e.mode {
                    Mode::Llm => "llm",
                    Mode::Extractive => "extractive",
                    Mode::Refusal => "refusal",
                })
                .unwrap_or("")
        })
    };
    view! {
        <div class="bc-turn" data-id=id.to_string()>
            <div class="bc-q">{question}</div>
            <div class="bc-a" data-mode=mode>{answer}</div>
        </div>
    }
}

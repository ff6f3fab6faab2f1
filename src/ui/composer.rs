//! The question box: the quoted selection (compact), the textarea with its counter and error,
//! Send / Stop.

use leptos::prelude::*;
use leptos::task::spawn_local;

use super::quote::Quote;
use super::state::{use_ui, Ui};
use crate::suggest::Suggestion;
use crate::validate::{counter, counter_warns};

/// Sends the typed question (or "Explain this" for a quoted selection alone).
pub fn submit(ui: Ui) {
    send(ui, None);
}

/// Sends a follow-up the reader clicked, as if typed, to be answered from the section that
/// offered it.
pub fn submit_suggestion(ui: Ui, s: Suggestion) {
    ui.input.set(s.question.clone());
    send(ui, Some(s));
}

fn send(ui: Ui, clicked: Option<Suggestion>) {
    let raw = ui.input.get_untracked();
    let sel = ui.pending_sel.get_untracked();
    let conv = ui.conv();
    let asked = match &clicked {
        Some(s) => conv.ask_suggestion(s, sel),
        None => conv.ask(&raw, sel),
    };
    match asked {
        Ok(id) => {
            ui.input_error.set(None);
            ui.input.set(String::new());
            ui.pending_sel.set(None);
            ui.follow.set(true);
            spawn_local(async move {
                let failed = conv.run(id).await;
                // On failure the typed question comes back (for Retry or editing).
                if failed && !raw.trim().is_empty() && ui.input.get_untracked().is_empty() {
                    ui.input.set(raw);
                }
            });
        }
        Err(e) => {
            ui.input_error.set(Some(e.to_string()));
            if let Some(t) = ui.textarea.get_untracked() {
                let _ = t.focus();
            }
        }
    }
}

/// The form at the bottom of the panel.
#[component]
pub fn Composer() -> impl IntoView {
    let ui = use_ui();
    let quote = move || {
        ui.pending_sel.get().map(|s| {
            let notice = s.notice();
            view! {
                <Quote text=s.text.clone() label=ui.t("selectedText") />
                {notice.map(|n| view! { <p class="bc-status">{n}</p> })}
                <button type="button" class="bc-link" on:click=move |_| ui.pending_sel.set(None)>
                    {ui.t("removeQuote")}
                </button>
            }
        })
    };
    view! {
        <form
            class="bc-form"
            on:submit=move |e: web_sys::SubmitEvent| {
                e.prevent_default();
                submit(ui);
            }
        >
            {quote}
            <textarea
                node_ref=ui.textarea
                aria-label=ui.t("question")
                aria-describedby="bc-counter bc-input-error"
                aria-invalid=move || if ui.input_error.get().is_some() { "true" } else { "false" }
                placeholder=move || {
                    if ui.pending_sel.get().is_some() { ui.t("placeholderSelection") } else { ui.t("placeholder") }
                }
                prop:value=move || ui.input.get()
                on:input=move |e| {
                    ui.input.set(event_target_value(&e));
                    ui.input_error.set(None);
                }
                on:keydown=move |e: web_sys::KeyboardEvent| {
                    if e.key() == "Enter" && !e.shift_key() && !e.is_composing() {
                        e.prevent_default();
                        submit(ui);
                    }
                }
            ></textarea>
            <p id="bc-input-error" class="bc-error" role="alert">{move || ui.input_error.get()}</p>
            <div class="bc-row">
                <span
                    id="bc-counter"
                    class=move || {
                        if ui.input.with(|i| counter_warns(i)) { "bc-counter bc-counter-warn" } else { "bc-counter" }
                    }
                >
                    {move || ui.input.with(|i| counter(i))}
                </span>
                <Show
                    when=move || ui.busy().is_some()
                    fallback=move || view! { <button type="submit" class="bc-btn bc-btn-primary">{ui.t("send")}</button> }
                >
                    <button type="button" class="bc-btn" on:click=move |_| ui.conv().stop()>
                        {ui.t("stop")}
                    </button>
                </Show>
            </div>
        </form>
    }
}

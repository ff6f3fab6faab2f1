//! Chat scrolling: a new question and the streamed answer keep the newest line in view, unless the
//! reader scrolled up to read (then a "Jump to latest" button brings them back).

use std::time::Duration;

use leptos::prelude::*;

use super::state::{use_ui, Ui};

/// How close to the end (px) still counts as "at the end".
const NEAR_END_PX: f64 = 48.0;

fn at_end(el: &web_sys::Element) -> bool {
    f64::from(el.scroll_height()) - f64::from(el.scroll_top()) - f64::from(el.client_height())
        <= NEAR_END_PX
}

/// Scrolls the conversation to its end.
pub fn to_end(ui: Ui) {
    if let Some(log) = ui.log.get_untracked() {
        log.set_scroll_top(log.scroll_height());
    }
}

/// Scrolls to the end after the pending render (and once more when late content, e.g. the
/// restored conversation, has laid out).
pub fn to_end_soon(ui: Ui) {
    for ms in [0, 60] {
        set_timeout(
            move || {
                if ui.follow.get_untracked() {
                    to_end(ui);
                }
            },
            Duration::from_millis(ms),
        );
    }
}

/// The reader scrolled: follow the end again only when they are back at it.
pub fn on_scroll(ui: Ui) {
    if let Some(log) = ui.log.get_untracked() {
        let end = at_end(&log);
        if ui.follow.get_untracked() != end {
            ui.follow.set(end);
        }
    }
}

/// Keeps the newest line in view while answers change, and jumps to a new question.
pub fn follow_effect(ui: Ui) {
    let mut last_count = 0usize;
    Effect::new(move |_| {
        let count = ui.ids().len();
        ui.ex_rev.track();
        if count > last_count {
            // A new question: always bring it into view.
            ui.follow.set(true);
        }
        last_count = count;
        if ui.follow.get_untracked() {
            to_end_soon(ui);
        }
    });
}

/// The "Jump to latest" button, shown while the reader is scrolled away from the end.
#[component]
pub fn JumpToLatest() -> impl IntoView {
    let ui = use_ui();
    view! {
        <Show when=move || !ui.follow.get() && !ui.ids().is_empty()>
            <button
                type="button"
                class="bc-btn bc-jump"
                on:click=move |_| {
                    ui.follow.set(true);
                    to_end(ui);
                }
            >
                {ui.t("jumpLatest")}
            </button>
        </Show>
    }
}

//! "Ask about this": a button that follows a text selection in the article and opens the panel
//! with the selection quoted (code selections kept as code).

use std::time::Duration;

use leptos::ev;
use leptos::prelude::*;

use super::focus::open_panel;
use super::state::use_ui;
use super::web;
use crate::selection;

/// The floating button (rendered only while there is a selection in the article).
#[component]
pub fn SelectionButton() -> impl IntoView {
    let ui = use_ui();
    let track = move || {
        ui.ask_pos.set(web::article_selection().map(|s| {
            // A selection taller than the window ends below it: keep the button on screen.
            let h = web_sys::window()
                .and_then(|w| w.inner_height().ok())
                .and_then(|v| v.as_f64())
                .unwrap_or(800.0);
            let y = (s.rect.bottom() + 6.0).clamp(4.0, (h - 44.0).max(4.0));
            (s.rect.left() + s.rect.width() / 2.0, y)
        }));
    };
    let _ = window_event_listener(ev::mouseup, move |_| {
        set_timeout(track, Duration::from_millis(0))
    });
    let _ = window_event_listener(ev::keyup, move |_| track());

    let ask_about = move |_| {
        let captured = web::article_selection().and_then(|s| {
            if s.code {
                selection::capture_code(&s.text)
            } else {
                selection::capture(&s.text)
            }
        });
        ui.ask_pos.set(None);
        if let Some(s) = captured {
            ui.pending_sel.set(Some(s));
        }
        open_panel(ui);
    };
    move || {
        ui.ask_pos.get().map(|(x, y)| {
            view! {
                <button
                    class="bc-askthis"
                    type="button"
                    style=format!("left:{}px;top:{}px", (x - 50.0).max(4.0), y)
                    on:mousedown=|e: web_sys::MouseEvent| e.prevent_default()
                    on:click=ask_about
                >
                    {ui.t("askThis")}
                </button>
            }
        })
    }
}

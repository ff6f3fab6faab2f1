//! The widget's root: creates the shared state, provides it as context, and lays out the bubble,
//! the "Ask about this" button and the panel (header, conversation, question box). The behaviour
//! lives in `crate::controller`; each part of the panel is its own component.

use leptos::ev;
use leptos::prelude::*;

use super::composer::Composer;
use super::exchange::ExchangeView;
use super::focus::{close_panel, on_panel_click, on_panel_keydown, open_panel, OPEN_KEY};
use super::scroll::{follow_effect, on_scroll, JumpToLatest};
use super::selection_button::SelectionButton;
use super::settings::Settings;
use super::state::Ui;
use super::web;
use crate::controller::IndexState;

pub use crate::controller::{Config, Env, IndexSource};

/// The keyboard shortcut that opens the panel (Docusaurus search owns Ctrl/Cmd+K and "/").
pub const SHORTCUT: &str = "Alt+Shift+A";

/// The whole widget.
#[component]
pub fn App(
    /// The book's configuration, transport and index source the conversation runs on.
    env: Env,
    /// Open the panel at once (otherwise it opens only if it was open before the page loaded).
    #[prop(optional)]
    start_open: bool,
) -> impl IntoView {
    let theme = RwSignal::new(super::theme::current());
    super::theme::observe(theme);
    let (dir, lang) = (
        if env.config.rtl() { "rtl" } else { "ltr" },
        env.config.locale.clone().unwrap_or_else(|| "en".into()),
    );
    let ui = Ui::new(env);
    provide_context(ui);
    if start_open || web::storage_get(OPEN_KEY).as_deref() == Some("1") {
        set_timeout(move || open_panel(ui), std::time::Duration::from_millis(0));
    }
    let _ = window_event_listener(ev::keydown, move |e: web_sys::KeyboardEvent| {
        if e.alt_key() && e.shift_key() && !e.ctrl_key() && !e.meta_key() && e.code() == "KeyA" {
            e.prevent_default();
            if ui.open.get_untracked() {
                close_panel(ui);
            } else {
                open_panel(ui);
            }
        }
    });
    follow_effect(ui);

    let notice = move || {
        ui.state_rev.track();
        ui.conv().notice()
    };
    let index_msg = move || {
        ui.state_rev.track();
        match ui.conv().index_state() {
            IndexState::Loading => Some(ui.t("loadingIndex")),
            IndexState::Failed(e) => Some(e.to_string()),
            IndexState::Idle | IndexState::Ready => None,
        }
    };
    let bubble_label = ui.t("bubble");

    view! {
        <div class="bc-root" data-theme=move || theme.get() dir=dir lang=lang>
            <button
                class="bc-bubble"
                type="button"
                node_ref=ui.bubble
                aria-label=bubble_label.clone()
                aria-haspopup="dialog"
                aria-expanded=move || if ui.open.get() { "true" } else { "false" }
                aria-keyshortcuts=SHORTCUT
                title=format!("{bubble_label} ({SHORTCUT})")
                on:click=move |_| if ui.open.get_untracked() { close_panel(ui) } else { open_panel(ui) }
            >
                <svg aria-hidden="true" width="26" height="26" viewBox="0 0 24 24" fill="currentColor"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"></path></svg>
            </button>
            <SelectionButton />
            <Show when=move || ui.open.get()>
                <div
                    class="bc-panel"
                    role="dialog"
                    aria-modal="true"
                    aria-labelledby="bc-title"
                    node_ref=ui.panel
                    on:keydown=move |e| on_panel_keydown(ui, e)
                    on:click=move |e| on_panel_click(ui, e)
                >
                    <div class="bc-head">
                        <h2 id="bc-title">{ui.t("title")}</h2>
                        <Settings />
                        <button
                            type="button"
                            class="bc-btn"
                            disabled=move || ui.busy().is_some()
                            on:click=move |_| {
                                ui.conv().new_chat();
                                ui.input_error.set(None);
                                super::focus::focus_input(ui);
                            }
                        >
                            {ui.t("newChat")}
                        </button>
                        <button type="button" class="bc-icon" aria-label=ui.t("close") on:click=move |_| close_panel(ui)>
                            "✕"
                        </button>
                    </div>
                    {move || notice().map(|n| view! { <p class="bc-notice" role="status">{n}</p> })}
                    {move || index_msg().map(|m| view! { <p class="bc-notice" role="status">{m}</p> })}
                    <div
                        class="bc-log"
                        role="log"
                        aria-live="polite"
                        aria-relevant="additions text"
                        aria-label=ui.t("conversation")
                        node_ref=ui.log
                        on:scroll=move |_| on_scroll(ui)
                    >
                        <Show when=move || ui.ids().is_empty()>
                            <p class="bc-empty">{ui.t("empty")}</p>
                        </Show>
                        <For each=move || ui.ids() key=|id| *id let:id>
                            <ExchangeView id=id />
                        </For>
                    </div>
                    <JumpToLatest />
                    <Composer />
                </div>
            </Show>
        </div>
    }
}

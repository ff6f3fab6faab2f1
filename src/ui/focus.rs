//! Opening and closing the panel, where focus goes, the Tab trap inside the dialog, Escape, and
//! closing on a citation click on phones.

use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::JsCast;

use super::state::Ui;
use super::web;

/// localStorage key remembering whether the panel was open (it reopens after a reload).
pub const OPEN_KEY: &str = "book-chat.open";

/// Focuses the question box after the current render.
pub fn focus_input(ui: Ui) {
    set_timeout(
        move || {
            if let Some(t) = ui.textarea.get_untracked() {
                let _ = t.focus();
            }
        },
        Duration::from_millis(0),
    );
}

/// Opens the panel (focus to the question box) and starts loading the index and probing the proxy.
pub fn open_panel(ui: Ui) {
    if ui.open.get_untracked() {
        focus_input(ui);
        return;
    }
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    ui.return_focus.set_value(active);
    // A reopened conversation shows its end.
    ui.follow.set(true);
    ui.open.set(true);
    web::storage_set(OPEN_KEY, "1");
    focus_input(ui);
    super::scroll::to_end_soon(ui);
    ui.load_markdown();
    ui.conv().prefetch();
}

/// Closes the panel; focus returns where it was (or to the bubble).
pub fn close_panel(ui: Ui) {
    ui.open.set(false);
    ui.settings_open.set(false);
    web::storage_set(OPEN_KEY, "0");
    let back = ui.return_focus.get_value();
    set_timeout(
        move || {
            let host_or_none = back.filter(|b| b.shadow_root().is_none() && b.is_connected());
            match host_or_none {
                Some(el) => {
                    let _ = el.focus();
                }
                None => {
                    if let Some(b) = ui.bubble.get_untracked() {
                        let _ = b.focus();
                    }
                }
            }
        },
        Duration::from_millis(0),
    );
}

fn focusables(panel: &web_sys::HtmlElement) -> Vec<web_sys::HtmlElement> {
    let mut out = Vec::new();
    if let Ok(list) = panel.query_selector_all(
        "button:not([disabled]), a[href], textarea, select, input, [tabindex]:not([tabindex='-1'])",
    ) {
        for i in 0..list.length() {
            if let Some(el) = list
                .item(i)
                .and_then(|n| n.dyn_into::<web_sys::HtmlElement>().ok())
            {
                out.push(el);
            }
        }
    }
    out
}

fn active_in(panel: &web_sys::HtmlElement) -> Option<web_sys::Element> {
    let root = panel.get_root_node();
    match root.dyn_ref::<web_sys::ShadowRoot>() {
        Some(sr) => sr.active_element(),
        None => web_sys::window()?.document()?.active_element(),
    }
}

/// On a phone the panel covers the page: following a citation closes it, so the reader sees the
/// section it points to (the conversation is kept for the next open).
pub fn on_panel_click(ui: Ui, ev: web_sys::MouseEvent) {
    let narrow = web_sys::window()
        .and_then(|w| w.inner_width().ok())
        .and_then(|w| w.as_f64())
        .is_some_and(|w| w <= 600.0);
    let on_link = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .and_then(|el| el.closest("a[href]").ok().flatten())
        .is_some();
    if narrow && on_link {
        ui.open.set(false);
        web::storage_set(OPEN_KEY, "0");
    }
}

/// Escape closes (the settings first, when open); Tab and Shift+Tab stay inside the dialog.
pub fn on_panel_keydown(ui: Ui, ev: web_sys::KeyboardEvent) {
    if ev.key() == "Escape" {
        ev.prevent_default();
        if ui.settings_open.get_untracked() {
            ui.settings_open.set(false);
        } else {
            close_panel(ui);
        }
        return;
    }
    if ev.key() != "Tab" {
        return;
    }
    let Some(panel) = ui.panel.get_untracked() else {
        return;
    };
    let items = focusables(&panel);
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return;
    };
    let active = active_in(&panel);
    let is = |el: &web_sys::HtmlElement| active.as_ref().is_some_and(|a| a.is_same_node(Some(el)));
    let inside = active.as_ref().is_some_and(|a| panel.contains(Some(a)));
    if ev.shift_key() && (is(first) || !inside) {
        ev.prevent_default();
        let _ = last.focus();
    } else if !ev.shift_key() && (is(last) || !inside) {
        ev.prevent_default();
        let _ = first.focus();
    }
}

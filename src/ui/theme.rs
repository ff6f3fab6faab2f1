//! Mirrors the book's `html[data-theme]` (light/dark) onto the widget.

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

/// The page's current theme ("light" or "dark").
pub fn current() -> String {
    web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .and_then(|e| e.get_attribute("data-theme"))
        .filter(|t| t == "dark")
        .unwrap_or_else(|| "light".to_string())
}

/// Keeps `theme` in sync with `html[data-theme]` for the page's lifetime.
pub fn observe(theme: RwSignal<String>) {
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    else {
        return;
    };
    let cb = Closure::<dyn FnMut()>::new(move || theme.set(current()));
    if let Ok(obs) = web_sys::MutationObserver::new(cb.as_ref().unchecked_ref()) {
        let init = web_sys::MutationObserverInit::new();
        init.set_attributes(true);
        init.set_attribute_filter(&js_sys::Array::of1(&"data-theme".into()));
        let _ = obs.observe_with_options(&root, &init);
    }
    // The observer lives as long as the page.
    cb.forget();
}

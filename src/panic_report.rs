//! Never silently dead: a Rust panic in the widget (the wasm aborts with `unreachable` right after)
//! is written to the console with its message and location, and announced with a
//! [`DEAD_EVENT`] DOM event on `window`, on which widget-loader/loader.js replaces the dead bubble
//! with a "The assistant stopped; reload the page" notice.

use wasm_bindgen::prelude::*;

/// The event the loader listens for (`detail`: `{message, location}`); keep in sync with
/// widget-loader/loader.js.
pub const DEAD_EVENT: &str = "book-chat:dead";

/// Installs the panic hook; runs once when the module is instantiated (before any widget code).
#[wasm_bindgen(start)]
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".to_string());
        let location = info
            .location()
            .map(|l| format!("{}:{}:{}", l.file(), l.line(), l.column()))
            .unwrap_or_default();
        web_sys::console::error_1(&format!("book-chat panicked: {message} at {location}").into());
        mark_host_crashed();
        announce(&message, &location);
    }));
}

/// Marks the widget's host element `data-state="crashed"` (what tests and styles can see).
fn mark_host_crashed() {
    if let Some(host) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(crate::ui::HOST_ID))
    {
        let _ = host.set_attribute("data-state", "crashed");
    }
}

/// Dispatches [`DEAD_EVENT`]; every failure is ignored (the widget is dying anyway).
fn announce(message: &str, location: &str) {
    let Some(window) = web_sys::window() else {
        return;
    };
    let detail = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&detail, &"message".into(), &message.into());
    let _ = js_sys::Reflect::set(&detail, &"location".into(), &location.into());
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&detail);
    if let Ok(event) = web_sys::CustomEvent::new_with_event_init_dict(DEAD_EVENT, &init) {
        let _ = window.dispatch_event(&event);
    }
}

/// Test-only hook (the e2e "dead bubble" test calls it on the release build): panics on purpose
/// so the path above can be seen working end to end.
#[wasm_bindgen]
pub fn force_panic_for_tests() {
    panic!("panic forced by a test (force_panic_for_tests)");
}

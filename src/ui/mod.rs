//! The Leptos widget and its browser plumbing (wasm32): mounted into a shadow root so the book's CSS
//! and the widget's CSS stay apart.

pub mod app;
pub mod composer;
pub mod exchange;
pub mod focus;
pub mod md_view;
pub mod quote;
pub mod scroll;
pub mod selection_button;
pub mod settings;
pub mod sources;
pub mod state;
pub mod theme;
pub mod web;

use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub use app::{App, Config, Env, IndexSource};

/// The id of the element hosting the widget's shadow root.
pub const HOST_ID: &str = "book-chat-host";

/// Mounts the widget into a new shadow-rooted host at the end of `<body>`; returns the host.
/// Mounting twice returns the existing host.
pub fn mount(env: Env, start_open: bool) -> Result<web_sys::HtmlElement, JsValue> {
    let doc = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    if let Some(existing) = doc.get_element_by_id(HOST_ID) {
        return existing.dyn_into().map_err(|_| "bad host".into());
    }
    let host: web_sys::HtmlElement = doc.create_element("div")?.dyn_into()?;
    host.set_id(HOST_ID);
    doc.body().ok_or("no body")?.append_child(&host)?;
    let shadow =
        host.attach_shadow(&web_sys::ShadowRootInit::new(web_sys::ShadowRootMode::Open))?;
    let style = doc.create_element("style")?;
    style.set_text_content(Some(crate::style::CSS));
    shadow.append_child(&style)?;
    let container: web_sys::HtmlElement = doc.create_element("div")?.dyn_into()?;
    shadow.append_child(&container)?;
    leptos::mount::mount_to(
        container,
        move || view! { <App env=env start_open=start_open /> },
    )
    .forget();
    Ok(host)
}

/// Removes a mounted widget (tests).
pub fn unmount() {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(HOST_ID))
    {
        el.remove();
    }
}

/// Entry point for the loader: `mount_widget(config, openNow)`, config as an object or a JSON string.
#[wasm_bindgen]
pub fn mount_widget(config: JsValue, open_now: bool) -> Result<(), JsValue> {
    // The loader passes its config object as is; a JSON string is accepted too.
    let config: Config = match config.as_string() {
        Some(json) => crate::json::from_str(&json),
        None => serde_wasm_bindgen::from_value(config).map_err(|e| e.to_string()),
    }
    .map_err(|e| JsValue::from_str(&format!("book-chat config: {e}")))?;
    let env = Env {
        config,
        transport: Rc::new(web::WebTransport::default()),
        index: IndexSource::Download,
    };
    mount(env, open_now).map(|_| ())
}

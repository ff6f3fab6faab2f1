//! The state the panel's components share, provided once through Leptos context. Every signal is
//! created in the `App` component (which lives as long as the page), never in a component that
//! can unmount: a signal owned by the panel was disposed when Escape closed it, and reopening the
//! panel read it (the issue 12 crash).

use std::rc::Rc;

use leptos::html;
use leptos::prelude::*;

use crate::controller::{Change, Conversation, Host};
use crate::i18n::Strings;
use crate::selection::Selection;
use crate::session::Exchange;
use crate::transport::LocalFuture;

/// Shared handles of one mounted widget (all `Copy`).
#[derive(Clone, Copy)]
pub struct Ui {
    conv: StoredValue<Rc<Conversation>, LocalStorage>,
    strings: StoredValue<Strings>,
    /// Bumped when exchanges are added or removed.
    pub list_rev: RwSignal<u64>,
    /// Bumped when any exchange's content changes.
    pub ex_rev: RwSignal<u64>,
    /// Bumped when busy / index / notice / preferences change.
    pub state_rev: RwSignal<u64>,
    /// Bumped when the Markdown parser arrives: text shown plain until then is drawn again, formatted.
    pub md_rev: RwSignal<u64>,
    /// The Markdown module's URL, taken (`None`) once its import has started.
    markdown_url: StoredValue<Option<String>>,
    /// Whether the chat panel is open (the bubble shows when it is closed).
    pub open: RwSignal<bool>,
    /// The composer's text, bound to the textarea.
    pub input: RwSignal<String>,
    /// Why the last question was rejected, shown under the composer; `None` when the input is fine.
    pub input_error: RwSignal<Option<String>>,
    /// Page text the reader chose to ask about ("Ask about this"), attached to the next question.
    pub pending_sel: RwSignal<Option<Selection>>,
    /// Viewport position (x, y in CSS px) of the "Ask about this" button; `None` hides it.
    pub ask_pos: RwSignal<Option<(f64, f64)>>,
    /// Whether the conversation follows its newest line (false once the reader scrolled up).
    pub follow: RwSignal<bool>,
    /// Whether the settings popover is shown.
    pub settings_open: RwSignal<bool>,
    /// The element that had focus before the panel opened; focus goes back to it on close.
    pub return_focus: StoredValue<Option<web_sys::HtmlElement>, LocalStorage>,
    /// The composer's textarea, for focusing it.
    pub textarea: NodeRef<html::Textarea>,
    /// The floating button that opens the panel, focused when the panel closes with nothing to return to.
    pub bubble: NodeRef<html::Button>,
    /// The panel's root element (the focus trap's boundary).
    pub panel: NodeRef<html::Div>,
    /// The scrolling conversation log, for following the newest line.
    pub log: NodeRef<html::Div>,
}

/// The controller's view of the browser: it only bumps the revision signals.
struct WebHost {
    encoder_url: Option<String>,
    list_rev: RwSignal<u64>,
    ex_rev: RwSignal<u64>,
    state_rev: RwSignal<u64>,
}

impl Host for WebHost {
    fn now_ms(&self) -> f64 {
        super::web::now_ms()
    }
    fn new_session_id(&self) -> String {
        super::web::new_session_id()
    }
    fn page(&self, selection: Option<String>) -> crate::answer::PageContext {
        crate::answer::PageContext {
            url: super::web::page_url(),
            title: super::web::page_title(),
            section: super::web::nearest_heading(),
            selection,
        }
    }
    fn save(&self, json: &str) {
        super::web::storage_set(crate::session::STORAGE_KEY, json);
    }
    fn changed(&self, what: Change) {
        let bump = |s: RwSignal<u64>| s.update(|v| *v = v.wrapping_add(1));
        match what {
            Change::List => bump(self.list_rev),
            Change::Exchange(_) => bump(self.ex_rev),
            Change::State => bump(self.state_rev),
        }
    }
    fn spawn(&self, fut: LocalFuture<()>) {
        leptos::task::spawn_local(fut);
    }
    fn start_encoder(
        &self,
        retriever: Rc<dyn crate::retrieval::Retriever>,
        base: String,
        file: String,
    ) {
        if let Some(url) = self.encoder_url.clone() {
            super::web::start_encoder(url, retriever, base, file);
        }
    }
    fn inflate(&self, deflated: &[u8]) -> crate::retrieval::Inflated {
        super::web::inflate(deflated)
    }
}

impl Ui {
    /// Creates the state and the controller (restoring the stored session); call in `App`.
    pub fn new(env: crate::controller::Env) -> Self {
        let (list_rev, ex_rev, state_rev) = (RwSignal::new(0), RwSignal::new(0), RwSignal::new(0));
        let strings = Strings::new(&env.config.strings);
        let markdown_url = env.config.markdown_url.clone();
        let host = Rc::new(WebHost {
            encoder_url: env.config.encoder_url.clone(),
            list_rev,
            ex_rev,
            state_rev,
        });
        let stored = super::web::storage_get(crate::session::STORAGE_KEY);
        let conv = Conversation::new(env, host, stored.as_deref());
        Self {
            conv: StoredValue::new_local(conv),
            strings: StoredValue::new(strings),
            list_rev,
            ex_rev,
            state_rev,
            md_rev: RwSignal::new(0),
            markdown_url: StoredValue::new(markdown_url),
            open: RwSignal::new(false),
            input: RwSignal::new(String::new()),
            input_error: RwSignal::new(None),
            pending_sel: RwSignal::new(None),
            ask_pos: RwSignal::new(None),
            follow: RwSignal::new(true),
            settings_open: RwSignal::new(false),
            return_focus: StoredValue::new_local(None),
            textarea: NodeRef::new(),
            bubble: NodeRef::new(),
            panel: NodeRef::new(),
            log: NodeRef::new(),
        }
    }

    /// The conversation controller.
    pub fn conv(&self) -> Rc<Conversation> {
        self.conv.with_value(Rc::clone)
    }

    /// Imports the Markdown module once (on the first panel open); answers drawn before it arrives
    /// are drawn again when it does. If it fails, text stays plain and operators see why.
    pub fn load_markdown(&self) {
        let Some(url) = self.markdown_url.try_update_value(Option::take).flatten() else {
            return;
        };
        let md_rev = self.md_rev;
        leptos::task::spawn_local(async move {
            match super::web::load_markdown(&url).await {
                Ok(parser) => {
                    crate::markdown::install(parser);
                    super::web::set_host_attribute("data-markdown", "ready");
                    md_rev.update(|v| *v = v.wrapping_add(1));
                }
                Err(e) => {
                    super::web::set_host_attribute("data-markdown", "failed");
                    super::web::warn(&format!(
                        "book-chat: the Markdown module did not load ({e}); answers are shown as plain text"
                    ));
                }
            }
        });
    }

    /// The widget's word for `key` (see `crate::i18n`).
    pub fn t(&self, key: &str) -> String {
        self.strings.with_value(|s| s.get(key))
    }

    /// Exchange ids (tracked).
    pub fn ids(&self) -> Vec<u64> {
        self.list_rev.track();
        self.conv().ids()
    }

    /// Exchange `id` (tracked; read it through a `Memo` so only changed rows redraw).
    pub fn exchange(&self, id: u64) -> Option<Exchange> {
        self.ex_rev.track();
        self.list_rev.track();
        self.conv().exchange(id)
    }

    /// The exchange being answered (tracked).
    pub fn busy(&self) -> Option<u64> {
        self.state_rev.track();
        self.conv().busy()
    }
}

/// The shared state (provided by `App`).
pub fn use_ui() -> Ui {
    expect_context::<Ui>()
}

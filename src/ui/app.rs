//! The chat widget: bubble, dialog panel, message list, input, "Ask about this", and the question flow.

use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::time::Duration;

use leptos::ev;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::Deserialize;
use wasm_bindgen::JsCast;

use super::web;
use crate::answer::{self, extractive_answer, finish_llm, PageContext, Plan, EXPLAIN_THIS};
use crate::citations;
use crate::errors::{recover, Failure, Recovery};
use crate::markdown;
use crate::prefs::Preferences;
use crate::retrieval::{self, asset_url, Manifest, Retriever};
use crate::selection::{self, Selection};
use crate::session::{Exchange, Mode, Rating, Session, Status, STORAGE_KEY};
use crate::sse::{interpret, SseParser, StreamItem};
use crate::transport::Transport;
use crate::validate::{counter, counter_warns, validate_question};

/// The keyboard shortcut that opens the panel (Docusaurus search owns Ctrl/Cmd+K and "/").
pub const SHORTCUT: &str = "Alt+Shift+A";
const OPEN_KEY: &str = "book-chat.open";

/// Page configuration (`window.BOOK_CHAT_CONFIG` / data attributes, passed on by the loader).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Config {
    /// The proxy's base URL; `None` = extractive answers only.
    #[serde(default)]
    pub proxy_url: Option<String>,
    /// Base URL of the index asset folder (holding `manifest.json`).
    #[serde(default)]
    pub index_url: String,
    /// URL of the `encoder-wasm` module's JS (its wasm beside it as `…_bg.wasm`); `None` = BM25 only.
    #[serde(default)]
    pub encoder_url: Option<String>,
}

/// Where the book's index comes from.
#[derive(Clone)]
pub enum IndexSource {
    /// Already built (tests).
    Ready(Rc<dyn Retriever>),
    /// Download from the configured folder on first need.
    Download,
}

/// Everything the widget depends on.
pub struct Env {
    pub config: Config,
    pub transport: Rc<dyn Transport>,
    pub index: IndexSource,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum IndexState {
    Idle,
    Loading,
    Ready,
    Failed(String),
}

/// Shared state of one mounted widget (all handles are `Copy`).
#[derive(Clone, Copy)]
struct Ctx {
    open: RwSignal<bool>,
    exchanges: RwSignal<Vec<(u64, RwSignal<Exchange>)>>,
    sid: RwSignal<String>,
    prefs: RwSignal<Preferences>,
    next_id: StoredValue<u64>,
    last_active: StoredValue<f64>,
    notice: RwSignal<Option<String>>,
    input: RwSignal<String>,
    input_error: RwSignal<Option<String>>,
    pending_sel: RwSignal<Option<Selection>>,
    busy: RwSignal<Option<u64>>,
    index_state: RwSignal<IndexState>,
    llm: RwSignal<Option<bool>>,
    ask_pos: RwSignal<Option<(f64, f64)>>,
    env: StoredValue<Env, LocalStorage>,
    retriever: StoredValue<Option<Rc<dyn Retriever>>, LocalStorage>,
    return_focus: StoredValue<Option<web_sys::HtmlElement>, LocalStorage>,
    textarea: NodeRef<html::Textarea>,
    bubble: NodeRef<html::Button>,
    panel: NodeRef<html::Div>,
}

impl Ctx {
    fn snapshot(&self) -> Session {
        Session {
            id: self.sid.get_untracked(),
            last_active_ms: self.last_active.get_value(),
            prefs: self.prefs.get_untracked(),
            exchanges: self
                .exchanges
                .with_untracked(|v| v.iter().map(|(_, s)| s.get_untracked()).collect()),
            next_id: self.next_id.get_value(),
        }
    }

    fn save(&self) {
        web::storage_set(STORAGE_KEY, &self.snapshot().to_json());
    }

    fn load(&self, s: Session) {
        self.sid.set(s.id);
        self.prefs.set(s.prefs);
        self.next_id.set_value(s.next_id.max(1));
        self.last_active.set_value(s.last_active_ms);
        self.exchanges.set(
            s.exchanges
                .into_iter()
                .map(|e| (e.id, RwSignal::new(e)))
                .collect(),
        );
    }

    fn find(&self, id: u64) -> Option<RwSignal<Exchange>> {
        self.exchanges
            .with_untracked(|v| v.iter().find(|(i, _)| *i == id).map(|(_, s)| *s))
    }

    fn proxy(&self) -> Option<String> {
        self.env
            .with_value(|e| e.config.proxy_url.clone())
            .map(|u| u.trim_end_matches('/').to_string())
    }

    fn transport(&self) -> Rc<dyn Transport> {
        self.env.with_value(|e| e.transport.clone())
    }
}

fn focus_input(ctx: Ctx) {
    set_timeout(
        move || {
            if let Some(t) = ctx.textarea.get_untracked() {
                let _ = t.focus();
            }
        },
        Duration::from_millis(0),
    );
}

fn open_panel(ctx: Ctx) {
    if ctx.open.get_untracked() {
        focus_input(ctx);
        return;
    }
    let active = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok());
    ctx.return_focus.set_value(active);
    ctx.open.set(true);
    web::storage_set(OPEN_KEY, "1");
    focus_input(ctx);
    // Index and proxy health are fetched while the reader types, so the first question waits on neither.
    spawn_local(async move {
        let _ = ensure_index(ctx).await;
    });
    spawn_local(async move {
        let _ = llm_available(ctx).await;
    });
}

fn close_panel(ctx: Ctx) {
    ctx.open.set(false);
    web::storage_set(OPEN_KEY, "0");
    let back = ctx.return_focus.get_value();
    set_timeout(
        move || {
            // Focus returns to where it was, or to the bubble when that was inside the widget.
            let host_or_none = back.filter(|b| b.shadow_root().is_none() && b.is_connected());
            match host_or_none {
                Some(el) => {
                    let _ = el.focus();
                }
                None => {
                    if let Some(b) = ctx.bubble.get_untracked() {
                        let _ = b.focus();
                    }
                }
            }
        },
        Duration::from_millis(0),
    );
}

/// Loads the index once; returns the retriever or a reader-facing error.
async fn ensure_index(ctx: Ctx) -> Result<Rc<dyn Retriever>, String> {
    if let Some(r) = ctx.retriever.get_value() {
        return Ok(r);
    }
    let source = ctx.env.with_value(|e| e.index.clone());
    let r: Rc<dyn Retriever> = match source {
        IndexSource::Ready(r) => r,
        IndexSource::Download => {
            ctx.index_state.set(IndexState::Loading);
            match download_index(ctx).await {
                Ok(r) => r,
                Err(e) => {
                    let msg = format!(
                        "The book's index could not be loaded ({e}). Reload the page to try again."
                    );
                    ctx.index_state.set(IndexState::Failed(msg.clone()));
                    return Err(msg);
                }
            }
        }
    };
    ctx.retriever.set_value(Some(r.clone()));
    ctx.index_state.set(IndexState::Ready);
    Ok(r)
}

async fn download_index(ctx: Ctx) -> Result<Rc<dyn Retriever>, String> {
    let base = ctx.env.with_value(|e| e.config.index_url.clone());
    let t = ctx.transport();
    let manifest_bytes = t
        .get(&asset_url(&base, "manifest.json"))
        .await
        .map_err(|e| format!("{e:?}"))?;
    let manifest =
        Manifest::parse(&String::from_utf8_lossy(&manifest_bytes)).map_err(|e| e.to_string())?;
    let chunks = t
        .get(&asset_url(&base, &manifest.files.chunks))
        .await
        .map_err(|e| format!("{e:?}"))?;
    let index = if manifest.files.chunks.ends_with(".json") {
        Vec::new()
    } else {
        t.get(&asset_url(&base, &manifest.files.index))
            .await
            .map_err(|e| format!("{e:?}"))?
    };
    let retriever: Rc<dyn Retriever> = retrieval::from_assets(&manifest, &index, &chunks)
        .map(Rc::from)
        .map_err(|e| e.to_string())?;
    // The encoder (its own wasm module and the largest file) follows in the background: questions
    // asked before it has arrived are answered with BM25 alone, so no reader waits on it.
    let module_url = ctx.env.with_value(|e| e.config.encoder_url.clone());
    if let (Some(module_url), Some(file)) = (module_url, manifest.files.encoder.clone()) {
        let r = retriever.clone();
        spawn_local(async move {
            let weights = match t.get(&asset_url(&base, &file)).await {
                Ok(bytes) => bytes,
                Err(e) => {
                    web::warn(&format!("book-chat: the question encoder's weights did not load ({e:?}); answering with keyword search only"));
                    return;
                }
            };
            match web::load_encoder(&module_url, &weights).await {
                Ok(encode) => {
                    r.attach_encoder(encode);
                    // Visible to operators and tests: questions are now embedded in the browser.
                    web::set_host_attribute("data-search", "hybrid");
                }
                Err(e) => web::warn(&format!("book-chat: the question encoder did not start ({e}); answering with keyword search only")),
            }
        });
    }
    Ok(retriever)
}

/// Whether an LLM answers (a proxy is configured and its health says it has an upstream).
async fn llm_available(ctx: Ctx) -> bool {
    let Some(proxy) = ctx.proxy() else {
        return false;
    };
    if let Some(v) = ctx.llm.get_untracked() {
        return v;
    }
    #[derive(Deserialize)]
    struct Health {
        upstream: String,
    }
    let v = match ctx.transport().get(&format!("{proxy}/api/health")).await {
        Ok(b) => serde_json::from_slice::<Health>(&b)
            .map(|h| h.upstream != "none")
            .unwrap_or(true),
        // Unknown: try the chat; its error (or 503) decides.
        Err(_) => return true,
    };
    ctx.llm.set(Some(v));
    v
}

fn page_context(selection: Option<String>) -> PageContext {
    PageContext {
        url: web::page_url(),
        title: web::page_title(),
        section: web::nearest_heading(),
        selection,
    }
}

/// Validates the input and starts a new exchange.
fn submit(ctx: Ctx) {
    if ctx.busy.get_untracked().is_some() {
        return;
    }
    let raw = ctx.input.get_untracked();
    let sel = ctx.pending_sel.get_untracked();
    let question = if raw.trim().is_empty() && raw.chars().count() <= 1000 && sel.is_some() {
        EXPLAIN_THIS.to_string()
    } else {
        match validate_question(&raw) {
            Ok(q) => q.to_string(),
            Err(e) => {
                ctx.input_error.set(Some(e.to_string()));
                if let Some(t) = ctx.textarea.get_untracked() {
                    let _ = t.focus();
                }
                return;
            }
        }
    };
    ctx.input_error.set(None);
    let now = web::now_ms();
    if ctx.exchanges.with_untracked(|v| !v.is_empty())
        && now - ctx.last_active.get_value() >= crate::session::IDLE_MS
    {
        let prefs = ctx.prefs.get_untracked();
        let mut fresh = Session::new(web::new_session_id(), now);
        fresh.prefs = prefs;
        ctx.load(fresh);
        ctx.notice
            .set(Some(crate::session::IDLE_NOTICE.to_string()));
    }
    let mut s = ctx.snapshot();
    let id = s.push(question, sel.map(|s| s.text), now);
    ctx.load(s);
    ctx.input.set(String::new());
    ctx.pending_sel.set(None);
    ctx.save();
    spawn_local(run(ctx, id, Some(raw)));
}

fn set_done(ex: RwSignal<Exchange>, d: answer::Direct, mode: Mode) {
    ex.update(|e| {
        e.answer = d.markdown;
        e.sources = d.sources;
        e.confidence = d.confidence;
        e.suggestions = d.suggestions;
        e.mode = mode;
        e.status = Status::Complete;
    });
}

/// Answers exchange `id` (new, Retry or Regenerate). Every path ends in a final status.
async fn run(ctx: Ctx, id: u64, typed: Option<String>) {
    let Some(ex) = ctx.find(id) else { return };
    ctx.busy.set(Some(id));
    ex.update(|e| {
        e.answer.clear();
        e.status = Status::Pending;
        e.rating = None;
        e.confidence = None;
        e.suggestions.clear();
    });
    let result = answer_into(ctx, id, ex).await;
    if let Err(msg) = result {
        ex.update(|e| {
            e.status = Status::Failed {
                message: msg,
                retry: true,
            }
        });
    }
    // On failure the typed question is kept in the input (for Retry or editing).
    if ex.with_untracked(|e| matches!(e.status, Status::Failed { .. })) {
        if let Some(t) = typed.filter(|t| !t.trim().is_empty()) {
            if ctx.input.get_untracked().is_empty() {
                ctx.input.set(t);
            }
        }
    }
    ctx.last_active.set_value(web::now_ms());
    ctx.busy.set(None);
    ctx.save();
}

async fn answer_into(ctx: Ctx, id: u64, ex: RwSignal<Exchange>) -> Result<(), String> {
    let retriever = ensure_index(ctx).await?;
    let (question, selection) = ex.with_untracked(|e| (e.question.clone(), e.selection.clone()));
    let llm = llm_available(ctx).await;
    let history = ctx.snapshot().turns_before(id);
    let page = page_context(selection);
    let sid = ctx.sid.get_untracked();
    let prefs = ctx.prefs.get_untracked();
    let plan = answer::plan(
        retriever.as_ref(),
        &question,
        &page,
        &history,
        prefs,
        &sid,
        llm,
    );
    let llm_plan = match plan {
        Plan::Refuse(d) => {
            set_done(ex, d, Mode::Refusal);
            return Ok(());
        }
        Plan::Extractive(d) => {
            set_done(ex, d, Mode::Extractive);
            return Ok(());
        }
        Plan::Llm(p) => p,
    };
    let Some(proxy) = ctx.proxy() else {
        return Err("No assistant is configured.".into());
    };
    ex.update(|e| {
        e.mode = Mode::Llm;
        e.sources = llm_plan.sources.iter().map(|s| s.to_ref()).collect();
        e.status = Status::Streaming;
    });

    let done = Rc::new(Cell::new(false));
    type StreamError = Option<(Option<String>, String)>;
    let stream_error: Rc<RefCell<StreamError>> = Rc::new(RefCell::new(None));
    let mut parser = SseParser::default();
    let (d2, e2) = (done.clone(), stream_error.clone());
    let sink = Box::new(move |bytes: &[u8]| {
        for evt in parser.push(bytes) {
            match interpret(&evt) {
                StreamItem::Delta(t) => {
                    if !d2.get() {
                        ex.update(|e| e.answer.push_str(&t));
                    }
                }
                StreamItem::Done => d2.set(true),
                StreamItem::Error { code, message } => *e2.borrow_mut() = Some((code, message)),
                StreamItem::Ignore => {}
            }
        }
    });
    let outcome = ctx
        .transport()
        .stream(&format!("{proxy}/api/chat"), llm_plan.body.clone(), sink)
        .await;
    let failure = match outcome {
        _ if stream_error.borrow().is_some() => {
            let (code, message) = stream_error.borrow_mut().take().unwrap_or_default();
            Some(Failure::StreamError { code, message })
        }
        Ok(()) if done.get() => None,
        Ok(()) => Some(Failure::StreamCut),
        Err(f) => Some(f),
    };
    let partial = ex.with_untracked(|e| !e.answer.trim().is_empty());
    match failure {
        None => {
            let answer = ex.with_untracked(|e| e.answer.clone());
            let (conf, sugg) = finish_llm(&answer, &question, &llm_plan, prefs);
            ex.update(|e| {
                e.confidence = Some(conf);
                e.suggestions = sugg;
                e.status = Status::Complete;
            });
            Ok(())
        }
        Some(f) => match recover(&f, partial) {
            Recovery::Extractive => {
                ctx.llm.set(Some(false));
                let d = extractive_answer(
                    &llm_plan.query,
                    &question,
                    &llm_plan.sources,
                    llm_plan.threshold,
                );
                set_done(ex, d, Mode::Extractive);
                Ok(())
            }
            Recovery::KeepPartial { message } => {
                ex.update(|e| e.status = Status::Incomplete(message));
                Ok(())
            }
            Recovery::Fail { message, retry } => {
                ex.update(|e| {
                    e.status = Status::Failed {
                        message: message.clone(),
                        retry,
                    }
                });
                Ok(())
            }
        },
    }
}

fn send_feedback(ctx: Ctx, ex: RwSignal<Exchange>, rating: Rating) {
    ex.update(|e| e.rating = Some(rating));
    ctx.save();
    let Some(proxy) = ctx.proxy() else { return };
    let body = ex.with_untracked(|e| {
        let n = e.sources.len();
        let cited: Vec<String> = citations::cited(&e.answer, n)
            .iter()
            .filter_map(|i| e.sources.get(i - 1))
            .map(|s| s.url.clone())
            .collect();
        serde_json::json!({
            "rating": match rating { Rating::Up => "up", Rating::Down => "down" },
            "session_id": ctx.sid.get_untracked(),
            "question": e.question,
            "answer_excerpt": crate::source::cut_at_word(&e.answer, 500),
            "cited_urls": cited,
        })
        .to_string()
    });
    let t = ctx.transport();
    spawn_local(async move {
        let _ = t.post(&format!("{proxy}/api/feedback"), body).await;
    });
}

fn focusables(panel: &web_sys::HtmlElement) -> Vec<web_sys::HtmlElement> {
    let mut out = Vec::new();
    if let Ok(list) = panel.query_selector_all(
        "button:not([disabled]), a[href], textarea, [tabindex]:not([tabindex='-1'])",
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
/// section it points to and focus stays there (the conversation is kept for the next open).
fn on_panel_click(ctx: Ctx, ev: web_sys::MouseEvent) {
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
        ctx.open.set(false);
        web::storage_set(OPEN_KEY, "0");
    }
}

fn on_panel_keydown(ctx: Ctx, ev: web_sys::KeyboardEvent) {
    if ev.key() == "Escape" {
        ev.prevent_default();
        close_panel(ctx);
        return;
    }
    if ev.key() != "Tab" {
        return;
    }
    let Some(panel) = ctx.panel.get_untracked() else {
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

fn exchange_view(ctx: Ctx, ex: RwSignal<Exchange>) -> impl IntoView {
    let id = ex.with_untracked(|e| e.id);
    let body = move || {
        ex.with(|e| {
            let n = if e.mode == Mode::Refusal {
                0
            } else {
                e.sources.len()
            };
            super::md_view::render(markdown::render(&e.answer, n), &e.sources)
        })
    };
    let status = move || {
        ex.with(|e| match &e.status {
            Status::Pending => view! { <p class="bc-status" role="status"><span class="bc-spin"></span>"Searching the book…"</p> }.into_any(),
            Status::Streaming if e.answer.is_empty() => {
                view! { <p class="bc-status" role="status"><span class="bc-spin"></span>"Writing…"</p> }.into_any()
            }
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
                            disabled=move || ctx.busy.get().is_some()
                            on:click=move |_| spawn_local(run(ctx, id, None))
                        >
                            "Retry"
                        </button>
                    </Show>
                }
                .into_any()
            }
        })
    };
    let sources = move || {
        ex.with(|e| {
            let (label, list): (&str, Vec<(usize, crate::source::SourceRef)>) = match e.mode {
                Mode::Refusal => (
                    "Nearest sections",
                    e.sources
                        .iter()
                        .cloned()
                        .enumerate()
                        .map(|(i, s)| (i + 1, s))
                        .collect(),
                ),
                _ => (
                    "Sources",
                    citations::cited(&e.answer, e.sources.len())
                        .into_iter()
                        .filter_map(|n| e.sources.get(n - 1).cloned().map(|s| (n, s)))
                        .collect(),
                ),
            };
            if list.is_empty() {
                return ().into_any();
            }
            view! {
                <ol class="bc-sources" aria-label=label>
                    {list
                        .into_iter()
                        .map(|(n, s)| {
                            let href = markdown::safe_href(&s.url).unwrap_or_else(|| "#".into());
                            view! {
                                <li value=n.to_string()>
                                    <a href=href>{s.label()}</a>
                                    <p>{s.excerpt.clone()}</p>
                                </li>
                            }
                        })
                        .collect::<Vec<_>>()}
                </ol>
            }
            .into_any()
        })
    };
    let meta = move || {
        ex.with(|e| {
            let finished = matches!(e.status, Status::Complete | Status::Incomplete(_));
            if !finished {
                return ().into_any();
            }
            let conf = e.confidence.map(|c| {
                let cls = if c == crate::confidence::Confidence::Low {
                    "bc-badge bc-badge-low"
                } else {
                    "bc-badge"
                };
                view! { <span class=cls>{c.label()}</span> }
            });
            let mode = (e.mode == Mode::Extractive)
                .then(|| view! { <span class="bc-badge">"Excerpts"</span> });
            let rating = e.rating;
            let rate = e.mode != Mode::Refusal;
            view! {
                {conf}
                {mode}
                <button
                    type="button"
                    class="bc-btn"
                    disabled=move || ctx.busy.get().is_some()
                    on:click=move |_| spawn_local(run(ctx, id, None))
                >
                    "Regenerate"
                </button>
                <Show when=move || rate>
                    <button
                        type="button"
                        class="bc-icon"
                        aria-label="Helpful"
                        aria-pressed=if rating == Some(Rating::Up) { "true" } else { "false" }
                        on:click=move |_| send_feedback(ctx, ex, Rating::Up)
                    >
                        "▲"
                    </button>
                    <button
                        type="button"
                        class="bc-icon"
                        aria-label="Not helpful"
                        aria-pressed=if rating == Some(Rating::Down) { "true" } else { "false" }
                        on:click=move |_| send_feedback(ctx, ex, Rating::Down)
                    >
                        "▼"
                    </button>
                </Show>
            }
            .into_any()
        })
    };
    let suggestions = move || {
        ex.with(|e| {
            if e.status != Status::Complete || e.suggestions.is_empty() {
                return ().into_any();
            }
            view! {
                <div class="bc-sugg" role="group" aria-label="Follow-up suggestions">
                    {e
                        .suggestions
                        .iter()
                        .cloned()
                        .map(|s| {
                            let q = s.clone();
                            view! {
                                <button
                                    type="button"
                                    on:click=move |_| {
                                        ctx.input.set(q.clone());
                                        submit(ctx);
                                    }
                                >
                                    {s}
                                </button>
                            }
                        })
                        .collect::<Vec<_>>()}
                </div>
            }
            .into_any()
        })
    };
    view! {
        <div class="bc-turn" data-id=id.to_string()>
            <div class="bc-q">
                {move || {
                    ex.with(|e| e.selection.clone())
                        .map(|s| view! { <blockquote class="bc-quote">{s}</blockquote> })
                }}
                {move || ex.with(|e| e.question.clone())}
            </div>
            <div class="bc-a" data-mode=move || ex.with(|e| format!("{:?}", e.mode).to_lowercase())>
                {body}
                {status}
                {sources}
                <div class="bc-meta">{meta}</div>
                {suggestions}
            </div>
        </div>
    }
}

/// The whole widget.
#[component]
pub fn App(env: Env, #[prop(optional)] start_open: bool) -> impl IntoView {
    let theme = RwSignal::new(super::theme::current());
    super::theme::observe(theme);
    let (session, idle_notice) = Session::restore(
        web::storage_get(STORAGE_KEY).as_deref(),
        web::now_ms(),
        web::new_session_id,
    );
    let ctx = Ctx {
        open: RwSignal::new(false),
        exchanges: RwSignal::new(Vec::new()),
        sid: RwSignal::new(String::new()),
        prefs: RwSignal::new(Preferences::default()),
        next_id: StoredValue::new(1),
        last_active: StoredValue::new(0.0),
        notice: RwSignal::new(idle_notice.map(str::to_string)),
        input: RwSignal::new(String::new()),
        input_error: RwSignal::new(None),
        pending_sel: RwSignal::new(None),
        busy: RwSignal::new(None),
        index_state: RwSignal::new(IndexState::Idle),
        llm: RwSignal::new(None),
        ask_pos: RwSignal::new(None),
        env: StoredValue::new_local(env),
        retriever: StoredValue::new_local(None),
        return_focus: StoredValue::new_local(None),
        textarea: NodeRef::new(),
        bubble: NodeRef::new(),
        panel: NodeRef::new(),
    };
    ctx.load(session);
    if idle_notice.is_some() {
        ctx.save();
    }
    if start_open || web::storage_get(OPEN_KEY).as_deref() == Some("1") {
        set_timeout(move || open_panel(ctx), Duration::from_millis(0));
    }

    // Keyboard shortcut.
    let _ = window_event_listener(ev::keydown, move |e: web_sys::KeyboardEvent| {
        if e.alt_key() && e.shift_key() && !e.ctrl_key() && !e.meta_key() && e.code() == "KeyA" {
            e.prevent_default();
            if ctx.open.get_untracked() {
                close_panel(ctx);
            } else {
                open_panel(ctx);
            }
        }
    });
    // "Ask about this" follows the selection inside the article.
    let track = move || {
        ctx.ask_pos.set(
            web::article_selection().map(|(_, r)| (r.left() + r.width() / 2.0, r.bottom() + 6.0)),
        );
    };
    let _ = window_event_listener(ev::mouseup, move |_| {
        set_timeout(track, Duration::from_millis(0))
    });
    let _ = window_event_listener(ev::keyup, move |_| track());

    let ask_about = move |_| {
        let captured = web::article_selection().and_then(|(t, _)| selection::capture(&t));
        ctx.ask_pos.set(None);
        if let Some(s) = captured {
            ctx.pending_sel.set(Some(s));
        }
        open_panel(ctx);
    };

    let index_msg = move || match ctx.index_state.get() {
        IndexState::Loading => Some("Loading the book's index…".to_string()),
        IndexState::Failed(m) => Some(m),
        _ => None,
    };

    view! {
        <div class="bc-root" data-theme=move || theme.get()>
            <button
                class="bc-bubble"
                type="button"
                node_ref=ctx.bubble
                aria-label="Ask the book"
                aria-haspopup="dialog"
                aria-expanded=move || if ctx.open.get() { "true" } else { "false" }
                aria-keyshortcuts=SHORTCUT
                title=format!("Ask the book ({SHORTCUT})")
                on:click=move |_| if ctx.open.get_untracked() { close_panel(ctx) } else { open_panel(ctx) }
            >
                <svg aria-hidden="true" width="26" height="26" viewBox="0 0 24 24" fill="currentColor"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"></path></svg>
            </button>
            {move || {
                ctx.ask_pos
                    .get()
                    .map(|(x, y)| {
                        view! {
                            <button
                                class="bc-askthis"
                                type="button"
                                style=format!("left:{}px;top:{}px", (x - 50.0).max(4.0), y)
                                on:mousedown=|e: web_sys::MouseEvent| e.prevent_default()
                                on:click=ask_about
                            >
                                "Ask about this"
                            </button>
                        }
                    })
            }}
            <Show when=move || ctx.open.get()>
                <div
                    class="bc-panel"
                    role="dialog"
                    aria-modal="true"
                    aria-labelledby="bc-title"
                    node_ref=ctx.panel
                    on:keydown=move |e| on_panel_keydown(ctx, e)
                    on:click=move |e| on_panel_click(ctx, e)
                >
                    <div class="bc-head">
                        <h2 id="bc-title">"Ask the book"</h2>
                        <button
                            type="button"
                            class="bc-btn"
                            disabled=move || ctx.busy.get().is_some()
                            on:click=move |_| {
                                let mut s = ctx.snapshot();
                                s.clear(web::new_session_id(), web::now_ms());
                                ctx.load(s);
                                ctx.notice.set(None);
                                ctx.input_error.set(None);
                                ctx.save();
                                focus_input(ctx);
                            }
                        >
                            "New chat"
                        </button>
                        <button type="button" class="bc-icon" aria-label="Close" on:click=move |_| close_panel(ctx)>
                            "✕"
                        </button>
                    </div>
                    {move || ctx.notice.get().map(|n| view! { <p class="bc-notice" role="status">{n}</p> })}
                    {move || index_msg().map(|m| view! { <p class="bc-notice" role="status">{m}</p> })}
                    <div class="bc-log" role="log" aria-live="polite" aria-relevant="additions text" aria-label="Conversation">
                        <Show when=move || ctx.exchanges.with(|v| v.is_empty())>
                            <p class="bc-empty">
                                "Ask anything about this book. Answers come only from the book, with links to the sections they use."
                            </p>
                        </Show>
                        <For each=move || ctx.exchanges.get() key=|(id, _)| *id let:item>
                            {exchange_view(ctx, item.1)}
                        </For>
                    </div>
                    <form
                        class="bc-form"
                        on:submit=move |e: web_sys::SubmitEvent| {
                            e.prevent_default();
                            submit(ctx);
                        }
                    >
                        {move || {
                            ctx.pending_sel
                                .get()
                                .map(|s| {
                                    let notice = s.notice();
                                    view! {
                                        <blockquote class="bc-quote" aria-label="Selected text">{s.text.clone()}</blockquote>
                                        {notice.map(|n| view! { <p class="bc-status">{n}</p> })}
                                        <button type="button" class="bc-btn" on:click=move |_| ctx.pending_sel.set(None)>
                                            "Remove quote"
                                        </button>
                                    }
                                })
                        }}
                        <textarea
                            node_ref=ctx.textarea
                            aria-label="Your question"
                            aria-describedby="bc-counter bc-input-error"
                            aria-invalid=move || if ctx.input_error.get().is_some() { "true" } else { "false" }
                            placeholder=move || {
                                if ctx.pending_sel.get().is_some() { "Explain this (or type a question)" } else { "Your question" }
                            }
                            prop:value=move || ctx.input.get()
                            on:input=move |e| {
                                ctx.input.set(event_target_value(&e));
                                ctx.input_error.set(None);
                            }
                            on:keydown=move |e: web_sys::KeyboardEvent| {
                                if e.key() == "Enter" && !e.shift_key() && !e.is_composing() {
                                    e.prevent_default();
                                    submit(ctx);
                                }
                            }
                        ></textarea>
                        <p id="bc-input-error" class="bc-error" role="alert">{move || ctx.input_error.get()}</p>
                        <div class="bc-row">
                            <span
                                id="bc-counter"
                                class=move || {
                                    if ctx.input.with(|i| counter_warns(i)) { "bc-counter bc-counter-warn" } else { "bc-counter" }
                                }
                            >
                                {move || ctx.input.with(|i| counter(i))}
                            </span>
                            <Show
                                when=move || ctx.busy.get().is_some()
                                fallback=|| view! { <button type="submit" class="bc-btn bc-btn-primary">"Send"</button> }
                            >
                                <button type="button" class="bc-btn" on:click=move |_| ctx.transport().abort()>
                                    "Stop"
                                </button>
                            </Show>
                        </div>
                    </form>
                </div>
            </Show>
        </div>
    }
}

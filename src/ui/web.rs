//! Browser plumbing: `fetch` with a streaming body reader and an AbortController (the real
//! [`Transport`]), localStorage, clock, random ids, and the page context (title, nearest heading, selection).

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, Headers, ReadableStreamDefaultReader, RequestInit, Response};

use crate::errors::{parse_retry_after, Failure};
use crate::retrieval::InflateError;
use crate::transport::{BytesSink, LocalFuture, Transport};

/// `fetch`-based transport.
#[derive(Default)]
pub struct WebTransport {
    controller: RefCell<Option<AbortController>>,
    aborted: Rc<Cell<bool>>,
}

fn js_err(e: &JsValue) -> String {
    e.as_string()
        .or_else(|| {
            Reflect::get(e, &"message".into())
                .ok()
                .and_then(|m| m.as_string())
        })
        .unwrap_or_else(|| "network error".to_string())
}

fn post_init(body: &str, signal: Option<&web_sys::AbortSignal>) -> RequestInit {
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_body(&JsValue::from_str(body));
    if let Ok(h) = Headers::new() {
        let _ = h.append("Content-Type", "application/json");
        init.set_headers_headers(&h);
    }
    init.set_signal(signal);
    init
}

async fn http_failure(resp: &Response) -> Failure {
    let status = resp.status();
    let retry_after = resp
        .headers()
        .get("Retry-After")
        .ok()
        .flatten()
        .and_then(|v| parse_retry_after(&v));
    let body = match resp.text() {
        Ok(p) => JsFuture::from(p)
            .await
            .ok()
            .and_then(|v| v.as_string())
            .unwrap_or_default(),
        Err(_) => String::new(),
    };
    Failure::Http {
        status,
        retry_after,
        body,
    }
}

impl Transport for WebTransport {
    fn stream(
        &self,
        url: &str,
        body: String,
        mut sink: BytesSink,
    ) -> LocalFuture<Result<(), Failure>> {
        let ctrl = AbortController::new().ok();
        self.aborted.set(false);
        let signal = ctrl.as_ref().map(|c| c.signal());
        *self.controller.borrow_mut() = ctrl;
        let aborted = self.aborted.clone();
        let url = url.to_string();
        Box::pin(async move {
            let window = web_sys::window().ok_or_else(|| Failure::Network("no window".into()))?;
            let init = post_init(&body, signal.as_ref());
            let resp = JsFuture::from(window.fetch_with_str_and_init(&url, &init))
                .await
                .map_err(|e| {
                    if aborted.get() {
                        Failure::Aborted
                    } else {
                        Failure::Network(js_err(&e))
                    }
                })?;
            let resp: Response = resp
                .dyn_into()
                .map_err(|_| Failure::Network("bad response".into()))?;
            if !resp.ok() {
                return Err(http_failure(&resp).await);
            }
            let Some(stream) = resp.body() else {
                return Ok(());
            };
            let reader: ReadableStreamDefaultReader = stream
                .get_reader()
                .dyn_into()
                .map_err(|_| Failure::Network("no body reader".into()))?;
            loop {
                let chunk = JsFuture::from(reader.read()).await.map_err(|_| {
                    if aborted.get() {
                        Failure::Aborted
                    } else {
                        Failure::StreamCut
                    }
                })?;
                if Reflect::get(&chunk, &"done".into())
                    .ok()
                    .and_then(|d| d.as_bool())
                    .unwrap_or(true)
                {
                    break;
                }
                if let Ok(v) = Reflect::get(&chunk, &"value".into()) {
                    if let Ok(arr) = v.dyn_into::<Uint8Array>() {
                        sink(&arr.to_vec());
                    }
                }
                if aborted.get() {
                    let _ = reader.cancel();
                    return Err(Failure::Aborted);
                }
            }
            Ok(())
        })
    }

    fn post(&self, url: &str, body: String) -> LocalFuture<Result<u16, Failure>> {
        let url = url.to_string();
        Box::pin(async move {
            let window = web_sys::window().ok_or_else(|| Failure::Network("no window".into()))?;
            let init = post_init(&body, None);
            let resp = JsFuture::from(window.fetch_with_str_and_init(&url, &init))
                .await
                .map_err(|e| Failure::Network(js_err(&e)))?;
            let resp: Response = resp
                .dyn_into()
                .map_err(|_| Failure::Network("bad response".into()))?;
            Ok(resp.status())
        })
    }

    fn get(&self, url: &str) -> LocalFuture<Result<Vec<u8>, Failure>> {
        let url = url.to_string();
        Box::pin(async move {
            // Content-hashed asset files never change: Cache Storage keeps them across page views.
            let immutable = is_content_hashed(&url);
            if immutable {
                if let Some(bytes) = cache_match(&url).await {
                    return Ok(bytes);
                }
            }
            let resp = gloo_net::http::Request::get(&url)
                .send()
                .await
                .map_err(|e| Failure::Network(fetch_error(&e)))?;
            if !resp.ok() {
                return Err(http_failure(&web_sys::Response::from(resp)).await);
            }
            let bytes = resp.binary().await.map_err(|_| Failure::StreamCut)?;
            if immutable {
                cache_put(&url, &bytes).await;
            }
            Ok(bytes)
        })
    }

    fn abort(&self) {
        self.aborted.set(true);
        if let Some(c) = self.controller.borrow().as_ref() {
            c.abort();
        }
    }
}

/// What a failed fetch says. Not `Error::to_string`: its JSON branch (never taken, the widget reads
/// bodies as bytes) links serde_json's error messages into the wasm (about 600 B gzipped).
fn fetch_error(e: &gloo_net::Error) -> String {
    match e {
        gloo_net::Error::JsError(js) => js.to_string(),
        gloo_net::Error::GlooError(s) => s.clone(),
        #[allow(unreachable_patterns)]
        _ => String::from("unreadable response"),
    }
}

/// Cache Storage bucket of the index asset files.
const ASSET_CACHE: &str = "book-chat-assets";

/// `…/index.0123456789abcdef.bin`: a file whose name carries its content hash.
fn is_content_hashed(url: &str) -> bool {
    let name = url.rsplit('/').next().unwrap_or("");
    let mut parts = name.split('.');
    matches!(
        (parts.next(), parts.next(), parts.next(), parts.next()),
        (Some(stem), Some(hash), Some("bin"), None)
            if !stem.is_empty() && hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit())
    )
}

async fn asset_cache() -> Option<web_sys::Cache> {
    let caches = web_sys::window()?.caches().ok()?;
    JsFuture::from(caches.open(ASSET_CACHE))
        .await
        .ok()?
        .dyn_into()
        .ok()
}

async fn cache_match(url: &str) -> Option<Vec<u8>> {
    let cache = asset_cache().await?;
    let hit = JsFuture::from(cache.match_with_str(url)).await.ok()?;
    let resp: Response = hit.dyn_into().ok()?;
    let buf = JsFuture::from(resp.array_buffer().ok()?).await.ok()?;
    Some(Uint8Array::new(&buf).to_vec())
}

/// Stores a downloaded asset file and drops older builds of the same file (same folder and stem).
/// Failures (private mode, quota) only cost a download next time.
async fn cache_put(url: &str, bytes: &[u8]) {
    let Some(cache) = asset_cache().await else {
        return;
    };
    let mut copy = bytes.to_vec();
    let Ok(resp) = Response::new_with_opt_u8_array(Some(&mut copy)) else {
        return;
    };
    if JsFuture::from(cache.put_with_str(url, &resp))
        .await
        .is_err()
    {
        return;
    }
    let prefix = match url
        .rsplit_once('.')
        .and_then(|(head, _)| head.rsplit_once('.'))
    {
        Some((stem, _hash)) => format!("{stem}."),
        None => return,
    };
    if let Ok(keys) = JsFuture::from(cache.keys()).await {
        for req in js_sys::Array::from(&keys).iter() {
            if let Ok(req) = req.dyn_into::<web_sys::Request>() {
                let old = req.url();
                if old != url && old.starts_with(&prefix) && is_content_hashed(&old) {
                    let _ = JsFuture::from(cache.delete_with_str(&old)).await;
                }
            }
        }
    }
}

/// Imports a wasm-bindgen module (`--target web`) from `module_url` and starts it: its wasm is
/// `…_bg.wasm` beside it, kept in Cache Storage like the other hashed files. Returns the module's
/// exports. The encoder and the Markdown parser are loaded this way.
async fn import_module(module_url: &str) -> Result<JsValue, String> {
    let import = js_sys::Function::new_with_args("u", "return import(u)");
    let module = JsFuture::from(js_sys::Promise::from(
        import
            .call1(&JsValue::NULL, &JsValue::from_str(module_url))
            .map_err(|e| js_err(&e))?,
    ))
    .await
    .map_err(|e| js_err(&e))?;
    let wasm_url = module_url
        .strip_suffix(".js")
        .map(|s| format!("{s}_bg.wasm"))
        .ok_or("the module URL must end in .js")?;
    let init: js_sys::Function = Reflect::get(&module, &"default".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("the module has no init function")?;
    let wasm_bytes = match cache_match(&wasm_url).await {
        Some(b) => b,
        None => {
            let resp = gloo_net::http::Request::get(&wasm_url)
                .send()
                .await
                .map_err(|e| fetch_error(&e))?;
            if !resp.ok() {
                return Err(format!("HTTP {} for {wasm_url}", resp.status()));
            }
            let b = resp.binary().await.map_err(|e| fetch_error(&e))?;
            cache_put(&wasm_url, &b).await;
            b
        }
    };
    let arg = js_sys::Object::new();
    let _ = Reflect::set(
        &arg,
        &"module_or_path".into(),
        &Uint8Array::from(wasm_bytes.as_slice()),
    );
    JsFuture::from(js_sys::Promise::from(
        init.call1(&JsValue::NULL, &arg).map_err(|e| js_err(&e))?,
    ))
    .await
    .map_err(|e| js_err(&e))?;
    Ok(module)
}

/// Imports the `markdown-wasm` module from `module_url`; returns its parser for
/// [`crate::markdown::install`].
pub async fn load_markdown(module_url: &str) -> Result<crate::markdown::Parser, String> {
    let module = import_module(module_url).await?;
    let parse: js_sys::Function = Reflect::get(&module, &"parse".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("the Markdown module has no parse function")?;
    Ok(Rc::new(move |md: &str| {
        // `[ops: Uint32Array, texts: string[]]`, see `book_markdown::wire`.
        let out = js_sys::Array::from(&parse.call1(&JsValue::NULL, &JsValue::from_str(md)).ok()?);
        let ops = out.get(0).dyn_into::<js_sys::Uint32Array>().ok()?.to_vec();
        let texts = js_sys::Array::from(&out.get(1))
            .iter()
            .map(|t| t.as_string())
            .collect::<Option<Vec<String>>>()?;
        book_markdown::wire::decode(&book_markdown::wire::Wire { ops, texts })
    }))
}

/// Imports the `encoder-wasm` module from `module_url` and starts it on `weights`. Returns the
/// encode function.
pub async fn load_encoder(
    module_url: &str,
    weights: &[u8],
) -> Result<crate::retrieval::QuestionEncoder, String> {
    let module = import_module(module_url).await?;
    let ctor: js_sys::Function = Reflect::get(&module, &"QuestionEncoder".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("the encoder module has no QuestionEncoder")?;
    let args = js_sys::Array::of1(&Uint8Array::from(weights));
    let encoder = Reflect::construct(&ctor, &args).map_err(|e| js_err(&e))?;
    let encode: js_sys::Function = Reflect::get(&encoder, &"encode".into())
        .ok()
        .and_then(|f| f.dyn_into().ok())
        .ok_or("the encoder has no encode method")?;
    Ok(Box::new(move |text: &str, max_tokens: Option<usize>| {
        // `encode(text, maxTokens)`: an absent or undefined cap embeds the whole text.
        let cap = max_tokens.map_or(JsValue::UNDEFINED, |n| JsValue::from(n as u32));
        let out = encode
            .call2(&encoder, &JsValue::from_str(text), &cap)
            .ok()?;
        Some(out.dyn_into::<js_sys::Float32Array>().ok()?.to_vec())
    }))
}

/// Downloads the question encoder's weights (`base`/`file`) and its module (`module_url`) in the
/// background and attaches it to `retriever`; questions asked meanwhile use BM25 alone.
pub fn start_encoder(
    module_url: String,
    retriever: Rc<dyn crate::retrieval::Retriever>,
    base: String,
    file: String,
) {
    wasm_bindgen_futures::spawn_local(async move {
        let t = WebTransport::default();
        let weights = match t
            .get(&book_retrieval::manifest::asset_url(&base, &file))
            .await
        {
            Ok(bytes) => bytes,
            Err(e) => {
                warn(&format!("book-chat: the question encoder's weights did not load ({e}); answering with keyword search only"));
                return;
            }
        };
        match load_encoder(&module_url, &weights).await {
            Ok(encode) => {
                // One encoding now, while the reader is still typing: the engine compiles the
                // encoder's hot loops and its buffers are allocated before the first question
                // waits on them.
                let _ = encode("warm up", None);
                retriever.attach_encoder(encode);
                // Visible to operators and tests: questions are now embedded in the browser.
                set_host_attribute("data-search", "hybrid");
            }
            Err(e) => warn(&format!(
                "book-chat: the question encoder did not start ({e}); answering with keyword search only"
            )),
        }
    });
}

/// Sets an attribute on the widget's host element (outside the shadow root, so pages and tests see it).
pub fn set_host_attribute(name: &str, value: &str) {
    if let Some(host) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.get_element_by_id(super::HOST_ID))
    {
        let _ = host.set_attribute(name, value);
    }
}

/// A warning in the browser console (for operators; readers see messages in the panel).
pub fn warn(msg: &str) {
    web_sys::console::warn_1(&JsValue::from_str(msg));
}

/// Milliseconds since the epoch.
pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// A fresh UUID v4 from `crypto.getRandomValues` (falls back to `Math.random` without it).
pub fn new_session_id() -> String {
    let mut bytes = [0u8; 16];
    let ok = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .map(|c| c.get_random_values_with_u8_array(&mut bytes).is_ok())
        .unwrap_or(false);
    if !ok {
        for b in bytes.iter_mut() {
            *b = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    crate::session::uuid_v4(bytes)
}

/// Reads a localStorage entry (None when storage is unavailable, e.g. blocked cookies).
pub fn storage_get(key: &str) -> Option<String> {
    web_sys::window()?
        .local_storage()
        .ok()??
        .get_item(key)
        .ok()?
}

/// Writes a localStorage entry; failures (quota, blocked storage) are ignored: the chat still works.
pub fn storage_set(key: &str, value: &str) {
    if let Some(s) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = s.set_item(key, value);
    }
}

/// The page's title without the site suffix (" | Book").
pub fn page_title() -> String {
    let t = web_sys::window()
        .and_then(|w| w.document())
        .map(|d| d.title())
        .unwrap_or_default();
    t.split(" | ").next().unwrap_or(&t).trim().to_string()
}

/// The page's path and query (what chunk URLs are compared with).
pub fn page_url() -> String {
    web_sys::window()
        .map(|w| {
            let l = w.location();
            format!(
                "{}{}",
                l.pathname().unwrap_or_default(),
                l.search().unwrap_or_default()
            )
        })
        .unwrap_or_default()
}

/// The article container of a Docusaurus page.
pub const ARTICLE_SELECTOR: &str = ".theme-doc-markdown, article";

/// The nearest heading above the top of the viewport (the section being read), else the first heading.
pub fn nearest_heading() -> Option<String> {
    let doc = web_sys::window()?.document()?;
    let list = doc
        .query_selector_all(".theme-doc-markdown h1, .theme-doc-markdown h2, .theme-doc-markdown h3, article h1, article h2, article h3")
        .ok()?;
    let mut best: Option<String> = None;
    for i in 0..list.length() {
        let Some(el) = list
            .item(i)
            .and_then(|n| n.dyn_into::<web_sys::Element>().ok())
        else {
            continue;
        };
        let top = el.get_bounding_client_rect().top();
        let text = el
            .text_content()
            .unwrap_or_default()
            .trim()
            .trim_end_matches('#')
            .trim()
            .to_string();
        if text.is_empty() {
            continue;
        }
        if best.is_none() || top <= 80.0 {
            best = Some(text);
        }
        if top > 80.0 && best.is_some() && i > 0 {
            break;
        }
    }
    best
}

/// A selection in the article: its text, where it is, and whether it lies in a code block.
pub struct ArticleSelection {
    /// The selected text as the browser gives it (not yet cut to the selection limit).
    pub text: String,
    /// The selection's bounding box in viewport coordinates; places the "Ask about this" button.
    pub rect: web_sys::DomRect,
    /// Whether the selection starts inside a `<pre>` block, so it is captured as code.
    pub code: bool,
}

/// The current text selection when it lies inside the article.
pub fn article_selection() -> Option<ArticleSelection> {
    let window = web_sys::window()?;
    let sel = window.get_selection().ok()??;
    if sel.is_collapsed() || sel.range_count() == 0 {
        return None;
    }
    let node = sel.anchor_node()?;
    let el = match node.dyn_ref::<web_sys::Element>() {
        Some(e) => e.clone(),
        None => node.parent_element()?,
    };
    el.closest(ARTICLE_SELECTOR).ok()??;
    let code = el.closest("pre").ok().flatten().is_some();
    let text: String = sel.to_string().into();
    if text.trim().is_empty() {
        return None;
    }
    let rect = sel.get_range_at(0).ok()?.get_bounding_client_rect();
    Some(ArticleSelection { text, rect, code })
}

/// Copies text to the clipboard; resolves whether it worked (permission, insecure page).
pub async fn copy_text(text: &str) -> bool {
    let Some(w) = web_sys::window() else {
        return false;
    };
    JsFuture::from(w.navigator().clipboard().write_text(text))
        .await
        .is_ok()
}

/// The page's origin (`https://book.example`), to make cited URLs absolute in copied answers.
pub fn origin() -> String {
    web_sys::window()
        .and_then(|w| w.location().origin().ok())
        .unwrap_or_default()
}

/// Inflates raw deflate with the browser's `DecompressionStream` (the widget's wasm carries no
/// inflater: miniz_oxide's was 6.5 kB of its gzipped size), reading the output in chunks so a
/// section inflating past `book_retrieval::MAX_SECTION_BYTES` is refused as it grows.
/// The stream is set up at once from `deflated` (copied straight into the browser), so the
/// future borrows nothing and only reads.
pub fn inflate(deflated: &[u8]) -> crate::retrieval::Inflated {
    let reader = inflating_reader(deflated);
    Box::pin(async move { read_inflated(reader?).await })
}

/// A reader of `deflated`'s inflated bytes.
fn inflating_reader(deflated: &[u8]) -> Result<ReadableStreamDefaultReader, InflateError> {
    // Missing before Chrome and Edge 103, Firefox 113, Safari 16.4 (or "deflate-raw" unknown).
    let pair = Reflect::get(&js_sys::global(), &"DecompressionStream".into())
        .ok()
        .and_then(|c| c.dyn_into::<js_sys::Function>().ok())
        .and_then(|c| Reflect::construct(&c, &js_sys::Array::of1(&"deflate-raw".into())).ok())
        .ok_or(InflateError::Unsupported)?;
    let parts = js_sys::Array::of1(&Uint8Array::from(deflated));
    web_sys::Blob::new_with_u8_array_sequence(&parts)
        .map_err(|_| damaged("the section could not be read"))?
        .stream()
        .pipe_through(pair.unchecked_ref())
        .get_reader()
        .dyn_into()
        .map_err(|_| damaged("the section could not be read"))
}

fn damaged(why: &str) -> InflateError {
    InflateError::Damaged(why.to_string())
}

/// Reads the inflated bytes to their end, refusing more than the core's section limit.
async fn read_inflated(reader: ReadableStreamDefaultReader) -> Result<Vec<u8>, InflateError> {
    let mut out: Vec<u8> = Vec::new();
    loop {
        let chunk = JsFuture::from(reader.read())
            .await
            .map_err(|_| damaged("compressed section does not inflate"))?;
        if Reflect::get(&chunk, &"done".into())
            .ok()
            .and_then(|d| d.as_bool())
            .unwrap_or(true)
        {
            return Ok(out);
        }
        let Some(arr) = Reflect::get(&chunk, &"value".into())
            .ok()
            .and_then(|v| v.dyn_into::<Uint8Array>().ok())
        else {
            continue;
        };
        let at = out.len();
        if at + arr.length() as usize > book_retrieval::MAX_SECTION_BYTES {
            let _ = reader.cancel();
            return Err(damaged("compressed section inflates implausibly large"));
        }
        out.resize(at + arr.length() as usize, 0);
        arr.copy_to(&mut out[at..]);
    }
}

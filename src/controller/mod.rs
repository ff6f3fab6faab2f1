//! The conversation controller: what the panel does that is not drawing. It loads the book's index,
//! probes the proxy's health, asks (refusal, excerpts or a streamed LLM answer), recovers from
//! failures and sends feedback. It holds no Leptos state, so the whole flow is tested natively with
//! the scripted transport; the widget binds it to the DOM through [`Host`].

pub mod config;
pub mod export;
pub mod feedback;

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use book_retrieval::manifest::{asset_url, Manifest};
use serde::Deserialize;

use crate::answer::{self, extractive_answer, finish_llm, PageContext, Plan, EXPLAIN_THIS};
use crate::errors::{recover, Failure, Recovery};
use crate::prefs::Preferences;
use crate::retrieval::{self, Retriever};
use crate::selection::Selection;
use crate::session::{Exchange, Mode, Rating, Session, Status, IDLE_NOTICE};
use crate::sse::{interpret, SseParser, StreamItem};
use crate::suggest::Suggestion;
use crate::transport::{LocalFuture, Transport};
use crate::validate::{validate_question, QuestionError};

pub use config::{Config, IndexRoute};

/// Where the book's index comes from.
#[derive(Clone)]
pub enum IndexSource {
    /// Already built (tests): used for every page.
    Ready(Rc<dyn Retriever>),
    /// Downloaded from the configured folder on first need.
    Download,
}

/// Everything the widget depends on.
pub struct Env {
    /// The book's settings: proxy URL, index folders, encoder, locale and UI strings.
    pub config: Config,
    /// How answers, feedback and index files are fetched (the browser's `fetch`, or a script in tests).
    pub transport: Rc<dyn Transport>,
    /// Where the book's index comes from.
    pub index: IndexSource,
}

/// What changed, so the view redraws only that.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// Exchanges were added or removed.
    List,
    /// One exchange's text or status changed.
    Exchange(u64),
    /// Busy, index state, notice or preferences.
    State,
}

/// The browser side of the controller (the widget implements it; tests use a recorder).
pub trait Host {
    /// Milliseconds since the epoch.
    fn now_ms(&self) -> f64;
    /// A fresh random session id.
    fn new_session_id(&self) -> String;
    /// The page being read (path, title, nearest heading) with the reader's selection.
    fn page(&self, selection: Option<String>) -> PageContext;
    /// Persists the session JSON.
    fn save(&self, session_json: &str);
    /// Something the view shows changed.
    fn changed(&self, what: Change);
    /// Runs a future in the background.
    fn spawn(&self, fut: LocalFuture<()>);
    /// The index at `base` loaded and names the encoder weights `encoder_file`: start the question encoder.
    fn start_encoder(&self, _retriever: Rc<dyn Retriever>, _base: String, _encoder_file: String) {}
    /// Inflates a deflated section of the book's asset files (raw deflate), refusing one larger
    /// than `book_retrieval::MAX_SECTION_BYTES`; the error says why. The browser does it with its
    /// own `DecompressionStream`, so the widget's wasm carries no inflater; elsewhere (tests) the
    /// retrieval core's.
    fn inflate(&self, deflated: &[u8]) -> retrieval::Inflated {
        retrieval::core_inflate(deflated)
    }
}

/// Loading state of the book's index, for the panel's notice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IndexState {
    /// Nothing loaded yet: the index is downloaded when first needed.
    Idle,
    /// The download is running.
    Loading,
    /// The index is loaded and searchable.
    Ready,
    /// Loading failed; the error is shown in the panel and the next attempt downloads again.
    Failed(IndexError),
}

/// Why the book's index is unusable; `Display` is shown to the reader.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IndexError {
    /// A file of the index could not be fetched.
    #[error("The book's index could not be loaded ({0}). Check your connection, then ask again.")]
    Download(Failure),
    /// The site has no index at this address (`manifest.json` answered 404): not deployed, or
    /// `docusaurus start` is still indexing the book in the background.
    #[error("This book's search index is not on the site yet (its manifest.json was not found). Ask again in a moment; if it persists, tell the book's authors.")]
    Missing,
    /// The browser cannot inflate the index files (no `DecompressionStream`: Chrome and Edge
    /// before 103, Firefox before 113, Safari before 16.4).
    #[error("This browser is too old to read the book's index. Update it, or open the book in a current Chrome, Edge, Firefox or Safari.")]
    Unsupported,
    /// The manifest or an index file did not parse; holds the parser's message.
    #[error("The book's index is damaged ({0}). Reload the page; if it persists, tell the book's authors.")]
    Damaged(String),
}

/// Why a question was not sent; `Display` is shown under the question box.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AskError {
    /// The question itself is not acceptable (empty, too long…).
    #[error(transparent)]
    Invalid(#[from] QuestionError),
    /// An answer is still being written.
    #[error("Wait for the current answer to finish (or press Stop).")]
    Busy,
}

/// One mounted widget's conversation.
pub struct Conversation {
    config: Config,
    transport: Rc<dyn Transport>,
    index: IndexSource,
    host: Rc<dyn Host>,
    session: RefCell<Session>,
    /// Loaded retrievers by index base URL.
    retrievers: RefCell<Vec<(String, Rc<dyn Retriever>)>>,
    index_state: RefCell<IndexState>,
    llm: Cell<Option<bool>>,
    busy: Cell<Option<u64>>,
    notice: RefCell<Option<String>>,
    /// Set once the proxy said it keeps no feedback (no database, no such route): later thumbs and
    /// refusals are not posted again, so an operator's console is not filled with failed requests.
    feedback_off: Rc<Cell<bool>>,
    /// The words excerpt answers and refusals are framed in: the book's translations
    /// (`config.strings`) over English.
    words: book_answer::Words,
}

impl Conversation {
    /// Restores the stored session (or starts one) for a widget.
    pub fn new(env: Env, host: Rc<dyn Host>, stored: Option<&str>) -> Rc<Self> {
        let (session, notice) = Session::restore(stored, host.now_ms(), || host.new_session_id());
        let words = crate::i18n::Strings::new(&env.config.strings).answer_words();
        let c = Rc::new(Self {
            words,
            config: env.config,
            transport: env.transport,
            index: env.index,
            host,
            session: RefCell::new(session),
            retrievers: RefCell::new(Vec::new()),
            index_state: RefCell::new(IndexState::Idle),
            llm: Cell::new(None),
            busy: Cell::new(None),
            notice: RefCell::new(notice.map(str::to_string)),
            feedback_off: Rc::new(Cell::new(false)),
        });
        if notice.is_some() {
            c.save();
        }
        c
    }

    /// The page configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }
    /// The transport (the view's Stop button aborts through it).
    pub fn transport(&self) -> Rc<dyn Transport> {
        self.transport.clone()
    }
    /// Ids of the kept exchanges, oldest first.
    pub fn ids(&self) -> Vec<u64> {
        self.session
            .borrow()
            .exchanges
            .iter()
            .map(|e| e.id)
            .collect()
    }
    /// A copy of exchange `id`.
    pub fn exchange(&self, id: u64) -> Option<Exchange> {
        self.session
            .borrow()
            .exchanges
            .iter()
            .find(|e| e.id == id)
            .cloned()
    }
    /// A copy of the whole session (copy answer, tests).
    pub fn session(&self) -> Session {
        self.session.borrow().clone()
    }
    /// The reader's answer preferences.
    pub fn prefs(&self) -> Preferences {
        self.session.borrow().prefs
    }
    /// The exchange being answered, if any.
    pub fn busy(&self) -> Option<u64> {
        self.busy.get()
    }
    /// The index loading state.
    pub fn index_state(&self) -> IndexState {
        self.index_state.borrow().clone()
    }
    /// A notice above the conversation (idle restart).
    pub fn notice(&self) -> Option<String> {
        self.notice.borrow().clone()
    }

    fn save(&self) {
        self.host.save(&self.session.borrow().to_json());
    }

    fn update(&self, id: u64, f: impl FnOnce(&mut Exchange)) {
        if let Some(e) = self.session.borrow_mut().get_mut(id) {
            f(e);
        }
        self.host.changed(Change::Exchange(id));
    }

    fn set_busy(&self, v: Option<u64>) {
        self.busy.set(v);
        self.host.changed(Change::State);
    }

    /// Changes the answer preferences (kept with the session; used from the next question on).
    pub fn set_prefs(&self, prefs: Preferences) {
        self.session.borrow_mut().prefs = prefs;
        self.save();
        self.host.changed(Change::State);
    }

    /// "New chat": same preferences, a new session id, no messages.
    pub fn new_chat(&self) {
        if self.busy.get().is_some() {
            return;
        }
        let (id, now) = (self.host.new_session_id(), self.host.now_ms());
        self.session.borrow_mut().clear(id, now);
        *self.notice.borrow_mut() = None;
        self.save();
        self.host.changed(Change::List);
        self.host.changed(Change::State);
    }

    /// Stops the answer being streamed.
    pub fn stop(&self) {
        self.transport.abort();
    }

    /// Starts loading the index and probing the proxy (on panel open), so the first question waits on neither.
    pub fn prefetch(self: &Rc<Self>) {
        let c = self.clone();
        self.host.spawn(Box::pin(async move {
            let _ = c.ensure_index().await;
        }));
        let c = self.clone();
        self.host.spawn(Box::pin(async move {
            let _ = c.llm_available().await;
        }));
    }

    /// Validates a question (an empty box with a selection asks "Explain this") and adds it to the
    /// conversation; answer it with [`Conversation::run`].
    pub fn ask(&self, raw: &str, selection: Option<Selection>) -> Result<u64, AskError> {
        self.ask_offered(raw, selection, None)
    }

    /// [`Conversation::ask`] for a follow-up the reader clicked: it is answered from the section
    /// that offered it, though other sections may offer the same words.
    pub fn ask_suggestion(
        &self,
        s: &Suggestion,
        selection: Option<Selection>,
    ) -> Result<u64, AskError> {
        let offered_by = (!s.url.is_empty()).then(|| s.url.clone());
        self.ask_offered(&s.question, selection, offered_by)
    }

    fn ask_offered(
        &self,
        raw: &str,
        selection: Option<Selection>,
        offered_by: Option<String>,
    ) -> Result<u64, AskError> {
        if self.busy.get().is_some() {
            return Err(AskError::Busy);
        }
        let question =
            if raw.trim().is_empty() && raw.chars().count() <= 1000 && selection.is_some() {
                EXPLAIN_THIS.to_string()
            } else {
                validate_question(raw)?.to_string()
            };
        let now = self.host.now_ms();
        {
            let mut s = self.session.borrow_mut();
            if !s.exchanges.is_empty() && s.is_idle(now) {
                let prefs = s.prefs;
                *s = Session::new(self.host.new_session_id(), now);
                s.prefs = prefs;
                *self.notice.borrow_mut() = Some(IDLE_NOTICE.to_string());
            }
        }
        let id = {
            let mut s = self.session.borrow_mut();
            let id = s.push(question, selection.map(|s| s.text), now);
            if let Some(e) = s.get_mut(id) {
                e.offered_by = offered_by;
            }
            id
        };
        self.save();
        self.host.changed(Change::List);
        self.host.changed(Change::State);
        Ok(id)
    }

    /// Answers exchange `id` (new, Retry or Regenerate). Every path ends in a final status; returns
    /// whether the answer failed (the view then gives the typed question back for Retry or editing).
    pub async fn run(self: Rc<Self>, id: u64) -> bool {
        if self.busy.get().is_some() || self.exchange(id).is_none() {
            return false;
        }
        self.set_busy(Some(id));
        self.update(id, |e| {
            e.answer.clear();
            e.status = Status::Pending;
            e.rating = None;
            e.confidence = None;
            e.suggestions.clear();
        });
        if let Err(message) = self.answer_into(id).await {
            self.update(id, |e| {
                e.status = Status::Failed {
                    message,
                    retry: true,
                }
            });
        }
        let failed = self
            .exchange(id)
            .is_some_and(|e| matches!(e.status, Status::Failed { .. }));
        self.session.borrow_mut().last_active_ms = self.host.now_ms();
        self.set_busy(None);
        self.save();
        if self.exchange(id).is_some_and(|e| e.mode == Mode::Refusal) {
            // Each refused question is a gap report for the authors (contract 2).
            self.send_feedback(id, None);
        }
        failed
    }

    /// Records the reader's rating and sends it to the proxy (when one is configured).
    pub fn rate(&self, id: u64, rating: Rating) {
        self.update(id, |e| e.rating = Some(rating));
        self.save();
        self.send_feedback(id, Some(rating));
    }

    fn send_feedback(&self, id: u64, rating: Option<Rating>) {
        if self.feedback_off.get() {
            return;
        }
        let (Some(proxy), Some(e)) = (self.config.proxy(), self.exchange(id)) else {
            return;
        };
        let body = feedback::body(&e, rating, &self.session.borrow().id);
        let t = self.transport.clone();
        let off = self.feedback_off.clone();
        self.host.spawn(Box::pin(async move {
            if let Ok(status) = t.post(&format!("{proxy}/api/feedback"), body).await {
                off.set(feedback::not_kept(status));
            }
        }));
    }

    /// The retriever for the page being read (loading it once per index folder).
    pub async fn ensure_index(&self) -> Result<Rc<dyn Retriever>, IndexError> {
        let base = match &self.index {
            IndexSource::Ready(r) => {
                *self.index_state.borrow_mut() = IndexState::Ready;
                return Ok(r.clone());
            }
            IndexSource::Download => {
                let path = self.host.page(None).url;
                let path = path.split(['?', '#']).next().unwrap_or("").to_string();
                self.config.index_for(&path).to_string()
            }
        };
        if let Some(r) = self.loaded(&base) {
            return Ok(r);
        }
        *self.index_state.borrow_mut() = IndexState::Loading;
        self.host.changed(Change::State);
        let result = self.download_index(&base).await;
        // Two callers may have raced: keep the first one loaded.
        let result = match (self.loaded(&base), result) {
            (Some(r), _) => Ok(r),
            (None, Ok(r)) => {
                self.retrievers.borrow_mut().push((base, r.clone()));
                Ok(r)
            }
            (None, Err(e)) => Err(e),
        };
        *self.index_state.borrow_mut() = match &result {
            Ok(_) => IndexState::Ready,
            Err(e) => IndexState::Failed(e.clone()),
        };
        self.host.changed(Change::State);
        result
    }

    fn loaded(&self, base: &str) -> Option<Rc<dyn Retriever>> {
        self.retrievers
            .borrow()
            .iter()
            .find(|(b, _)| b == base)
            .map(|(_, r)| r.clone())
    }

    async fn download_index(&self, base: &str) -> Result<Rc<dyn Retriever>, IndexError> {
        let t = &self.transport;
        let manifest_bytes =
            t.get(&asset_url(base, "manifest.json"))
                .await
                .map_err(|f| match f {
                    Failure::Http { status: 404, .. } => IndexError::Missing,
                    f => IndexError::Download(f),
                })?;
        let manifest =
            Manifest::parse(&manifest_bytes).map_err(|e| IndexError::Damaged(e.to_string()))?;
        let chunks = t
            .get(&asset_url(base, &manifest.files.chunks))
            .await
            .map_err(IndexError::Download)?;
        let index = t
            .get(&asset_url(base, &manifest.files.index))
            .await
            .map_err(IndexError::Download)?;
        let retriever: Rc<dyn Retriever> =
            retrieval::load_assets(&index, &chunks, |d| self.host.inflate(d))
                .await
                .map(Rc::new)
                .map_err(|e| match e {
                    retrieval::LoadError::Unsupported => IndexError::Unsupported,
                    e => IndexError::Damaged(e.to_string()),
                })?;
        if let Some(file) = manifest.files.encoder.clone() {
            self.host
                .start_encoder(retriever.clone(), base.to_string(), file);
        }
        Ok(retriever)
    }

    /// Whether an LLM answers (a proxy is configured and its health says it has an upstream).
    pub async fn llm_available(&self) -> bool {
        let Some(proxy) = self.config.proxy() else {
            return false;
        };
        if let Some(v) = self.llm.get() {
            return v;
        }
        #[derive(Deserialize)]
        struct Health {
            upstream: String,
        }
        let v = match self.transport.get(&format!("{proxy}/api/health")).await {
            Ok(b) => crate::json::from_slice::<Health>(&b)
                .map(|h| h.upstream != "none")
                .unwrap_or(true),
            // Unknown: try the chat; its error (or 503) decides.
            Err(_) => return true,
        };
        self.llm.set(Some(v));
        v
    }

    fn set_direct(&self, id: u64, d: answer::Direct, mode: Mode) {
        self.update(id, |e| {
            e.answer = d.markdown;
            e.sources = d.sources;
            e.confidence = d.confidence;
            e.suggestions = d.suggestions;
            e.mode = mode;
            e.status = Status::Complete;
        });
    }

    async fn answer_into(&self, id: u64) -> Result<(), String> {
        let retriever = self.ensure_index().await.map_err(|e| e.to_string())?;
        let Some(ex) = self.exchange(id) else {
            return Ok(());
        };
        let llm = self.llm_available().await;
        let (history, previous_source, sid, prefs) = {
            let s = self.session.borrow();
            let previous_source = s.previous_source(id).map(str::to_string);
            (s.turns_before(id), previous_source, s.id.clone(), s.prefs)
        };
        let page = self.host.page(ex.selection.clone());
        let plan = answer::plan(
            retriever.as_ref(),
            &ex.question,
            ex.offered_by.as_deref(),
            &page,
            &answer::ConversationSoFar {
                history: &history,
                previous_source: previous_source.as_deref(),
            },
            &answer::Answering {
                prefs,
                words: &self.words,
                session_id: &sid,
                llm,
            },
        );
        let llm_plan = match plan {
            Plan::Refuse(d) => {
                self.set_direct(id, d, Mode::Refusal);
                return Ok(());
            }
            Plan::Extractive(d) => {
                self.set_direct(id, d, Mode::Extractive);
                return Ok(());
            }
            Plan::Llm(p) => p,
        };
        let Some(proxy) = self.config.proxy() else {
            return Err("No assistant is configured for this book.".into());
        };
        self.update(id, |e| {
            e.mode = Mode::Llm;
            e.sources = llm_plan.found.sources.iter().map(|s| s.to_ref()).collect();
            e.status = Status::Streaming;
        });

        let done = Rc::new(Cell::new(false));
        type StreamError = Option<(Option<String>, String)>;
        let stream_error: Rc<RefCell<StreamError>> = Rc::new(RefCell::new(None));
        let mut parser = SseParser::default();
        let (d2, e2) = (done.clone(), stream_error.clone());
        let deltas: Rc<RefCell<String>> = Rc::new(RefCell::new(String::new()));
        let delta_sink = deltas.clone();
        let sink = Box::new(move |bytes: &[u8]| {
            for evt in parser.push(bytes) {
                match interpret(&evt) {
                    StreamItem::Delta(t) if !d2.get() => delta_sink.borrow_mut().push_str(&t),
                    StreamItem::Done => d2.set(true),
                    StreamItem::Error { code, message } => *e2.borrow_mut() = Some((code, message)),
                    StreamItem::Delta(_) | StreamItem::Ignore => {}
                }
            }
        });
        // The sink only collects text; this loop moves it into the exchange, so a sink call never
        // touches the session while the controller holds it.
        let pump_text = || {
            let t = std::mem::take(&mut *deltas.borrow_mut());
            if !t.is_empty() {
                self.update(id, |e| e.answer.push_str(&t));
            }
        };
        let fut = self
            .transport
            .stream(&format!("{proxy}/api/chat"), llm_plan.body.clone(), sink);
        let outcome = StreamPump {
            fut,
            on_poll: &pump_text,
        }
        .await;
        let rest = std::mem::take(&mut *deltas.borrow_mut());
        if !rest.is_empty() {
            self.update(id, |e| e.answer.push_str(&rest));
        }
        let taken = stream_error.borrow_mut().take();
        let failure = match (taken, outcome) {
            (Some((code, message)), _) => Some(Failure::StreamError { code, message }),
            (None, Ok(())) if done.get() => None,
            (None, Ok(())) => Some(Failure::StreamCut),
            (None, Err(f)) => Some(f),
        };
        let answer_text = self.exchange(id).map(|e| e.answer).unwrap_or_default();
        let partial = !answer_text.trim().is_empty();
        match failure {
            None => {
                let (conf, sugg) = finish_llm(&answer_text, &ex.question, &llm_plan, prefs);
                self.update(id, |e| {
                    e.confidence = Some(conf);
                    e.suggestions = sugg;
                    e.status = Status::Complete;
                });
            }
            Some(f) => match recover(&f, partial) {
                Recovery::Extractive => {
                    self.llm.set(Some(false));
                    let d = extractive_answer(&llm_plan, prefs, &self.words);
                    self.set_direct(id, d, Mode::Extractive);
                }
                Recovery::KeepPartial { message } => {
                    self.update(id, |e| e.status = Status::Incomplete(message));
                }
                Recovery::Fail { message, retry } => {
                    self.update(id, |e| e.status = Status::Failed { message, retry });
                }
            },
        }
        Ok(())
    }
}

/// Polls the stream future and, after each poll, moves the text that arrived into the exchange.
struct StreamPump<'a> {
    fut: LocalFuture<Result<(), Failure>>,
    on_poll: &'a dyn Fn(),
}

impl std::future::Future for StreamPump<'_> {
    type Output = Result<(), Failure>;
    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        let r = self.fut.as_mut().poll(cx);
        (self.on_poll)();
        r
    }
}

#[cfg(test)]
mod tests;

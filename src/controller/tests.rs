//! The conversation flow end to end on the scripted transport (no browser).

use std::cell::RefCell;
use std::future::Future;
use std::rc::Rc;
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};

use super::*;
use crate::errors::Failure;
use crate::retrieval::BookIndex;
use crate::transport::{Script, ScriptedTransport};

struct Noop;
impl Wake for Noop {
    fn wake(self: Arc<Self>) {}
}

/// Polls `f` until it is ready (the scripted transport never waits on the outside world).
fn block_on<T>(f: impl Future<Output = T>) -> T {
    let mut f = Box::pin(f);
    let w = Waker::from(Arc::new(Noop));
    for _ in 0..10_000 {
        if let Poll::Ready(v) = f.as_mut().poll(&mut Context::from_waker(&w)) {
            return v;
        }
    }
    panic!("future never finished");
}

#[derive(Default)]
struct TestHost {
    saved: RefCell<Vec<String>>,
    changes: RefCell<Vec<Change>>,
    spawned: RefCell<Vec<LocalFuture<()>>>,
    path: RefCell<String>,
}

impl TestHost {
    fn run_spawned(&self) {
        let list: Vec<_> = self.spawned.borrow_mut().drain(..).collect();
        for f in list {
            block_on(f);
        }
    }
}

impl Host for TestHost {
    fn now_ms(&self) -> f64 {
        1_795_000_000_000.0
    }
    fn new_session_id(&self) -> String {
        "sid-1".into()
    }
    fn page(&self, selection: Option<String>) -> PageContext {
        PageContext {
            url: self.path.borrow().clone(),
            title: "Nodes".into(),
            section: None,
            selection,
        }
    }
    fn save(&self, json: &str) {
        self.saved.borrow_mut().push(json.to_string());
    }
    fn changed(&self, what: Change) {
        self.changes.borrow_mut().push(what);
    }
    fn spawn(&self, fut: LocalFuture<()>) {
        self.spawned.borrow_mut().push(fut);
    }
}

/// The answer core's tiny robotics book, searched by the real index.
fn retriever() -> Rc<dyn Retriever> {
    let (index, texts) = book_answer::testing::robot_book();
    Rc::new(BookIndex::new(index, texts))
}

fn setup(proxy: bool) -> (Rc<Conversation>, ScriptedTransport, Rc<TestHost>) {
    let t = ScriptedTransport::default();
    let host = Rc::new(TestHost::default());
    let config = Config {
        proxy_url: proxy.then(|| "/proxy/".to_string()),
        ..Config::default()
    };
    if proxy {
        t.set_get("/proxy/api/health", Ok(br#"{"upstream":"stub"}"#.to_vec()));
    }
    let env = Env {
        config,
        transport: Rc::new(t.clone()),
        index: IndexSource::Ready(retriever()),
    };
    let c = Conversation::new(env, host.clone(), None);
    (c, t, host)
}

#[test]
fn llm_answer_streams_into_the_exchange() {
    let (c, t, host) = setup(true);
    t.push(Script::answer(&["Nodes talk ", "over topics [1]."]));
    let id = c.ask("How do ROS nodes exchange messages?", None).unwrap();
    assert!(!block_on(c.clone().run(id)));
    let e = c.exchange(id).unwrap();
    assert_eq!(e.answer, "Nodes talk over topics [1].");
    assert_eq!(e.status, Status::Complete);
    assert_eq!(e.mode, Mode::Llm);
    assert!(e.confidence.is_some());
    assert_eq!(c.busy(), None);
    let (url, body) = t.requests.borrow()[0].clone();
    assert_eq!(url, "/proxy/api/chat");
    assert!(body.contains("exchange messages"));
    assert!(host.changes.borrow().contains(&Change::Exchange(id)));
    assert!(host.saved.borrow().last().unwrap().contains("over topics"));
}

#[test]
fn refusal_is_reported_to_the_proxy() {
    let (c, t, host) = setup(true);
    let id = c
        .ask("What is the best recipe for a chocolate cake?", None)
        .unwrap();
    block_on(c.clone().run(id));
    assert_eq!(c.exchange(id).unwrap().mode, Mode::Refusal);
    host.run_spawned();
    let reqs = t.requests.borrow();
    let (url, body) = reqs.last().unwrap();
    assert_eq!(url, "/proxy/api/feedback");
    let v: serde_json::Value = serde_json::from_str(body).unwrap();
    assert_eq!(v["rating"], "none");
    assert_eq!(v["refused"], true);
    assert_eq!(
        v["question"],
        "What is the best recipe for a chocolate cake?"
    );
    // No chat request was made for it.
    assert!(reqs.iter().all(|(u, _)| u != "/proxy/api/chat"));
}

#[test]
fn feedback_stops_when_the_proxy_keeps_none() {
    let (c, t, host) = setup(true);
    t.post_status.set(503);
    let cake = "What is the best recipe for a chocolate cake?";
    for _ in 0..2 {
        let id = c.ask(cake, None).unwrap();
        block_on(c.clone().run(id));
        host.run_spawned();
    }
    let posts = |t: &ScriptedTransport| {
        t.requests
            .borrow()
            .iter()
            .filter(|(u, _)| u.ends_with("/api/feedback"))
            .count()
    };
    // The first refusal is reported; the 503 switches reports off for this page.
    assert_eq!(posts(&t), 1);
    let (c, t, host) = setup(true);
    t.post_status.set(429);
    for _ in 0..2 {
        let id = c.ask(cake, None).unwrap();
        block_on(c.clone().run(id));
        host.run_spawned();
    }
    // A rate limit is not a "no": the next report is sent.
    assert_eq!(posts(&t), 2);
}

#[test]
fn thumbs_are_sent_with_cited_urls() {
    let (c, t, host) = setup(true);
    t.push(Script::answer(&["Over topics [1]."]));
    let id = c.ask("How do ROS nodes exchange messages?", None).unwrap();
    block_on(c.clone().run(id));
    c.rate(id, Rating::Up);
    host.run_spawned();
    let body = t.requests.borrow().last().unwrap().1.clone();
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["rating"], "up");
    assert_eq!(v["refused"], false);
    assert_eq!(v["session_id"], "sid-1");
    assert_eq!(v["cited_urls"].as_array().unwrap().len(), 1);
}

#[test]
fn no_proxy_answers_with_excerpts() {
    let (c, t, _) = setup(false);
    let id = c.ask("What is a ROS node?", None).unwrap();
    block_on(c.clone().run(id));
    let e = c.exchange(id).unwrap();
    assert_eq!(e.mode, Mode::Extractive);
    assert!(e.answer.contains("[1]"));
    assert_eq!(t.request_count(), 0);
}

#[test]
fn no_upstream_503_falls_back_to_excerpts() {
    let (c, t, _) = setup(true);
    t.push(Script::fail(Failure::Http {
        status: 503,
        retry_after: None,
        body: r#"{"error":{"code":"no_upstream","message":"none"}}"#.into(),
    }));
    let id = c.ask("What is a ROS node?", None).unwrap();
    block_on(c.clone().run(id));
    assert_eq!(c.exchange(id).unwrap().mode, Mode::Extractive);
}

#[test]
fn cut_stream_keeps_partial_and_failure_offers_retry() {
    let (c, t, _) = setup(true);
    t.push(Script::Chunks {
        chunks: vec![b"data: {\"choices\":[{\"delta\":{\"content\":\"Half\"}}]}\n\n".to_vec()],
        end: Ok(()),
    });
    let id = c.ask("How do ROS nodes exchange messages?", None).unwrap();
    assert!(!block_on(c.clone().run(id)));
    let e = c.exchange(id).unwrap();
    assert_eq!(e.answer, "Half");
    assert!(matches!(e.status, Status::Incomplete(_)));
    // A network failure before any text: failed, Retry offered, plain words.
    t.push(Script::fail(Failure::Network(
        "TypeError: Failed to fetch".into(),
    )));
    assert!(block_on(c.clone().run(id)));
    let Status::Failed { message, retry } = c.exchange(id).unwrap().status else {
        panic!()
    };
    assert!(retry);
    assert!(
        !message.contains("TypeError") && !message.contains('{'),
        "{message}"
    );
    // Retry answers.
    t.push(Script::answer(&["Fine [1]."]));
    assert!(!block_on(c.clone().run(id)));
    assert_eq!(c.exchange(id).unwrap().status, Status::Complete);
}

#[test]
fn selection_alone_asks_explain_this_and_busy_blocks() {
    let (c, t, _) = setup(true);
    let sel = crate::selection::capture("A node is a process in the ROS graph.").unwrap();
    let id = c.ask("  ", Some(sel)).unwrap();
    let e = c.exchange(id).unwrap();
    assert_eq!(e.question, EXPLAIN_THIS);
    assert!(e.selection.is_some());
    assert_eq!(
        c.ask("", None),
        Err(AskError::Invalid(QuestionError::Empty))
    );
    let id = c.ask("How do ROS nodes exchange messages?", None).unwrap();
    t.push(Script::Hang { chunks: vec![] });
    let mut run = Box::pin(c.clone().run(id));
    let w = Waker::from(Arc::new(Noop));
    assert!(run.as_mut().poll(&mut Context::from_waker(&w)).is_pending());
    assert_eq!(c.busy(), Some(id));
    assert_eq!(c.ask("Another question?", None), Err(AskError::Busy));
    c.stop();
    assert!(block_on(run));
    assert_eq!(c.busy(), None);
}

#[test]
fn preferences_persist_and_shape_the_prompt() {
    let (c, t, host) = setup(true);
    let prefs = Preferences {
        detail: crate::prefs::Detail::Basic,
        format: crate::prefs::Format::Examples,
        citations: false,
    };
    c.set_prefs(prefs);
    assert!(host.saved.borrow().last().unwrap().contains("\"basic\""));
    t.push(Script::answer(&["Ok."]));
    let id = c.ask("How do ROS nodes exchange messages?", None).unwrap();
    block_on(c.clone().run(id));
    let body = t.requests.borrow()[0].1.clone();
    assert!(body.contains("beginner"), "{body}");
    // New chat keeps them.
    c.new_chat();
    assert_eq!(c.prefs(), prefs);
    assert!(c.ids().is_empty());
    // A restored session keeps them too.
    let stored = host.saved.borrow().last().unwrap().clone();
    let env = Env {
        config: Config::default(),
        transport: Rc::new(ScriptedTransport::default()),
        index: IndexSource::Ready(retriever()),
    };
    assert_eq!(
        Conversation::new(env, host.clone(), Some(&stored)).prefs(),
        prefs
    );
}

#[test]
fn preferences_shape_excerpt_answers() {
    // No proxy: the excerpt answer follows the reader's current preferences too.
    let (c, _t, _host) = setup(false);
    let ask = |c: &Rc<Conversation>| {
        let id = c.ask("What is a ROS node?", None).unwrap();
        block_on(c.clone().run(id));
        c.exchange(id).unwrap()
    };
    let on = ask(&c);
    assert_eq!(on.mode, Mode::Extractive);
    assert!(on.answer.contains("” [1]"), "{}", on.answer);
    c.set_prefs(Preferences {
        citations: false,
        ..Preferences::default()
    });
    let off = ask(&c);
    assert_eq!(off.mode, Mode::Extractive);
    assert!(!off.answer.contains("” ["), "{}", off.answer);
    // The sources stay listed (the list shows the cited ones).
    assert!(!crate::citations::cited(&off.answer, off.sources.len()).is_empty());
}

#[test]
fn index_is_chosen_by_page_prefix_and_errors_are_plain() {
    let t = ScriptedTransport::default();
    let host = Rc::new(TestHost::default());
    *host.path.borrow_mut() = "/docs/2.0/intro".into();
    let config: Config = serde_json::from_str(
        r#"{"indexUrl":"/idx/","indexes":[{"prefix":"/docs/2.0/","indexUrl":"/idx2/"}]}"#,
    )
    .unwrap();
    let env = Env {
        config,
        transport: Rc::new(t.clone()),
        index: IndexSource::Download,
    };
    let c = Conversation::new(env, host.clone(), None);
    // The retrieval core's tiny book, served as the index builder writes it.
    let asset = book_retrieval::testing::asset();
    for name in [
        "manifest.json",
        &asset.manifest.files.index,
        &asset.manifest.files.chunks,
    ] {
        t.set_get(&format!("/idx2/{name}"), Ok(asset.file(name).unwrap()));
    }
    if let Err(e) = block_on(c.ensure_index()) {
        panic!("{e}");
    }
    assert_eq!(c.index_state(), IndexState::Ready);
    // Another version's page: its own index, which is missing here (404) -> a plain message that
    // does not blame the reader's connection.
    *host.path.borrow_mut() = "/docs/intro".into();
    let err = block_on(c.ensure_index()).err().unwrap();
    assert_eq!(err, IndexError::Missing);
    let text = err.to_string();
    assert!(
        text.contains("not on the site yet") && !text.contains("connection"),
        "{text}"
    );
    assert!(matches!(c.index_state(), IndexState::Failed(_)));
    // Any other failure of the manifest (here a 500) is a download failure, as before.
    t.set_get(
        "/idx/manifest.json",
        Err(Failure::Http {
            status: 500,
            retry_after: None,
            body: String::new(),
        }),
    );
    let err = block_on(c.ensure_index()).err().unwrap();
    assert!(matches!(err, IndexError::Download(_)), "{err:?}");
}

/// A host whose browser cannot inflate (no `DecompressionStream`), or inflates to garbage.
struct InflatingHost {
    host: TestHost,
    result: Result<Vec<u8>, crate::retrieval::InflateError>,
}

impl Host for InflatingHost {
    fn now_ms(&self) -> f64 {
        self.host.now_ms()
    }
    fn new_session_id(&self) -> String {
        self.host.new_session_id()
    }
    fn page(&self, selection: Option<String>) -> PageContext {
        self.host.page(selection)
    }
    fn save(&self, json: &str) {
        self.host.save(json)
    }
    fn changed(&self, what: Change) {
        self.host.changed(what)
    }
    fn spawn(&self, fut: LocalFuture<()>) {
        self.host.spawn(fut)
    }
    fn inflate(&self, _deflated: &[u8]) -> crate::retrieval::Inflated {
        let result = self.result.clone();
        Box::pin(async move { result })
    }
}

#[test]
fn an_index_the_browser_cannot_inflate_says_why() {
    use crate::retrieval::InflateError;
    let asset = book_retrieval::testing::asset();
    for (result, expected) in [
        (Err(InflateError::Unsupported), "too old"),
        (
            Err(InflateError::Damaged(
                "compressed section does not inflate".into(),
            )),
            "does not inflate",
        ),
        (Ok(b"[1, 2".to_vec()), "damaged"),
    ] {
        let t = ScriptedTransport::default();
        for name in [
            "manifest.json",
            &asset.manifest.files.index,
            &asset.manifest.files.chunks,
        ] {
            t.set_get(&format!("/idx/{name}"), Ok(asset.file(name).unwrap()));
        }
        let env = Env {
            config: serde_json::from_str(r#"{"indexUrl":"/idx/"}"#).unwrap(),
            transport: Rc::new(t),
            index: IndexSource::Download,
        };
        let host = Rc::new(InflatingHost {
            host: TestHost::default(),
            result,
        });
        let c = Conversation::new(env, host, None);
        let err = block_on(c.ensure_index()).err().expect("refused");
        assert!(err.to_string().contains(expected), "{err}");
        assert!(matches!(c.index_state(), IndexState::Failed(_)));
    }
}

#[test]
fn a_clicked_suggestion_is_asked_with_the_section_that_offered_it() {
    let (c, _, _) = setup(false);
    let id = c.ask("What is a ROS node?", None).unwrap();
    block_on(c.clone().run(id));
    let offered = c.exchange(id).unwrap().suggestions;
    let s = offered.first().expect("the answer offers follow-ups");
    assert!(!s.url.is_empty(), "{s:?}");
    let clicked = c.ask_suggestion(s, None).unwrap();
    let e = c.exchange(clicked).unwrap();
    assert_eq!(e.question, s.question);
    assert_eq!(e.offered_by.as_deref(), Some(s.url.as_str()));
    block_on(c.clone().run(clicked));
    let e = c.exchange(clicked).unwrap();
    assert_eq!(e.status, Status::Complete);
    assert_eq!(
        e.offered_by.as_deref(),
        Some(s.url.as_str()),
        "kept for Retry"
    );
    // A suggestion restored from an older widget has no section: asked as typed.
    let old = Suggestion {
        question: s.question.clone(),
        url: String::new(),
    };
    let id = c.ask_suggestion(&old, None).unwrap();
    assert_eq!(c.exchange(id).unwrap().offered_by, None);
}

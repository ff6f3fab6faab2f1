//! Browser tests of the widget (headless Chromium via wasm-bindgen-test-runner):
//! `cargo test -p book-chat --target wasm32-unknown-unknown` (CHROMEDRIVER=/usr/bin/chromedriver).
#![cfg(target_arch = "wasm32")]

use std::rc::Rc;

use book_chat::errors::Failure;
use book_chat::retrieval::BookIndex;
use book_chat::transport::{Script, ScriptedTransport};
use book_chat::ui::{self, Config, Env, IndexSource};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlTextAreaElement, ShadowRoot};

wasm_bindgen_test_configure!(run_in_browser);

const PROXY: &str = "http://proxy.test";

/// The answer core's tiny robotics book, searched by the real index.
fn retriever() -> Rc<BookIndex> {
    let (index, texts) = book_answer::testing::robot_book();
    Rc::new(BookIndex::new(index, texts))
}

async fn sleep(ms: i32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = JsFuture::from(p).await;
}

async fn settle() {
    for _ in 0..4 {
        leptos::task::tick().await;
        sleep(5).await;
    }
}

struct W {
    t: ScriptedTransport,
    root: ShadowRoot,
}

impl W {
    fn q(&self, sel: &str) -> Option<Element> {
        self.root.query_selector(sel).unwrap()
    }
    fn all(&self, sel: &str) -> Vec<Element> {
        let l = self.root.query_selector_all(sel).unwrap();
        (0..l.length())
            .filter_map(|i| l.item(i)?.dyn_into().ok())
            .collect()
    }
    fn text(&self, sel: &str) -> String {
        self.all(sel)
            .iter()
            .map(|e| e.text_content().unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n")
    }
    fn button(&self, name: &str) -> Option<HtmlElement> {
        self.all("button").into_iter().find_map(|b| {
            let label = b
                .get_attribute("aria-label")
                .unwrap_or_else(|| b.text_content().unwrap_or_default());
            (label.trim() == name).then(|| b.dyn_into().unwrap())
        })
    }
    async fn click(&self, name: &str) {
        self.button(name)
            .unwrap_or_else(|| panic!("no button {name}"))
            .click();
        settle().await;
    }
    async fn open(&self) {
        self.click("Ask the book").await;
    }
    async fn ask(&self, question: &str) {
        let ta: HtmlTextAreaElement = self
            .q("textarea[aria-label='Your question']")
            .unwrap()
            .dyn_into()
            .unwrap();
        ta.set_value(question);
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        ta.dispatch_event(&web_sys::Event::new_with_event_init_dict("input", &init).unwrap())
            .unwrap();
        settle().await;
        self.click("Send").await;
        settle().await;
    }
}

async fn setup(proxy: bool, clear: bool) -> W {
    // The parser the Markdown module runs, linked directly (a test page has no module to import).
    book_chat::markdown::install(Rc::new(|md: &str| Some(book_markdown::parse(md))));
    ui::unmount();
    if clear {
        web_sys::window()
            .unwrap()
            .local_storage()
            .unwrap()
            .unwrap()
            .clear()
            .unwrap();
    }
    let t = ScriptedTransport::default();
    let env = Env {
        config: Config {
            proxy_url: proxy.then(|| PROXY.to_string()),
            ..Config::default()
        },
        transport: Rc::new(t.clone()),
        index: IndexSource::Ready(retriever()),
    };
    let host = ui::mount(env, false).unwrap();
    settle().await;
    let root = host.shadow_root().unwrap();
    W { t, root }
}

#[wasm_bindgen_test]
async fn mounts_opens_traps_and_closes() {
    let w = setup(false, true).await;
    assert!(w.button("Ask the book").is_some());
    assert!(w.q("[role=dialog]").is_none());
    w.open().await;
    let dialog = w.q("[role=dialog]").expect("dialog");
    assert_eq!(dialog.get_attribute("aria-modal").as_deref(), Some("true"));
    sleep(20).await;
    let active = w.root.active_element().expect("focus inside the widget");
    assert_eq!(
        active.get_attribute("aria-label").as_deref(),
        Some("Your question")
    );
    assert!(w.q("[role=log][aria-live=polite]").is_some());
    // Esc closes and focus returns.
    let init = web_sys::KeyboardEventInit::new();
    init.set_key("Escape");
    init.set_bubbles(true);
    active
        .dispatch_event(
            &web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap(),
        )
        .unwrap();
    settle().await;
    assert!(w.q("[role=dialog]").is_none(), "Esc closes the panel");
}

#[wasm_bindgen_test]
async fn validation_messages_are_shown() {
    let w = setup(false, true).await;
    w.open().await;
    w.ask("").await;
    assert!(
        w.text("[role=alert]").contains("Type a question first"),
        "{}",
        w.text("[role=alert]")
    );
    w.ask("   ").await;
    assert!(w.text("[role=alert]").contains("only spaces"));
    w.ask(&"a".repeat(1001)).await;
    assert!(w.text("[role=alert]").contains("1001"));
    assert!(w.text(".bc-counter").contains("1001 / 1000"));
    assert!(w.all(".bc-turn").is_empty(), "nothing was sent");
}

#[wasm_bindgen_test]
async fn refusal_makes_no_llm_call() {
    let w = setup(true, true).await;
    w.open().await;
    // Shares one word with the book: refused, with the nearest sections listed.
    w.ask("best pizza dough recipe for a node").await;
    assert!(
        w.text(".bc-a")
            .contains("couldn't find an answer to this in the book"),
        "{}",
        w.text(".bc-a")
    );
    let chat = |u: &String| u.ends_with("/api/chat");
    assert_eq!(
        w.t.requests
            .borrow()
            .iter()
            .filter(|(u, _)| chat(u))
            .count(),
        0,
        "no chat request"
    );
    // The refusal itself is reported (rating "none", refused) for the authors' gap report.
    assert_eq!(w.t.request_count(), 1);
    assert!(w.t.requests.borrow()[0].1.contains("\"refused\":true"));
    assert!(w
        .q("ol[aria-label='Nearest sections'] a[href='/docs/ros#nodes']")
        .is_some());
    // A way on: the questions the nearest sections answer are offered.
    assert!(
        w.q(".bc-sugg button").is_some(),
        "no follow-up under the refusal"
    );
}

#[wasm_bindgen_test]
async fn citations_link_to_sources_and_bad_numbers_vanish() {
    let w = setup(true, true).await;
    w.t.push(Script::answer(&[
        "A node is a process in the ROS graph [1]",
        ". Bogus claim [7].",
    ]));
    w.open().await;
    w.ask("What is a ROS node?").await;
    let answer = w.text(".bc-a");
    assert!(answer.contains("A node is a process"), "{answer}");
    assert!(!answer.contains("[7]"), "{answer}");
    let cites = w.all(".bc-a a.bc-cite");
    assert_eq!(cites.len(), 1);
    assert_eq!(
        cites[0].get_attribute("href").as_deref(),
        Some("/docs/ros#nodes")
    );
    let src = w.q("ol[aria-label=Sources] a").expect("Sources list");
    assert_eq!(src.text_content().as_deref(), Some("ROS 2 › Nodes"));
    assert_eq!(w.t.request_count(), 1);
    assert!(w.t.requests.borrow()[0].0.ends_with("/api/chat"));
    assert!(w.text(".bc-meta").contains("confidence"));
}

#[wasm_bindgen_test]
async fn model_markup_stays_inert() {
    let w = setup(true, true).await;
    w.t.push(Script::answer(&[
        "Hi <script>window.__bc_pwn=1</script> <img src=x onerror=\"window.__bc_pwn=2\"> ",
        "[click](javascript:window.__bc_pwn=3) [ok](https://ros.org) [1]\n\n<div onclick=\"x()\">d</div>",
    ]));
    w.open().await;
    w.ask("What is a ROS node?").await;
    sleep(50).await;
    assert!(w
        .all(".bc-a script, .bc-a img, .bc-a div[onclick], .bc-a [onerror]")
        .is_empty());
    assert!(w.all(".bc-a a[href^='javascript']").is_empty());
    assert!(w.q(".bc-a a[href='https://ros.org']").is_some());
    let pwn = js_sys::Reflect::get(&web_sys::window().unwrap(), &"__bc_pwn".into()).unwrap();
    assert!(pwn.is_undefined());
    assert!(w.text(".bc-a").contains("click"));
}

#[wasm_bindgen_test]
async fn without_the_markdown_module_answers_are_plain_text_with_citations() {
    let w = setup(true, true).await;
    // A parser that fails is what a page sees before the module arrives or when it did not load.
    book_chat::markdown::install(Rc::new(|_: &str| None));
    w.t.push(Script::answer(&[
        "A node is **a process** [1].\n\n```sh\nros2 run\n```",
    ]));
    w.open().await;
    w.ask("What is a ROS node?").await;
    let answer = w.text(".bc-a");
    assert!(answer.contains("A node is **a process**"), "{answer}");
    assert!(answer.contains("```sh"), "{answer}");
    assert!(w.all(".bc-a strong, .bc-a pre").is_empty());
    assert_eq!(w.all(".bc-a a.bc-cite").len(), 1);
}

#[wasm_bindgen_test]
async fn extractive_mode_without_proxy() {
    let w = setup(false, true).await;
    w.open().await;
    w.ask("What is a ROS node?").await;
    let a = w.text(".bc-a");
    assert!(a.contains("Excerpts from the book"), "{a}");
    assert!(a.contains("A node is a process"));
    assert!(!w.all(".bc-a a.bc-cite").is_empty());
    assert!(w.q("ol[aria-label=Sources]").is_some());
    assert_eq!(w.t.request_count(), 0);
}

#[wasm_bindgen_test]
async fn session_is_restored_after_reload() {
    let w = setup(false, true).await;
    w.open().await;
    w.ask("What is a ROS node?").await;
    let w2 = setup(false, false).await;
    if w2.q("[role=dialog]").is_none() {
        w2.open().await;
    }
    settle().await;
    assert!(
        w2.text(".bc-q").contains("What is a ROS node?"),
        "{}",
        w2.text(".bc-log")
    );
    assert!(w2.text(".bc-a").contains("Excerpts"));
    w2.click("New chat").await;
    assert!(w2.all(".bc-turn").is_empty());
}

#[wasm_bindgen_test]
async fn no_upstream_switches_to_extractive() {
    let w = setup(true, true).await;
    w.t.push(Script::fail(Failure::Http {
        status: 503,
        retry_after: None,
        body: "{\"error\":{\"code\":\"no_upstream\",\"message\":\"none\"}}".into(),
    }));
    w.open().await;
    w.ask("What is a ROS node?").await;
    assert!(w.text(".bc-a").contains("Excerpts from the book"));
}

#[wasm_bindgen_test]
async fn errors_rate_limit_network_and_stop() {
    let w = setup(true, true).await;
    w.open().await;
    w.t.push(Script::fail(Failure::Http {
        status: 429,
        retry_after: Some(7),
        body: String::new(),
    }));
    w.ask("What is a ROS node?").await;
    assert!(w.text(".bc-a").contains("wait 7 s"), "{}", w.text(".bc-a"));

    w.t.push(Script::fail(Failure::Network("down".into())));
    w.ask("What are topics?").await;
    assert!(w.text(".bc-a").contains("Can't reach"));
    let ta: HtmlTextAreaElement = w.q("textarea").unwrap().dyn_into().unwrap();
    assert_eq!(ta.value(), "What are topics?", "the typed question is kept");
    w.t.push(Script::answer(&["Topics carry messages [1]."]));
    let retry = w
        .all(".bc-turn")
        .last()
        .unwrap()
        .query_selector("button.bc-btn")
        .unwrap()
        .unwrap();
    assert_eq!(retry.text_content().as_deref(), Some("Retry"));
    retry.dyn_into::<HtmlElement>().unwrap().click();
    settle().await;
    assert!(
        w.text(".bc-a").contains("Topics carry messages"),
        "{}",
        w.text(".bc-log")
    );

    // Stop keeps the partial answer, marked incomplete; Send comes back.
    w.t.push(Script::Hang {
        chunks: vec![
            b"data: {\"choices\":[{\"delta\":{\"content\":\"Partial text\"}}]}\n\n".to_vec(),
        ],
    });
    w.ask("What is a node?").await;
    assert!(w.button("Stop").is_some());
    w.click("Stop").await;
    assert!(w.text(".bc-a").contains("Partial text"));
    assert!(w.text(".bc-a").contains("Stopped."));
    assert!(w.button("Send").is_some());

    // A stream cut mid-answer keeps the partial text.
    w.t.push(Script::Chunks {
        chunks: vec![
            b"data: {\"choices\":[{\"delta\":{\"content\":\"Half an answer\"}}]}\n\n".to_vec(),
        ],
        end: Ok(()),
    });
    w.ask("What is a ROS node?").await;
    assert!(w.text(".bc-a").contains("Half an answer"));
    assert!(w.text(".bc-a").contains("Incomplete answer"));
}

/// Issue 12: exchanges asked while the panel was open must survive the panel closing (their state
/// used to be owned by the panel, disposed on Escape, and read again on reopening: a panic).
#[wasm_bindgen_test]
async fn exchanges_survive_closing_and_reopening() {
    let w = setup(true, true).await;
    w.open().await;
    w.t.push(Script::answer(&[
        "Nodes exchange messages over topics [1].",
    ]));
    w.ask("How do nodes exchange messages in ROS 2?").await;
    w.ask("What is the best recipe for a chocolate cake?").await;
    assert!(w
        .text(".bc-a")
        .contains("couldn't find an answer to this in the book"));
    w.click("Close").await;
    assert!(w.q("[role=dialog]").is_none());
    w.open().await;
    assert_eq!(w.all(".bc-turn").len(), 2);
    w.ask("Another off-topic pizza question?").await;
    assert_eq!(w.all(".bc-turn").len(), 3);
    w.click("Close").await;
    w.open().await;
    assert!(w.text(".bc-q").contains("pizza"));
    // The refusals were reported to the proxy (contract 2).
    let reports =
        w.t.requests
            .borrow()
            .iter()
            .filter(|(u, b)| u.ends_with("/api/feedback") && b.contains("\"refused\":true"))
            .count();
    assert_eq!(reports, 2);
}

#[wasm_bindgen_test]
async fn settings_change_the_prompt_and_persist() {
    let w = setup(true, true).await;
    w.open().await;
    w.click("Answer settings").await;
    let select: web_sys::HtmlSelectElement =
        w.q(".bc-settings select").unwrap().dyn_into().unwrap();
    select.set_value("basic");
    let init = web_sys::EventInit::new();
    init.set_bubbles(true);
    select
        .dispatch_event(&web_sys::Event::new_with_event_init_dict("change", &init).unwrap())
        .unwrap();
    settle().await;
    w.t.push(Script::answer(&["Simple words [1]."]));
    w.ask("What is a ROS node?").await;
    let body =
        w.t.requests
            .borrow()
            .iter()
            .find(|(u, _)| u.ends_with("/api/chat"))
            .unwrap()
            .1
            .clone();
    assert!(body.contains("beginner"), "{body}");
    let stored = web_sys::window()
        .unwrap()
        .local_storage()
        .unwrap()
        .unwrap()
        .get_item(book_chat::session::STORAGE_KEY)
        .unwrap()
        .unwrap();
    assert!(stored.contains("\"basic\""), "{stored}");
}

/// The encoder's int8 products in the browser (the wasm SIMD tile kernel, with its leftover
/// tokens, odd last row and tail columns) equal plain integer dot products; and its speed
/// against row-by-row dot products, printed for the record (asserts no time).
#[wasm_bindgen_test]
fn int8_products_in_the_browser_are_exact() {
    use book_retrieval::encoder::{dot_i8, gemm_i8};
    let val = |i: usize, m: usize| ((i * m + 7) % 255) as u8 as i8;
    for (width, rows, toks) in [(16, 4, 1), (17, 5, 3), (384, 9, 7), (40, 3, 2), (64, 1, 5)] {
        let xs: Vec<i8> = (0..width * toks).map(|i| val(i, 13)).collect();
        let w: Vec<i8> = (0..width * rows).map(|i| val(i, 29)).collect();
        let mut got = vec![0i32; rows * toks];
        gemm_i8(&xs, toks, &w, &mut got);
        let want: Vec<i32> = xs
            .chunks_exact(width)
            .flat_map(|x| {
                w.chunks_exact(width).map(move |r| {
                    r.iter()
                        .zip(x)
                        .map(|(&a, &b)| a as i32 * b as i32)
                        .sum::<i32>()
                })
            })
            .collect();
        assert_eq!(got, want, "width={width} rows={rows} toks={toks}");
    }
    // The FFN expansion of one 30-token sentence: 1536 rows of 384.
    let (width, rows, toks) = (384, 1536, 30);
    let xs: Vec<i8> = (0..width * toks).map(|i| val(i, 13)).collect();
    let w: Vec<i8> = (0..width * rows).map(|i| val(i, 29)).collect();
    let mut out = vec![0i32; rows * toks];
    let perf = web_sys::window().and_then(|w| w.performance());
    let now = || perf.as_ref().map_or(0.0, |p| p.now());
    let (mut tiled, mut by_rows) = (f64::MAX, f64::MAX);
    for _ in 0..5 {
        let t0 = now();
        gemm_i8(&xs, toks, &w, &mut out);
        let t1 = now();
        for (j, row) in w.chunks_exact(width).enumerate() {
            for (t, x) in xs.chunks_exact(width).enumerate() {
                out[t * rows + j] = dot_i8(x, row);
            }
        }
        let t2 = now();
        tiled = tiled.min(t1 - t0);
        by_rows = by_rows.min(t2 - t1);
    }
    console_log!("figure: int8 product 30×384 · 384×1536 in the browser: tiled {tiled:.2} ms, row by row {by_rows:.2} ms");
}

#[wasm_bindgen_test]
async fn the_browser_inflates_the_index_sections_as_the_core_does() {
    // A deflated section as the index builder writes it: the texts file's JSON array.
    let texts: Vec<String> = (0..200)
        .map(|i| format!("Passage {i}: a node publishes on a topic, ünïcödé ✓."))
        .collect();
    let file = book_retrieval::ChunkTexts::new("h".into(), texts)
        .to_bytes()
        .unwrap();
    let opened = book_retrieval::ChunkTexts::open(&file, "h", 200).unwrap();
    let deflated = opened.deflated().to_vec();
    let by_core = book_retrieval::inflate(&deflated).unwrap();
    let by_browser = ui::web::inflate(&deflated).await.unwrap();
    assert_eq!(by_browser, by_core);
    assert_eq!(opened.finish(&by_browser).unwrap().len(), 200);
    // Bytes that are not deflate, or cut short, are an error, never a panic or a hang.
    let cut = deflated[..deflated.len() / 2].to_vec();
    assert!(ui::web::inflate(&cut).await.is_err());
    assert!(ui::web::inflate(b"not deflate at all").await.is_err());
}

//! The network behind a trait, so the component can be tested without a server: the browser
//! implementation (`ui::web::WebTransport`) uses `fetch` with a streaming body reader and an AbortController;
//! [`ScriptedTransport`] replays canned responses and records what was sent.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use crate::errors::Failure;

/// A boxed single-threaded future (the browser has one thread).
pub type LocalFuture<T> = Pin<Box<dyn Future<Output = T>>>;

/// Receives body bytes as they arrive.
pub type BytesSink = Box<dyn FnMut(&[u8])>;

/// The widget's network needs.
pub trait Transport {
    /// POSTs a JSON `body` to `url` and feeds the response body to `sink` as it streams in.
    /// Resolves `Ok` when the body ends normally; non-2xx statuses are `Failure::Http`.
    fn stream(&self, url: &str, body: String, sink: BytesSink) -> LocalFuture<Result<(), Failure>>;
    /// POSTs a JSON `body` to `url` and returns the status.
    fn post(&self, url: &str, body: String) -> LocalFuture<Result<u16, Failure>>;
    /// GETs `url` in full.
    fn get(&self, url: &str) -> LocalFuture<Result<Vec<u8>, Failure>>;
    /// Aborts the running `stream`, which then resolves `Err(Failure::Aborted)`.
    fn abort(&self);
}

/// A canned answer to the next `stream` call.
#[derive(Debug, Clone)]
pub enum Script {
    /// Deliver these body chunks, then end with `end`.
    Chunks {
        /// The response body, one entry per delivered chunk.
        chunks: Vec<Vec<u8>>,
        /// How the stream ends: `Ok` for a clean end, or the failure to report.
        end: Result<(), Failure>,
    },
    /// Deliver these chunks, then wait until aborted.
    Hang {
        /// The body chunks delivered before the stream stalls.
        chunks: Vec<Vec<u8>>,
    },
}

impl Script {
    /// An OpenAI-style stream of `parts`, ending with `[DONE]`.
    pub fn answer(parts: &[&str]) -> Self {
        let mut chunks: Vec<Vec<u8>> = parts
            .iter()
            .map(|p| {
                let v = serde_json::json!({"choices": [{"index": 0, "delta": {"content": p}}]});
                format!("data: {v}\n\n").into_bytes()
            })
            .collect();
        chunks.push(b"data: [DONE]\n\n".to_vec());
        Script::Chunks {
            chunks,
            end: Ok(()),
        }
    }

    /// A failure before any body.
    pub fn fail(f: Failure) -> Self {
        Script::Chunks {
            chunks: Vec::new(),
            end: Err(f),
        }
    }
}

/// A canned GET result.
type GetResult = Result<Vec<u8>, Failure>;

#[derive(Default)]
struct AbortState {
    aborted: bool,
    waker: Option<Waker>,
}

struct WaitAbort(Rc<RefCell<AbortState>>);

impl Future for WaitAbort {
    type Output = ();
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let mut st = self.0.borrow_mut();
        if st.aborted {
            Poll::Ready(())
        } else {
            st.waker = Some(cx.waker().clone());
            Poll::Pending
        }
    }
}

/// A test transport: scripted streams, fixed GET bodies, and a log of every request.
#[derive(Default, Clone)]
pub struct ScriptedTransport {
    scripts: Rc<RefCell<VecDeque<Script>>>,
    gets: Rc<RefCell<HashMap<String, GetResult>>>,
    /// (url, body) of every POST, in order.
    pub requests: Rc<RefCell<Vec<(String, String)>>>,
    /// Status every POST answers with (0 means 204).
    pub post_status: Rc<Cell<u16>>,
    abort: Rc<RefCell<AbortState>>,
}

impl ScriptedTransport {
    /// Queues the answer to the next `stream` call.
    pub fn push(&self, s: Script) {
        self.scripts.borrow_mut().push_back(s);
    }
    /// Sets the body returned for GET `url`.
    pub fn set_get(&self, url: &str, r: Result<Vec<u8>, Failure>) {
        self.gets.borrow_mut().insert(url.to_string(), r);
    }
    /// Number of POSTs made so far.
    pub fn request_count(&self) -> usize {
        self.requests.borrow().len()
    }
}

impl Transport for ScriptedTransport {
    fn stream(
        &self,
        url: &str,
        body: String,
        mut sink: BytesSink,
    ) -> LocalFuture<Result<(), Failure>> {
        self.requests.borrow_mut().push((url.to_string(), body));
        *self.abort.borrow_mut() = AbortState::default();
        let script = self.scripts.borrow_mut().pop_front();
        let abort = self.abort.clone();
        Box::pin(async move {
            match script {
                None => Err(Failure::Network("no scripted response".into())),
                Some(Script::Chunks { chunks, end }) => {
                    for c in chunks {
                        if abort.borrow().aborted {
                            return Err(Failure::Aborted);
                        }
                        sink(&c);
                    }
                    end
                }
                Some(Script::Hang { chunks }) => {
                    for c in chunks {
                        sink(&c);
                    }
                    WaitAbort(abort).await;
                    Err(Failure::Aborted)
                }
            }
        })
    }

    fn post(&self, url: &str, body: String) -> LocalFuture<Result<u16, Failure>> {
        self.requests.borrow_mut().push((url.to_string(), body));
        let status = match self.post_status.get() {
            0 => 204,
            s => s,
        };
        Box::pin(async move { Ok(status) })
    }

    fn get(&self, url: &str) -> LocalFuture<Result<Vec<u8>, Failure>> {
        let r = self.gets.borrow().get(url).cloned().unwrap_or_else(|| {
            Err(Failure::Http {
                status: 404,
                retry_after: None,
                body: String::new(),
            })
        });
        Box::pin(async move { r })
    }

    fn abort(&self) {
        let mut st = self.abort.borrow_mut();
        st.aborted = true;
        if let Some(w) = st.waker.take() {
            w.wake();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::task::Wake;

    struct Noop;
    impl Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }

    fn poll_once<T>(f: &mut LocalFuture<T>) -> Poll<T> {
        let w = Waker::from(Arc::new(Noop));
        f.as_mut().poll(&mut Context::from_waker(&w))
    }

    #[test]
    fn scripted_stream_delivers_and_records() {
        let t = ScriptedTransport::default();
        t.push(Script::answer(&["Hi"]));
        let got = Rc::new(RefCell::new(Vec::new()));
        let g = got.clone();
        let mut f = t.stream(
            "/api/chat",
            "{}".into(),
            Box::new(move |b| g.borrow_mut().extend_from_slice(b)),
        );
        assert!(matches!(poll_once(&mut f), Poll::Ready(Ok(()))));
        assert!(String::from_utf8_lossy(&got.borrow()).contains("[DONE]"));
        assert_eq!(t.request_count(), 1);
    }

    #[test]
    fn hang_resolves_on_abort() {
        let t = ScriptedTransport::default();
        t.push(Script::Hang { chunks: vec![] });
        let mut f = t.stream("/api/chat", "{}".into(), Box::new(|_| {}));
        assert!(poll_once(&mut f).is_pending());
        t.abort();
        assert!(matches!(
            poll_once(&mut f),
            Poll::Ready(Err(Failure::Aborted))
        ));
    }

    #[test]
    fn unscripted_is_network_error() {
        let t = ScriptedTransport::default();
        let mut f = t.stream("/x", String::new(), Box::new(|_| {}));
        assert!(matches!(
            poll_once(&mut f),
            Poll::Ready(Err(Failure::Network(_)))
        ));
    }
}

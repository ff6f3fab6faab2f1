//! Re-framing of the upstream's SSE stream into whole, checked events.
//!
//! Hand-written rather than an SSE crate because the proxy must forward the upstream's bytes
//! as they arrive (no decoding into typed events and re-encoding) and only needs three
//! facts from each event: is it complete, is its `data` valid JSON (or `[DONE]`), and is it an
//! in-band error. Bytes are held back only until the blank line that ends an event.
//!
//! Policy on malformed chunks: an event whose `data` is neither `[DONE]` nor valid JSON ends
//! the stream with an `upstream_malformed` error event. The widget can then trust that every
//! `data:` it receives is a JSON chunk, and the reader sees a clear error instead of a silently
//! garbled answer. An in-band `data: {"error": ...}` from the upstream ends the stream the same
//! way with code `upstream_error`.

use serde::Deserialize;

/// Longest line accepted from the upstream (a guard against unbounded memory).
pub const MAX_LINE: usize = 1 << 20;

/// Why the stream had to stop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// `data` that is neither JSON nor `[DONE]`, or a line longer than [`MAX_LINE`].
    Malformed(String),
    /// The upstream reported an error inside the stream; its message.
    InBandError(String),
}

/// What one push produced: whole events to forward, then possibly a reason to stop.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Pushed {
    /// Complete events, ready to send to the client as they are.
    pub forward: Vec<u8>,
    /// Set when the stream must end after `forward` (no more input will be read).
    pub problem: Option<Problem>,
}

/// Splits bytes into SSE events and checks each one.
#[derive(Debug, Default)]
pub struct SseFramer {
    line: Vec<u8>,
    event: Vec<u8>,
    data: Vec<u8>,
    has_data: bool,
    done: bool,
    stopped: bool,
    usage: Option<u64>,
    content_chars: usize,
}

#[derive(Deserialize)]
struct Probe {
    #[serde(default)]
    error: Option<serde_json::Value>,
    #[serde(default)]
    usage: Option<Usage>,
    #[serde(default)]
    choices: Vec<ProbeChoice>,
}

#[derive(Deserialize)]
struct Usage {
    #[serde(default)]
    total_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct ProbeChoice {
    #[serde(default)]
    delta: Option<ProbeDelta>,
}

#[derive(Deserialize)]
struct ProbeDelta {
    #[serde(default)]
    content: Option<String>,
}

impl SseFramer {
    /// A framer at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// `usage.total_tokens` of the stream, if the upstream sent it.
    pub fn usage(&self) -> Option<u64> {
        self.usage
    }

    /// Characters of answer text relayed so far (for estimating tokens without `usage`).
    pub fn content_chars(&self) -> usize {
        self.content_chars
    }

    /// True once `data: [DONE]` has been forwarded.
    pub fn saw_done(&self) -> bool {
        self.done
    }

    /// Feeds upstream bytes; returns the complete events among them.
    /// After `[DONE]` or a problem, further input is ignored.
    pub fn push(&mut self, bytes: &[u8]) -> Pushed {
        let mut out = Pushed::default();
        if self.done || self.stopped {
            return out;
        }
        let mut rest = bytes;
        while let Some(pos) = rest.iter().position(|&b| b == b'\n') {
            let (head, tail) = rest.split_at(pos);
            rest = &tail[1..];
            if self.line.len() + head.len() > MAX_LINE {
                return self.stop(
                    out,
                    Problem::Malformed("upstream sent an over-long line".into()),
                );
            }
            self.line.extend_from_slice(head);
            let mut line = std::mem::take(&mut self.line);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if let Some(problem) = self.take_line(&line, &mut out.forward) {
                return self.stop(out, problem);
            }
            self.line = line;
            self.line.clear();
            if self.done {
                return out;
            }
        }
        if self.line.len() + rest.len() > MAX_LINE {
            return self.stop(
                out,
                Problem::Malformed("upstream sent an over-long line".into()),
            );
        }
        self.line.extend_from_slice(rest);
        out
    }

    /// The upstream closed: a last event without its blank line still counts if it is whole.
    pub fn finish(&mut self) -> Pushed {
        let mut out = Pushed::default();
        if self.done || self.stopped {
            return out;
        }
        if !self.line.is_empty() {
            let line = std::mem::take(&mut self.line);
            if let Some(p) = self.take_line(&line, &mut out.forward) {
                return self.stop(out, p);
            }
        }
        if let Some(p) = self.take_line(b"", &mut out.forward) {
            return self.stop(out, p);
        }
        out
    }

    fn stop(&mut self, mut out: Pushed, problem: Problem) -> Pushed {
        self.stopped = true;
        out.problem = Some(problem);
        out
    }

    /// Handles one line (without its newline). Returns a problem when the stream must stop.
    fn take_line(&mut self, line: &[u8], forward: &mut Vec<u8>) -> Option<Problem> {
        if line.is_empty() {
            if self.event.is_empty() {
                return None;
            }
            if self.has_data {
                if let Some(p) = self.check_data() {
                    return Some(p);
                }
            }
            forward.extend_from_slice(&self.event);
            forward.push(b'\n');
            self.event.clear();
            self.data.clear();
            self.has_data = false;
            return None;
        }
        if let Some(value) = line.strip_prefix(b"data:") {
            let value = value.strip_prefix(b" ").unwrap_or(value);
            if self.has_data {
                self.data.push(b'\n');
            }
            self.data.extend_from_slice(value);
            self.has_data = true;
        }
        self.event.extend_from_slice(line);
        self.event.push(b'\n');
        None
    }

    fn check_data(&mut self) -> Option<Problem> {
        if self.data.as_slice() == b"[DONE]" {
            self.done = true;
            return None;
        }
        match serde_json::from_slice::<Probe>(&self.data) {
            Ok(Probe {
                error: Some(err), ..
            }) => Some(Problem::InBandError(error_message(&err))),
            Ok(Probe {
                error: None,
                usage,
                choices,
            }) => {
                if let Some(t) = usage.and_then(|u| u.total_tokens) {
                    self.usage = Some(t);
                }
                self.content_chars += choices
                    .iter()
                    .filter_map(|c| c.delta.as_ref()?.content.as_ref())
                    .map(|c| c.chars().count())
                    .sum::<usize>();
                None
            }
            Err(_) => Some(Problem::Malformed(
                "the model sent a chunk that is not valid JSON".into(),
            )),
        }
    }
}

/// The human part of an OpenAI-style error value (`{"message":..}` or a bare string).
pub fn error_message(err: &serde_json::Value) -> String {
    match err {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Object(o) => o
            .get("message")
            .and_then(|m| m.as_str())
            .unwrap_or("the model reported an error")
            .to_string(),
        _ => "the model reported an error".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const GOOD: &str = "data: {\"choices\":[{\"delta\":{\"content\":\"Hel\"}}]}\n\n\
: keep-alive\n\n\
data: {\"choices\":[{\"delta\":{\"content\":\"lo\"}}]}\r\n\r\n\
data: [DONE]\n\n";

    fn run(chunks: &[&[u8]]) -> (Vec<u8>, Option<Problem>, bool) {
        let mut f = SseFramer::new();
        let mut out = Vec::new();
        for c in chunks {
            let p = f.push(c);
            out.extend(p.forward);
            if p.problem.is_some() {
                return (out, p.problem, f.saw_done());
            }
        }
        let p = f.finish();
        out.extend(p.forward);
        (out, p.problem, f.saw_done())
    }

    #[test]
    fn good_stream_passes_whole_and_normalised() {
        let (out, problem, done) = run(&[GOOD.as_bytes()]);
        assert_eq!(problem, None);
        assert!(done);
        let s = String::from_utf8(out).unwrap();
        assert_eq!(s, GOOD.replace("\r\n", "\n"));
    }

    #[test]
    fn partial_event_is_held_until_blank_line() {
        let mut f = SseFramer::new();
        assert!(f.push(b"data: {\"a\":").forward.is_empty());
        assert!(f.push(b"1}\n").forward.is_empty());
        assert_eq!(f.push(b"\n").forward, b"data: {\"a\":1}\n\n");
    }

    #[test]
    fn malformed_data_stops_after_good_events() {
        let (out, problem, _) =
            run(&[b"data: {\"ok\":1}\n\ndata: {not json\n\ndata: {\"late\":1}\n\n"]);
        assert_eq!(out, b"data: {\"ok\":1}\n\n");
        assert!(matches!(problem, Some(Problem::Malformed(_))));
    }

    #[test]
    fn in_band_error_is_reported() {
        let (out, problem, _) = run(&[b"data: {\"error\":{\"message\":\"overloaded\"}}\n\n"]);
        assert!(out.is_empty());
        assert_eq!(problem, Some(Problem::InBandError("overloaded".into())));
    }

    #[test]
    fn input_after_done_is_ignored() {
        let (out, problem, done) = run(&[b"data: [DONE]\n\ndata: {\"x\":1}\n\n"]);
        assert_eq!(out, b"data: [DONE]\n\n");
        assert!(done && problem.is_none());
    }

    #[test]
    fn last_event_without_blank_line_is_kept() {
        let (out, problem, done) = run(&[b"data: {\"x\":1}\n\ndata: [DONE]"]);
        assert_eq!(out, b"data: {\"x\":1}\n\ndata: [DONE]\n\n");
        assert!(done && problem.is_none());
    }

    #[test]
    fn over_long_line_is_malformed() {
        let big = vec![b'a'; MAX_LINE + 1];
        let (_, problem, _) = run(&[b"data: ", &big]);
        assert!(matches!(problem, Some(Problem::Malformed(_))));
    }

    proptest! {
        /// However the upstream splits its bytes, the client gets the same events.
        #[test]
        fn any_split_gives_same_output(cuts in proptest::collection::vec(0usize..GOOD.len(), 0..12)) {
            let bytes = GOOD.as_bytes();
            let mut cuts = cuts;
            cuts.sort_unstable();
            cuts.dedup();
            let mut chunks: Vec<&[u8]> = Vec::new();
            let mut start = 0;
            for c in cuts {
                chunks.push(&bytes[start..c]);
                start = c;
            }
            chunks.push(&bytes[start..]);
            let whole = run(&[bytes]);
            let split = run(&chunks);
            prop_assert_eq!(whole, split);
        }

        /// Arbitrary bytes never panic and never produce output that is not whole events.
        #[test]
        fn arbitrary_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..400)) {
            let (out, _, _) = run(&[&data]);
            prop_assert!(out.is_empty() || out.ends_with(b"\n\n"));
        }
    }
}

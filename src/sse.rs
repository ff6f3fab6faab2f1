//! Server-sent events from the proxy: OpenAI chat-completions chunks (`delta.content`), `[DONE]`,
//! and the proxy's own `event: error`.
//!
//! Hand-written: the SSE line format is tiny, and the widget's fetch reader pushes byte pieces to a
//! callback, while the parser crates (`eventsource-stream`) are built around a `futures` `Stream`
//! the body would first have to be wrapped in. Bytes may arrive split anywhere (even inside a UTF-8
//! character); lines are decoded only when whole.

use serde::Deserialize;

/// One dispatched SSE event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field; `None` for the default "message".
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
}

/// Incremental SSE parser: feed bytes, get whole events.
#[derive(Debug, Default)]
pub struct SseParser {
    buf: Vec<u8>,
    event: Option<String>,
    data: Vec<String>,
}

impl SseParser {
    /// Feeds a chunk of the body; returns the events it completed.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.buf.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(nl) = self.buf.iter().position(|&b| b == b'\n') {
            let mut line: Vec<u8> = self.buf.drain(..=nl).collect();
            line.pop();
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            let line = String::from_utf8_lossy(&line);
            if let Some(ev) = self.line(&line) {
                out.push(ev);
            }
        }
        out
    }

    /// Ends the stream: dispatches a last event that had no blank line after it.
    pub fn finish(&mut self) -> Option<SseEvent> {
        if !self.buf.is_empty() {
            let rest = std::mem::take(&mut self.buf);
            let line = String::from_utf8_lossy(&rest).into_owned();
            if let Some(ev) = self.line(&line) {
                return Some(ev);
            }
        }
        self.dispatch()
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            return self.dispatch();
        }
        if line.starts_with(':') {
            return None; // comment / keep-alive
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        match field {
            "data" => self.data.push(value.to_string()),
            "event" => self.event = Some(value.to_string()),
            _ => {}
        }
        None
    }

    fn dispatch(&mut self) -> Option<SseEvent> {
        if self.data.is_empty() {
            self.event = None;
            return None;
        }
        let data = std::mem::take(&mut self.data).join("\n");
        Some(SseEvent {
            event: self.event.take().filter(|e| e != "message"),
            data,
        })
    }
}

/// What one event means for the answer being streamed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamItem {
    /// More answer text.
    Delta(String),
    /// The model finished (`[DONE]`).
    Done,
    /// The proxy or upstream reported an error mid-stream.
    Error {
        /// The proxy's machine-readable error code (e.g. `upstream_error`), if the event carried one.
        code: Option<String>,
        /// The error message from the event, or a generic one when the event data was not the proxy's JSON.
        message: String,
    },
    /// Nothing for the reader (role-only deltas, usage chunks, unknown events).
    Ignore,
}

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    error: Option<ErrorBody>,
}

#[derive(Deserialize)]
struct Choice {
    delta: Option<Delta>,
}

#[derive(Deserialize)]
struct Delta {
    content: Option<String>,
}

#[derive(Deserialize)]
struct ErrorEnvelope {
    error: ErrorBody,
}

#[derive(Deserialize)]
struct ErrorBody {
    #[serde(default)]
    code: Code,
    #[serde(default)]
    message: String,
}

/// An error code as text: a string as is, a number or boolean written out, `null` (or an object
/// or array, which no proxy sends) as none. A visitor rather than a generic JSON value, so the
/// widget carries no JSON value type.
#[derive(Default)]
struct Code(Option<String>);

impl<'de> Deserialize<'de> for Code {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Code;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an error code")
            }
            fn visit_str<E>(self, s: &str) -> Result<Code, E> {
                Ok(Code(Some(s.to_string())))
            }
            fn visit_bool<E>(self, b: bool) -> Result<Code, E> {
                Ok(Code(Some(b.to_string())))
            }
            fn visit_u64<E>(self, n: u64) -> Result<Code, E> {
                Ok(Code(Some(n.to_string())))
            }
            fn visit_i64<E>(self, n: i64) -> Result<Code, E> {
                Ok(Code(Some(n.to_string())))
            }
            fn visit_f64<E>(self, n: f64) -> Result<Code, E> {
                Ok(Code(Some(n.to_string())))
            }
            fn visit_unit<E>(self) -> Result<Code, E> {
                Ok(Code(None))
            }
            fn visit_none<E>(self) -> Result<Code, E> {
                Ok(Code(None))
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<Code, D::Error> {
                d.deserialize_any(V)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Code, A::Error> {
                while m
                    .next_entry::<serde::de::IgnoredAny, serde::de::IgnoredAny>()?
                    .is_some()
                {}
                Ok(Code(None))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut s: A) -> Result<Code, A::Error> {
                while s.next_element::<serde::de::IgnoredAny>()?.is_some() {}
                Ok(Code(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// Parses the proxy's `{"error": {"code", "message"}}` body (also used for non-200 responses).
pub fn parse_error_body(body: &str) -> Option<(Option<String>, String)> {
    let env: ErrorEnvelope = crate::json::from_str(body).ok()?;
    Some((env.error.code.0, env.error.message))
}

/// Interprets one event.
pub fn interpret(ev: &SseEvent) -> StreamItem {
    let data = ev.data.trim();
    if ev.event.as_deref() == Some("error") {
        return match parse_error_body(data) {
            Some((code, message)) => StreamItem::Error { code, message },
            None => StreamItem::Error {
                code: None,
                message: if data.is_empty() {
                    "The answer stream failed.".into()
                } else {
                    data.to_string()
                },
            },
        };
    }
    if data == "[DONE]" {
        return StreamItem::Done;
    }
    match crate::json::from_str::<Chunk>(data) {
        Ok(Chunk { error: Some(e), .. }) => StreamItem::Error {
            code: e.code.0,
            message: e.message,
        },
        Ok(chunk) => {
            let text: String = chunk
                .choices
                .into_iter()
                .filter_map(|c| c.delta.and_then(|d| d.content))
                .collect();
            if text.is_empty() {
                StreamItem::Ignore
            } else {
                StreamItem::Delta(text)
            }
        }
        // A malformed chunk is skipped rather than ending the answer.
        Err(_) => StreamItem::Ignore,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(text: &str) -> String {
        format!(
            "data: {{\"choices\":[{{\"index\":0,\"delta\":{{\"content\":{}}}}}]}}\n\n",
            serde_json::json!(text)
        )
    }

    fn collect(stream: &[u8], step: usize) -> Vec<StreamItem> {
        let mut p = SseParser::default();
        let mut items = Vec::new();
        for part in stream.chunks(step) {
            items.extend(p.push(part).iter().map(interpret));
        }
        items.extend(p.finish().iter().map(interpret));
        items
    }

    #[test]
    fn parses_openai_stream_split_anywhere() {
        let mut s = String::from(
            ": keep-alive\n\ndata: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n",
        );
        s.push_str(&chunk("Héllo "));
        s.push_str(&chunk("wörld [1]"));
        s.push_str("data: [DONE]\n\n");
        for step in [1, 2, 3, 7, 1000] {
            let items: Vec<_> = collect(s.as_bytes(), step)
                .into_iter()
                .filter(|i| *i != StreamItem::Ignore)
                .collect();
            assert_eq!(
                items,
                vec![
                    StreamItem::Delta("Héllo ".into()),
                    StreamItem::Delta("wörld [1]".into()),
                    StreamItem::Done
                ],
                "step {step}"
            );
        }
    }

    #[test]
    fn crlf_and_multiline_data() {
        let mut p = SseParser::default();
        let evs = p.push(b"event: message\r\ndata: a\r\ndata: b\r\n\r\n");
        assert_eq!(
            evs,
            vec![SseEvent {
                event: None,
                data: "a\nb".into()
            }]
        );
    }

    #[test]
    fn proxy_error_event() {
        let s = b"data: {\"choices\":[{\"delta\":{\"content\":\"Part\"}}]}\n\nevent: error\ndata: {\"error\":{\"code\":\"upstream_dropped\",\"message\":\"The model stopped.\"}}\n\n";
        let items = collect(s, 5);
        assert_eq!(items[0], StreamItem::Delta("Part".into()));
        assert_eq!(
            items[1],
            StreamItem::Error {
                code: Some("upstream_dropped".into()),
                message: "The model stopped.".into()
            }
        );
    }

    #[test]
    fn plain_text_error_event_and_malformed_chunk() {
        let items = collect(b"data: {not json\n\nevent: error\ndata: boom\n\n", 4);
        assert_eq!(
            items,
            vec![
                StreamItem::Ignore,
                StreamItem::Error {
                    code: None,
                    message: "boom".into()
                }
            ]
        );
    }

    #[test]
    fn last_event_without_blank_line_is_dispatched() {
        let items = collect(b"data: [DONE]", 3);
        assert_eq!(items, vec![StreamItem::Done]);
    }

    #[test]
    fn error_body() {
        assert_eq!(
            parse_error_body("{\"error\":{\"code\":\"no_upstream\",\"message\":\"No LLM\"}}"),
            Some((Some("no_upstream".into()), "No LLM".into()))
        );
        assert_eq!(parse_error_body("<html>"), None);
    }

    #[test]
    fn arbitrary_bytes_never_panic() {
        // Deterministic pseudo-random inputs (proptest does not build for wasm32 without a getrandom backend).
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..300 {
            let mut bytes = Vec::new();
            for _ in 0..200 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let b = [
                    b'd', b'a', b't', b':', b'\n', b'\r', b' ', b'{', b'}', 0xC3, 0xA9, b'[', b'"',
                ][(x % 13) as usize];
                bytes.push(b);
            }
            let _ = collect(&bytes, (x % 9 + 1) as usize);
        }
    }
}

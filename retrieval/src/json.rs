//! JSON text in and out of Rust types, for the asset metadata here and the widget's own types
//! (session, config, stream chunks, feedback).
//!
//! With the `browser-json` feature on wasm32, the browser's own `JSON.parse`/`JSON.stringify` do
//! the text work and serde-wasm-bindgen maps the parsed values onto the Rust types, so the widget's
//! wasm carries no JSON parser (a size budget: see `scripts/build-widget.sh`). Everywhere else
//! (index builder, proxy, native tests) serde_json does it; both read and write the same JSON.

use serde::{de::DeserializeOwned, Serialize};

/// Parses JSON text into `T`; the error is a human-readable reason.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    imp::from_str(text)
}

/// Parses JSON bytes (a response body) into `T`; invalid UTF-8 is an error.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, String> {
    std::str::from_utf8(bytes)
        .map_err(|e| e.to_string())
        .and_then(from_str)
}

/// Writes `value` as compact JSON (`None` as `null`, maps as objects), or `""` if it cannot be.
pub fn to_string<T: Serialize>(value: &T) -> String {
    imp::to_string(value)
}

#[cfg(all(feature = "browser-json", target_arch = "wasm32"))]
mod imp {
    use serde::{de::DeserializeOwned, Serialize};

    pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
        let value = js_sys::JSON::parse(text).map_err(|_| String::from("not valid JSON"))?;
        serde_wasm_bindgen::from_value(value).map_err(|e| e.to_string())
    }

    pub fn to_string<T: Serialize>(value: &T) -> String {
        value
            .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
            .ok()
            .and_then(|v| js_sys::JSON::stringify(&v).ok())
            .and_then(|s| s.as_string())
            .unwrap_or_default()
    }
}

#[cfg(not(all(feature = "browser-json", target_arch = "wasm32")))]
mod imp {
    use serde::{de::DeserializeOwned, Serialize};

    pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, String> {
        serde_json::from_str(text).map_err(|e| e.to_string())
    }

    pub fn to_string<T: Serialize>(value: &T) -> String {
        serde_json::to_string(value).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct T {
        a: Option<String>,
        #[serde(default)]
        n: u32,
    }

    #[test]
    fn round_trips_and_writes_none_as_null() {
        let t = T { a: None, n: 3 };
        let s = to_string(&t);
        assert_eq!(s, r#"{"a":null,"n":3}"#);
        assert_eq!(from_str::<T>(&s), Ok(t));
        assert_eq!(from_slice::<T>(br#"{"a":"x"}"#).map(|t| t.n), Ok(0));
        assert!(from_str::<T>("{").is_err());
        assert!(from_slice::<T>(b"\xff").is_err());
    }
}

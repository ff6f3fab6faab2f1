//! The page configuration (`window.BOOK_CHAT_CONFIG`, contract 1), read natively so the controller
//! and its tests share it with the widget.

use serde::Deserialize;

/// An index for the pages under `prefix` (a versioned or translated book has several).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexRoute {
    /// Path prefix of the pages this index covers, e.g. `/docs/2.0/`.
    pub prefix: String,
    /// Base URL of that index's asset folder.
    pub index_url: String,
}

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
    /// URL of the `markdown-wasm` module's JS (its wasm beside it as `…_bg.wasm`), imported when the
    /// panel opens; `None` = answers and snippets are shown as plain text.
    #[serde(default)]
    pub markdown_url: Option<String>,
    /// Per-prefix indexes; the longest prefix matching the page path wins, else `index_url`.
    #[serde(default)]
    pub indexes: Vec<IndexRoute>,
    /// The page locale (BCP 47), e.g. `ur`.
    #[serde(default)]
    pub locale: Option<String>,
    /// `"rtl"` lays the panel out right to left; anything else is left to right.
    #[serde(default)]
    pub direction: Option<String>,
    /// Translations of the widget's own words (keys of `crate::i18n`); missing keys stay English.
    #[serde(default)]
    pub strings: crate::i18n::Translations,
}

impl Config {
    /// The index folder for the page at `path`: the longest matching `indexes` prefix, else `index_url`.
    pub fn index_for(&self, path: &str) -> &str {
        self.indexes
            .iter()
            .filter(|r| !r.prefix.is_empty() && path.starts_with(&r.prefix))
            .max_by_key(|r| r.prefix.len())
            .map(|r| r.index_url.as_str())
            .unwrap_or(&self.index_url)
    }

    /// The proxy's base URL without a trailing slash.
    pub fn proxy(&self) -> Option<String> {
        // "/" (same origin) becomes "", so "/api/chat" stays relative to the page's origin.
        self.proxy_url
            .as_deref()
            .map(|u| u.trim_end_matches('/').to_string())
    }

    /// Whether the panel is laid out right to left.
    pub fn rtl(&self) -> bool {
        self.direction.as_deref() == Some("rtl")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_prefix_wins() {
        let c: Config = serde_json::from_str(
            r#"{"indexUrl":"/book-chat/","indexes":[
                {"prefix":"/docs/","indexUrl":"/a/"},
                {"prefix":"/docs/2.0/","indexUrl":"/b/"}],
               "direction":"rtl","locale":"ur","strings":{"send":"بھیجیں"}}"#,
        )
        .unwrap();
        assert_eq!(c.index_for("/docs/2.0/intro"), "/b/");
        assert_eq!(c.index_for("/docs/intro"), "/a/");
        assert_eq!(c.index_for("/blog/x"), "/book-chat/");
        assert!(c.rtl());
        assert_eq!(c.strings.get("send"), Some("بھیجیں"));
    }

    #[test]
    fn old_config_still_reads() {
        let c: Config = serde_json::from_str(r#"{"proxyUrl":"/p/","indexUrl":"/i/"}"#).unwrap();
        assert_eq!(c.proxy().as_deref(), Some("/p"));
        assert_eq!(c.index_for("/docs/x"), "/i/");
        assert!(!c.rtl());
        let same_origin: Config = serde_json::from_str(r#"{"proxyUrl":"/"}"#).unwrap();
        assert_eq!(same_origin.proxy().as_deref(), Some(""));
    }
}

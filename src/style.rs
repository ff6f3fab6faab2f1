//! The widget's CSS, injected into its shadow root so the book's CSS cannot reach it (and it cannot
//! leak out). Colours follow Docusaurus: `--ifm-*` custom properties inherit into the shadow tree,
//! and `data-theme` on `.bc-root` mirrors `html[data-theme]` for pages without those variables.
//! A plain string outside the `ui` module, so its minifier is tested natively.

/// The stylesheet as the widget injects it: [`SOURCE`] without its comments and the spaces CSS does
/// not need: 1 KB less raw wasm; gzipped, within the ±0.5 kB the layout moves the widget by
/// (+57 B alone, -171 B with the summary rule of the same day, 2026-12-02).
pub const CSS: &str = match core::str::from_utf8(&MINIFIED) {
    Ok(css) => css,
    Err(_) => panic!("minifying the stylesheet split a character"),
};

/// [`minify`]'s output, worked out once: the sheet in a buffer as long as [`SOURCE`], and its length.
const LONG: ([u8; SOURCE.len()], usize) = minify(SOURCE.as_bytes());

/// The minified sheet in an array of its own length: the sheet's bytes alone go into the wasm.
const MINIFIED: [u8; LONG.1] = {
    let mut out = [0u8; LONG.1];
    let mut i = 0;
    while i < LONG.1 {
        out[i] = LONG.0[i];
        i += 1;
    }
    out
};

/// Drops comments, whitespace next to `{`, `}`, `;`, `,` and `>` and after `:`, and the `;` before
/// a `}`, and turns every other run of whitespace into one space. Written by hand and run at
/// compile time (a `const fn`): the sheet is small and ours, with no strings holding those
/// characters, and a CSS minifier crate (lightningcss) would add a build script and a parser for
/// this one string. A space before `:` is kept: `.a :focus` and `.a:focus` differ.
const fn minify(src: &[u8]) -> ([u8; SOURCE.len()], usize) {
    const fn tight(c: u8) -> bool {
        matches!(c, b'{' | b'}' | b';' | b',' | b'>')
    }
    let mut out = [0u8; SOURCE.len()];
    let (mut i, mut n, mut space) = (0, 0, false);
    while i < src.len() {
        let c = src[i];
        if c == b'/' && i + 1 < src.len() && src[i + 1] == b'*' {
            i += 2;
            while i + 1 < src.len() && !(src[i] == b'*' && src[i + 1] == b'/') {
                i += 1;
            }
            i += 2;
            space = true;
        } else if c.is_ascii_whitespace() {
            space = true;
            i += 1;
        } else {
            if space && n > 0 && !tight(out[n - 1]) && out[n - 1] != b':' && !tight(c) {
                out[n] = b' ';
                n += 1;
            }
            // The last declaration of a block needs no `;`.
            if c == b'}' && n > 0 && out[n - 1] == b';' {
                n -= 1;
            }
            space = false;
            out[n] = c;
            n += 1;
            i += 1;
        }
    }
    (out, n)
}

/// The stylesheet as written.
const SOURCE: &str = r#"
:host { all: initial; }
.bc-root {
  --bc-primary: var(--ifm-color-primary, #2e8555); --bc-on-primary: #ffffff;
  --bc-bg: #ffffff; --bc-fg: #1c1e21; --bc-muted: #5c6370; --bc-border: #d0d7de; --bc-soft: #f3f5f7;
  --bc-quote: #eef6f1; --bc-danger: #b42318;
  font: 15px/1.5 var(--ifm-font-family-base, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  color: var(--bc-fg);
}
.bc-root[data-theme="dark"] {
  --bc-primary: var(--ifm-color-primary, #25c2a0);
  /* Dark themes use a light primary: dark text on it keeps WCAG AA contrast. */
  --bc-on-primary: #1b1b1d;
  --bc-bg: #1b1b1d; --bc-fg: #e3e3e3; --bc-muted: #a0a6b0; --bc-border: #444950; --bc-soft: #242526;
  --bc-quote: #1f2d27; --bc-danger: #ff8a80;
}
.bc-root *, .bc-root *::before, .bc-root *::after { box-sizing: border-box; }
.bc-sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.bc-bubble {
  position: fixed; inset-inline-end: 20px; bottom: 20px; z-index: 2147483000; width: 56px; height: 56px; border-radius: 50%;
  border: none; background: var(--bc-primary); color: var(--bc-on-primary); cursor: pointer; box-shadow: 0 4px 14px rgba(0,0,0,.25);
  font-size: 24px; display: flex; align-items: center; justify-content: center;
}
.bc-bubble:focus-visible, .bc-root button:focus-visible, .bc-root a:focus-visible, .bc-root textarea:focus-visible {
  outline: 3px solid var(--bc-primary); outline-offset: 2px;
}
.bc-askthis {
  position: fixed; z-index: 2147483001; padding: 4px 10px; border-radius: 6px; border: 1px solid var(--bc-border);
  background: var(--bc-primary); color: var(--bc-on-primary); font: inherit; font-size: 13px; cursor: pointer; box-shadow: 0 2px 8px rgba(0,0,0,.2);
}
.bc-panel {
  position: fixed; inset-inline-end: 20px; bottom: 88px; z-index: 2147483002; width: min(420px, calc(100vw - 40px));
  height: min(640px, calc(100vh - 120px)); display: flex; flex-direction: column; background: var(--bc-bg);
  color: var(--bc-fg); border: 1px solid var(--bc-border); border-radius: 12px; box-shadow: 0 12px 32px rgba(0,0,0,.3); overflow: hidden;
}
@media (max-width: 600px) {
  .bc-panel { inset: 0; width: 100vw; height: 100vh; height: 100dvh; border-radius: 0; border: none; }
}
.bc-head { display: flex; align-items: center; gap: 8px; padding: 10px 12px; border-bottom: 1px solid var(--bc-border); }
.bc-head { position: relative; }
.bc-head h2 { font-size: 16px; margin: 0; flex: 1; }
.bc-settings { position: absolute; top: 100%; inset-inline-end: 8px; z-index: 1; display: flex; flex-direction: column; gap: 8px;
  padding: 10px 12px; background: var(--bc-bg); border: 1px solid var(--bc-border); border-radius: 8px; box-shadow: 0 6px 18px rgba(0,0,0,.2); font-size: 13px; }
.bc-settings label { display: flex; align-items: center; justify-content: space-between; gap: 10px; }
.bc-settings select { font: inherit; background: var(--bc-bg); color: var(--bc-fg); border: 1px solid var(--bc-border); border-radius: 6px; padding: 2px 4px; }
.bc-settings .bc-check { justify-content: flex-start; }
.bc-jump { position: absolute; bottom: 150px; left: 50%; transform: translateX(-50%); box-shadow: 0 2px 8px rgba(0,0,0,.2); }
.bc-btn { font: inherit; font-size: 13px; padding: 4px 10px; border-radius: 6px; border: 1px solid var(--bc-border);
  background: var(--bc-soft); color: var(--bc-fg); cursor: pointer; }
.bc-btn:disabled { opacity: .5; cursor: default; }
.bc-btn-primary { background: var(--bc-primary); border-color: var(--bc-primary); color: var(--bc-on-primary); }
.bc-icon { border: none; background: none; color: var(--bc-muted); cursor: pointer; font-size: 16px; padding: 4px 6px; border-radius: 6px; }
.bc-icon[aria-pressed="true"] { color: var(--bc-primary); background: var(--bc-soft); }
.bc-notice { margin: 8px 12px 0; padding: 6px 10px; border-radius: 6px; background: var(--bc-soft); font-size: 13px; }
.bc-log { flex: 1; overflow-y: auto; padding: 12px; display: flex; flex-direction: column; gap: 14px; }
.bc-empty { color: var(--bc-muted); font-size: 14px; }
.bc-q { align-self: flex-end; max-width: 90%; background: var(--bc-primary); color: var(--bc-on-primary); padding: 8px 12px; border-radius: 12px 12px 2px 12px; white-space: pre-wrap; overflow-wrap: anywhere; }
.bc-quote { border-inline-start: 3px solid var(--bc-primary); background: var(--bc-quote); padding: 4px 8px; margin: 0; font-size: 13px; color: var(--bc-fg); white-space: normal; }
.bc-quote p, .bc-quote pre { margin: 0; }
.bc-quote pre { white-space: pre; overflow-x: auto; font-size: 12px; }
.bc-quote .bc-copy { display: none; }
.bc-quote[data-collapsed="true"] { max-height: 4.8em; overflow: hidden; -webkit-mask-image: linear-gradient(#000 60%, transparent); mask-image: linear-gradient(#000 60%, transparent); }
.bc-quote-wrap { margin: 0 0 6px; }
.bc-link { font: inherit; font-size: 12px; background: none; border: none; padding: 2px 0; color: inherit; text-decoration: underline; cursor: pointer; }
.bc-form .bc-link { color: var(--bc-primary); }
.bc-a { max-width: 100%; overflow-wrap: anywhere; }
.bc-a p { margin: 0 0 8px; }
.bc-a pre { position: relative; background: var(--bc-soft); padding: 10px; border-radius: 6px; overflow-x: auto; font-size: 13px; }
.bc-a code { font-family: var(--ifm-font-family-monospace, ui-monospace, SFMono-Regular, Menlo, monospace); font-size: 90%; }
.bc-a blockquote { margin: 0 0 8px; padding: 2px 10px; border-inline-start: 3px solid var(--bc-border); color: var(--bc-fg); }
.bc-table { overflow-x: auto; margin: 0 0 8px; }
.bc-root table { border-collapse: collapse; font-size: 13px; }
.bc-root td, .bc-root th { border: 1px solid var(--bc-border); padding: 2px 6px; text-align: start; vertical-align: top; }
.bc-a a { color: var(--bc-primary); }
.bc-copy { position: absolute; top: 4px; inset-inline-end: 4px; font-size: 12px; }
.bc-cite { font-size: 12px; vertical-align: super; text-decoration: none; margin: 0 1px; }
.bc-meta { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; margin-top: 6px; font-size: 12px; color: var(--bc-muted); }
.bc-badge { border: 1px solid var(--bc-border); border-radius: 10px; padding: 0 8px; }
.bc-badge-low { color: var(--bc-danger); }
.bc-status { font-size: 13px; color: var(--bc-muted); }
.bc-error { font-size: 13px; color: var(--bc-danger); }
.bc-sources { margin: 8px 0 0; padding: 0; padding-inline-start: 18px; font-size: 13px; }
.bc-sources li { margin-bottom: 4px; }
.bc-snippet, .bc-snippet p { margin: 0; color: var(--bc-muted); font-size: 12px; }
.bc-snippet pre { font-size: 11px; overflow-x: auto; }
.bc-snippet .bc-copy { display: none; }
.bc-sugg { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 8px; }
.bc-sugg button { font: inherit; font-size: 12px; border: 1px solid var(--bc-primary); color: var(--bc-primary); background: none; border-radius: 12px; padding: 2px 10px; cursor: pointer; }
.bc-form { border-top: 1px solid var(--bc-border); padding: 8px 12px 10px; }
.bc-form textarea { width: 100%; min-height: 56px; max-height: 160px; resize: vertical; font: inherit; padding: 6px 8px;
  border: 1px solid var(--bc-border); border-radius: 8px; background: var(--bc-bg); color: var(--bc-fg); }
.bc-row { display: flex; align-items: center; gap: 8px; margin-top: 6px; }
.bc-counter { font-size: 12px; color: var(--bc-muted); flex: 1; }
.bc-counter-warn { color: var(--bc-danger); }
.bc-spin { display: inline-block; width: 10px; height: 10px; border: 2px solid var(--bc-muted); border-top-color: transparent; border-radius: 50%; animation: bc-spin 1s linear infinite; margin-inline-end: 6px; }
@keyframes bc-spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .bc-spin { animation: none; } }
"#;

#[cfg(test)]
mod tests {
    use super::{CSS, SOURCE};

    #[test]
    fn the_minified_sheet_keeps_every_rule_and_value() {
        assert!(CSS.len() < SOURCE.len() * 9 / 10);
        assert!(!CSS.contains("/*") && !CSS.contains("\n") && !CSS.contains("  "));
        assert!(CSS.starts_with(":host{all:initial}"));
        // Spaces inside values and selectors stay.
        assert!(CSS.contains("width:min(420px,calc(100vw - 40px));"));
        assert!(CSS.contains(".bc-root *::before"));
        assert!(CSS.contains("@media (prefers-reduced-motion:reduce){.bc-spin{animation:none}}"));
        // Same text once whitespace is ignored, comments aside.
        let bare = |s: &str| {
            s.chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .replace(";}", "}")
        };
        let mut source = SOURCE.to_string();
        while let Some(start) = source.find("/*") {
            let end = source[start..]
                .find("*/")
                .map_or(source.len(), |e| start + e + 2);
            source.replace_range(start..end, "");
        }
        assert_eq!(bare(CSS), bare(&source));
    }
}

//! Compares two outputs of `dump_pages` (before and after a change to the docs reader) and
//! prints, per page, where routes, anchors, section texts or chunk texts differ:
//!
//! `cargo run --release -p index-builder --example compare_dumps -- before.jsonl after.jsonl`
//!
//! Exits with status 1 when a route or an anchor differs (texts are reported, not fatal).

use std::collections::BTreeMap;

use anyhow::Context;
use serde_json::Value;

/// Pages by path, and the warnings, of one dump.
fn load(path: &str) -> anyhow::Result<(BTreeMap<String, Value>, Vec<String>)> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?;
    let mut pages = BTreeMap::new();
    let mut warnings = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).with_context(|| format!("{path}: bad line"))?;
        if let Some(w) = v.get("warning").and_then(Value::as_str) {
            warnings.push(w.to_string());
        } else if let Some(p) = v.get("path").and_then(Value::as_str) {
            pages.insert(p.to_string(), v);
        }
    }
    Ok((pages, warnings))
}

fn field<'a>(v: &'a Value, list: &str, key: &str) -> Vec<&'a Value> {
    v[list]
        .as_array()
        .map(|a| a.iter().map(|s| &s[key]).collect())
        .unwrap_or_default()
}

/// The anchors and levels of a page's sections.
fn heads(v: &Value) -> (Vec<&Value>, Vec<&Value>) {
    (
        field(v, "sections", "anchor"),
        field(v, "sections", "level"),
    )
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [before, after] = args.as_slice() else {
        anyhow::bail!("usage: compare_dumps <before.jsonl> <after.jsonl>");
    };
    let (b, bw) = load(before)?;
    let (a, aw) = load(after)?;
    let (mut routes, mut anchors, mut texts, mut chunks) = (0, 0, 0, 0);
    for path in b.keys().chain(a.keys().filter(|k| !b.contains_key(*k))) {
        let (Some(x), Some(y)) = (b.get(path), a.get(path)) else {
            println!("{path}: only in one dump");
            routes += 1;
            continue;
        };
        if (&x["url"], &x["title"]) != (&y["url"], &y["title"]) {
            println!("{path}: route {} -> {}", x["url"], y["url"]);
            routes += 1;
        }
        if heads(x) != heads(y) {
            println!("{path}: anchors {:?} -> {:?}", heads(x).0, heads(y).0);
            anchors += 1;
        }
        for (s, t) in field(x, "sections", "text")
            .iter()
            .zip(field(y, "sections", "text"))
        {
            if *s != t {
                println!("{path}: text\n  - {s}\n  + {t}");
                texts += 1;
            }
        }
        if field(x, "chunks", "text") != field(y, "chunks", "text") {
            chunks += 1;
        }
    }
    for w in bw.iter().filter(|w| !aw.contains(w)) {
        println!("warning gone: {w}");
    }
    for w in aw.iter().filter(|w| !bw.contains(w)) {
        println!("warning new: {w}");
    }
    println!(
        "{} pages: {routes} routes, {anchors} anchor lists, {texts} section texts, \
         {chunks} chunk lists differ",
        b.len()
    );
    if routes + anchors > 0 {
        std::process::exit(1);
    }
    Ok(())
}

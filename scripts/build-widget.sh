#!/usr/bin/env bash
# Builds the browser side into static/widget/: the Leptos widget, the question encoder and the
# Markdown parser, three wasm modules made by one function (cargo wasm-release profile -> wasm-bindgen --target web -> npm
# binaryen's wasm-opt -> content-hashed names), plus widget-loader/loader.js.
# One content-hash convention for every file: <name>-<first 16 hex of sha256(js + wasm)>.js and
# <name>-<same hash>_bg.wasm (the plugin hashes loader.js itself when it copies it).
# Needs: the wasm32-unknown-unknown target, wasm-bindgen 0.2.130, wasm-opt >= 132 (scripts/setup.sh).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="${BOOK_CHAT_WIDGET_OUT:-$ROOT/static/widget}"
WASM_BINDGEN_VERSION="0.2.130"

have_bindgen="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')"
if [ "$have_bindgen" != "$WASM_BINDGEN_VERSION" ]; then
  echo "wasm-bindgen $WASM_BINDGEN_VERSION is required (found: ${have_bindgen:-none}); run scripts/setup.sh" >&2
  exit 1
fi
# Debian's wasm-opt 108 silently breaks wasm-bindgen 0.2.130 output: only npm binaryen >= 132.
wasm-opt --version | grep -q 'version 1[3-9][0-9]' || { echo "wasm-opt >= 132 (npm binaryen) is required: npm ci" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
staged="$work/out"
mkdir -p "$staged"

# wasm_module PACKAGE CRATE_FILE OUT_NAME WASM_OPT_FLAGS...
#   builds one cdylib package for the browser and writes OUT_NAME-<hash>.js and OUT_NAME-<hash>_bg.wasm.
wasm_module() {
  local package="$1" crate_file="$2" name="$3"
  shift 3
  echo "--> $name: cargo build -p $package (wasm32, wasm-release), wasm-bindgen, wasm-opt $*"
  cargo build -p "$package" --lib --target wasm32-unknown-unknown --profile wasm-release
  local raw="$TARGET_DIR/wasm32-unknown-unknown/wasm-release/$crate_file.wasm"
  wasm-bindgen --target web --no-typescript --out-dir "$work/$name" --out-name "$name" "$raw"
  wasm-opt "$@" --output="$work/$name/opt.wasm" "$work/$name/${name}_bg.wasm"
  local hash
  hash="$(cat "$work/$name/$name.js" "$work/$name/opt.wasm" | sha256sum | cut -c1-16)"
  sed "s/${name}_bg\.wasm/${name}-${hash}_bg.wasm/g" "$work/$name/$name.js" > "$staged/$name-$hash.js"
  cp "$work/$name/opt.wasm" "$staged/$name-${hash}_bg.wasm"
  printf '%s-%s_bg.wasm: %s bytes (%s gzipped)\n' "$name" "$hash" \
    "$(stat -c %s "$staged/$name-${hash}_bg.wasm")" "$(gzip -9c "$staged/$name-${hash}_bg.wasm" | wc -c)"
}

# The widget has a 300 KB gzipped budget; its wasm-opt flags, each measured (issue 15):
#   -ocimfs=12: functions with one caller are inlined only when small (default: all). Inlining big
#     ones into the async state machines gives huge functions whose code gzips worse: -26 kB gzipped.
#     The gzipped size is not smooth in the limit (±0.5 kB between neighbours); re-measured on
#     2026-12-01 over 8-25: 12 was smallest before and after that day's change (-0.97 kB vs 20).
#   --low-memory-unused: Rust lays the stack out first ([0, 1 MiB), data after it), so only a stack
#     1023 KiB deep would touch the low 1 KiB the flag assumes unused; with --converge: -4.5 kB.
#   --strip-producers --strip-target-features: tool metadata browsers ignore: -0.2 kB.
#   -iit (--ignore-implicit-traps): loads, stores, divisions and float conversions are taken not to
#     trap. Rust's code never relies on one: it checks indices and divisors before them (a panic,
#     which aborts), and its float-to-integer `as` saturates rather than traps: -0.16 kB.
# index.html gives Trunk the same flags (data-wasm-opt-params): both builds give the same file.
WIDGET_WASM_OPT=(-Oz --low-memory-unused --strip-producers --strip-target-features -ocimfs=12 -iit --converge)
wasm_module book-chat book_chat book-chat "${WIDGET_WASM_OPT[@]}"
wasm_module encoder-wasm encoder_wasm book-chat-encoder -O3 --enable-simd
wasm_module markdown-wasm markdown_wasm book-chat-markdown -Oz
cp widget-loader/loader.js "$staged/loader.js"

# Replace the folder only once everything is built: never a half-written widget folder.
mkdir -p "$(dirname "$OUT")"
rm -rf "$OUT.tmp"
mv "$staged" "$OUT.tmp"
rm -rf "$OUT"
mv "$OUT.tmp" "$OUT"
echo "widget in $OUT: $(ls "$OUT" | tr '\n' ' ')"

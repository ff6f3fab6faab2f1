// Finds the built widget in a folder (trunk's dist/ or scripts/build-site.sh's output) and copies
// it into the site's build output.
const fs = require('fs');
const path = require('path');
const crypto = require('crypto');

/** The error a book author sees when the widget has not been built yet. */
class WidgetNotBuilt extends Error {}

/**
 * Reads `dir`: exactly one `book-chat-<hash>.js` with its `_bg.wasm`, and `loader.js`.
 * The loader gets a content hash here (`loader.<hash>.js`) so it can be cached like the rest.
 */
function findWidget(dir) {
  if (!dir || !fs.existsSync(dir)) {
    throw new WidgetNotBuilt(
      `book-chat: the widget is not built (no folder ${dir}). Run scripts/build-site.sh, or trunk build --release, or set the plugin's widgetDir.`,
    );
  }
  const names = fs.readdirSync(dir);
  const js = names.filter((n) => /^book-chat-[0-9a-f]+\.js$/.test(n));
  if (js.length !== 1) {
    throw new WidgetNotBuilt(`book-chat: expected one book-chat-<hash>.js in ${dir}, found ${js.length}: ${js.join(', ')}`);
  }
  const wasm = js[0].replace(/\.js$/, '_bg.wasm');
  if (!names.includes(wasm)) throw new WidgetNotBuilt(`book-chat: ${wasm} is missing from ${dir}`);
  if (!names.includes('loader.js')) throw new WidgetNotBuilt(`book-chat: loader.js is missing from ${dir}`);
  const loader = fs.readFileSync(path.join(dir, 'loader.js'));
  const hash = crypto.createHash('sha256').update(loader).digest('hex').slice(0, 10);
  // The question encoder module is optional: without it the widget answers with BM25 alone.
  const encoders = names.filter((n) => /^book-chat-encoder-[0-9a-f]+\.js$/.test(n));
  if (encoders.length > 1) {
    throw new WidgetNotBuilt(`book-chat: expected at most one book-chat-encoder-<hash>.js in ${dir}, found ${encoders.join(', ')}`);
  }
  const encoderJs = encoders[0] || null;
  const encoderWasm = encoderJs && encoderJs.replace(/\.js$/, '_bg.wasm');
  if (encoderWasm && !names.includes(encoderWasm)) throw new WidgetNotBuilt(`book-chat: ${encoderWasm} is missing from ${dir}`);
  return {dir, js: js[0], wasm, loader: 'loader.js', loaderOut: `loader.${hash}.js`, encoderJs, encoderWasm};
}

/** Copies the widget's files (and the encoder module's, when built) into `outDir` (created if needed). */
function copyWidget(widget, outDir) {
  fs.mkdirSync(outDir, {recursive: true});
  fs.copyFileSync(path.join(widget.dir, widget.js), path.join(outDir, widget.js));
  fs.copyFileSync(path.join(widget.dir, widget.wasm), path.join(outDir, widget.wasm));
  fs.copyFileSync(path.join(widget.dir, widget.loader), path.join(outDir, widget.loaderOut));
  for (const f of [widget.encoderJs, widget.encoderWasm]) {
    if (f) fs.copyFileSync(path.join(widget.dir, f), path.join(outDir, f));
  }
}

module.exports = {findWidget, copyWidget, WidgetNotBuilt};

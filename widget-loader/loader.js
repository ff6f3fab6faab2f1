/* Book chat loader (plain JS, no dependencies). Include on every page:
 *   <script src="/widget/loader.js" defer data-proxy-url="" data-index-url="/book-index"
 *           data-wasm-url="/widget/book-chat-HASH.js"></script>
 * or set window.BOOK_CHAT_CONFIG = {proxyUrl, indexUrl, wasmUrl, wasmBinaryUrl} before it.
 * It draws a light placeholder bubble only; the wasm widget is imported on first click, on
 * Alt+Shift+A, or when the browser is idle, and the wasm binary is kept in Cache Storage keyed by
 * its content-hashed URL so the next page view starts without a download. */
(function () {
  "use strict";
  if (window.__bookChatLoader) return;
  window.__bookChatLoader = true;
  var script = document.currentScript;
  var data = (script && script.dataset) || {};
  var cfg = Object.assign({}, window.BOOK_CHAT_CONFIG || {});
  function pick(key, attr) {
    if (cfg[key] === undefined && data[attr] !== undefined) cfg[key] = data[attr];
  }
  pick("proxyUrl", "proxyUrl");
  pick("indexUrl", "indexUrl");
  pick("wasmUrl", "wasmUrl");
  pick("wasmBinaryUrl", "wasmBinaryUrl");
  pick("encoderUrl", "encoderUrl");
  if (!cfg.proxyUrl) cfg.proxyUrl = null;
  if (!cfg.wasmUrl) {
    console.warn("book-chat: no wasmUrl configured");
    return;
  }
  var binUrl = cfg.wasmBinaryUrl || cfg.wasmUrl.replace(/\.js(\?.*)?$/, "_bg.wasm$1");
  var CACHE = "book-chat-wasm";
  var loading = null;
  var bubble = null;

  function cachedFetch(url) {
    if (!window.caches) return fetch(url);
    return caches.open(CACHE).then(function (cache) {
      return cache.match(url).then(function (hit) {
        if (hit) return hit;
        return fetch(url).then(function (resp) {
          if (resp.ok) {
            // Keep only the current build: older content hashes are dropped.
            cache.keys().then(function (keys) {
              keys.forEach(function (k) {
                if (k.url !== new URL(url, location.href).href) cache.delete(k);
              });
            });
            cache.put(url, resp.clone());
          }
          return resp;
        });
      });
    }).catch(function () {
      return fetch(url);
    });
  }

  function load(open) {
    if (!loading) {
      loading = import(new URL(cfg.wasmUrl, location.href).href)
        .then(function (mod) {
          return mod.default({ module_or_path: cachedFetch(binUrl) }).then(function () {
            return mod;
          });
        })
        .then(function (mod) {
          if (bubble) bubble.remove();
          mod.mount_widget({ proxyUrl: cfg.proxyUrl, indexUrl: cfg.indexUrl || "", encoderUrl: cfg.encoderUrl ? new URL(cfg.encoderUrl, location.href).href : null, indexes: cfg.indexes || [], locale: cfg.locale || null, direction: cfg.direction || null, strings: cfg.strings || {} }, !!open);
          return mod;
        })
        .catch(function (err) {
          loading = null;
          console.error("book-chat: failed to load", err);
          if (bubble) {
            bubble.disabled = false;
            bubble.title = "The assistant could not be loaded. Click to retry.";
          }
        });
    } else if (open) {
      loading.then(function () {
        var host = document.getElementById("book-chat-host");
        var b = host && host.shadowRoot && host.shadowRoot.querySelector(".bc-bubble");
        if (b && b.getAttribute("aria-expanded") !== "true") b.click();
      });
    }
    return loading;
  }

  function drawBubble() {
    if (document.getElementById("book-chat-host")) return;
    bubble = document.createElement("button");
    bubble.type = "button";
    bubble.setAttribute("aria-label", "Ask the book");
    bubble.setAttribute("aria-keyshortcuts", "Alt+Shift+A");
    bubble.title = "Ask the book (Alt+Shift+A)";
    bubble.innerHTML = '<svg aria-hidden="true" width="26" height="26" viewBox="0 0 24 24" fill="currentColor"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg>';
    bubble.style.cssText =
      "position:fixed;right:20px;bottom:20px;z-index:2147483000;width:56px;height:56px;border-radius:50%;" +
      "border:none;cursor:pointer;display:flex;align-items:center;justify-content:center;color:#fff;box-shadow:0 4px 14px rgba(0,0,0,.25);" +
      "background:var(--ifm-color-primary,#2e8555)";
    bubble.addEventListener("click", function () {
      bubble.disabled = true;
      load(true);
    });
    document.body.appendChild(bubble);
  }

  document.addEventListener("keydown", function (e) {
    if (e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === "KeyA" && !loading) {
      e.preventDefault();
      load(true);
    }
  });

  function start() {
    drawBubble();
    var idle = window.requestIdleCallback || function (f) { return setTimeout(f, 3000); };
    idle(function () { load(false); }, { timeout: 10000 });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

/* Book chat loader (plain JS, no dependencies, <= 5 KB gzipped). Include on every chat page:
 *   <script src="/widget/loader.js" defer data-proxy-url="" data-index-url="/book-index"
 *           data-wasm-url="/widget/book-chat-HASH.js"></script>
 * or set window.BOOK_CHAT_CONFIG = {proxyUrl, indexUrl, wasmUrl, wasmBinaryUrl, ...} before it.
 *
 * First-load cost: the page pays for this file only. It draws a placeholder bubble and fetches the
 * widget (JS glue + wasm) on the reader's first sign of intent:
 *   - pointer over, touch on or keyboard focus on the bubble: fetch and compile (prefetch), so the
 *     click that usually follows finds the widget ready;
 *   - a click on the bubble or Alt+Shift+A: fetch, mount and open the panel;
 *   - a text selection in the article: fetch and mount, so "Ask about this" shows next to it;
 *   - the panel was open on the previous page view (the widget reopens it): fetch and mount at once.
 * The wasm binary is kept in Cache Storage keyed by its content-hashed URL, so later page views
 * start without a download.
 *
 * Never silently dead: the widget reports a Rust panic with a "book-chat:dead" event on window
 * (src/panic_report.rs); a wasm trap from the widget's own code is caught here too. Either way the
 * dead widget is replaced by a short notice asking the reader to reload the page. */
(function () {
  "use strict";
  if (window.__bookChatLoader) return;
  window.__bookChatLoader = true;
  var script = document.currentScript;
  var data = (script && script.dataset) || {};
  var cfg = Object.assign({}, window.BOOK_CHAT_CONFIG || {});
  var URL_FIELDS = ["proxyUrl", "indexUrl", "wasmUrl", "wasmBinaryUrl", "encoderUrl", "markdownUrl"];
  URL_FIELDS.forEach(function (k) {
    if (cfg[k] === undefined && data[k] !== undefined) cfg[k] = data[k];
  });
  // A hand-written config (the plugin validates its own) may hold a value the widget cannot read:
  // each such value is dropped with a warning, so the widget still starts, in English where a
  // translation was not text.
  function ignore(what, expected) {
    console.warn("book-chat: config " + what + " ignored: not " + (expected || "text"));
  }
  function isText(v) {
    return typeof v === "string";
  }
  URL_FIELDS.concat(["locale", "direction"]).forEach(function (k) {
    if (cfg[k] != null && !isText(cfg[k])) {
      ignore(k);
      delete cfg[k];
    }
  });
  if (cfg.strings != null) {
    var given = cfg.strings;
    cfg.strings = {};
    if (typeof given === "object" && !Array.isArray(given)) {
      Object.keys(given).forEach(function (k) {
        if (isText(given[k])) cfg.strings[k] = given[k];
        else ignore("strings." + k);
      });
    } else ignore("strings", "an object of texts");
  }
  if (cfg.indexes != null) {
    if (!Array.isArray(cfg.indexes)) {
      ignore("indexes", "a list");
      cfg.indexes = [];
    }
    cfg.indexes = cfg.indexes.filter(function (r, i) {
      var ok = r && isText(r.prefix) && isText(r.indexUrl);
      if (!ok) ignore("indexes[" + i + "]", "{prefix, indexUrl} texts");
      return ok;
    });
  }
  if (!cfg.proxyUrl) cfg.proxyUrl = null;
  if (!cfg.wasmUrl) {
    console.warn("book-chat: no wasmUrl configured");
    return;
  }
  var HOST_ID = "book-chat-host";
  var ARTICLE = ".theme-doc-markdown, article"; // as src/ui/web.rs ARTICLE_SELECTOR
  var OPEN_KEY = "book-chat.open"; // the widget's "panel was open" flag (localStorage)
  var DEAD_EVENT = "book-chat:dead"; // as src/panic_report.rs DEAD_EVENT
  var jsUrl = new URL(cfg.wasmUrl, location.href).href;
  var binUrl = new URL(cfg.wasmBinaryUrl || cfg.wasmUrl.replace(/\.js(\?.*)?$/, "_bg.wasm$1"), location.href).href;
  var binName = binUrl.split("/").pop().split("?")[0];
  var CACHE = "book-chat-wasm";
  var fetching = null; // Promise of the initialised module
  var mounted = null; // Promise of the mounted module
  var dead = false;
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
                if (k.url !== url) cache.delete(k);
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

  /** Fetches the JS glue and the wasm and instantiates them (no DOM change): the prefetch. */
  function fetchWidget() {
    if (!fetching) {
      fetching = import(jsUrl).then(function (mod) {
        return mod.default({ module_or_path: cachedFetch(binUrl) }).then(function () {
          return mod;
        });
      });
      fetching.catch(function (err) {
        fetching = null;
        mounted = null;
        console.error("book-chat: failed to load", err);
        if (bubble) {
          bubble.disabled = false;
          bubble.title = word("loadFailed", "The assistant could not be loaded. Click to retry.");
        }
      });
    }
    return fetching;
  }

  /** Fetches (if needed) and mounts the widget; `open` opens its panel. */
  function mount(open) {
    if (dead) return null;
    if (!mounted) {
      mounted = fetchWidget().then(function (mod) {
        if (dead) return mod;
        var widgetCfg = Object.assign({}, cfg, {
          indexUrl: cfg.indexUrl || "",
          encoderUrl: cfg.encoderUrl ? new URL(cfg.encoderUrl, location.href).href : null,
          markdownUrl: cfg.markdownUrl ? new URL(cfg.markdownUrl, location.href).href : null,
        });
        mod.mount_widget(widgetCfg, !!open);
        if (bubble) bubble.remove();
        // A selection made before the widget existed: let it see it ("Ask about this").
        if (!open && hasArticleSelection()) window.dispatchEvent(new MouseEvent("mouseup"));
        return mod;
      });
      mounted.catch(function (err) {
        if (dead || err instanceof WebAssembly.RuntimeError) return;
        mounted = null;
        console.error("book-chat: failed to start", err);
        if (bubble) bubble.disabled = false;
      });
    } else if (open) {
      mounted.then(function () {
        var host = document.getElementById(HOST_ID);
        var b = host && host.shadowRoot && host.shadowRoot.querySelector(".bc-bubble");
        if (b && b.getAttribute("aria-expanded") !== "true") b.click();
      });
    }
    return mounted;
  }

  function hasArticleSelection() {
    var sel = window.getSelection && window.getSelection();
    if (!sel || sel.isCollapsed || !sel.rangeCount || !String(sel).trim()) return false;
    var node = sel.anchorNode;
    var el = node && (node.nodeType === 1 ? node : node.parentElement);
    return !!(el && el.closest && el.closest(ARTICLE));
  }

  function drawBubble() {
    if (document.getElementById(HOST_ID)) return;
    var name = word("bubble", "Ask the book");
    var rtl = cfg.direction === "rtl";
    bubble = document.createElement("button");
    bubble.type = "button";
    bubble.id = "book-chat-bubble";
    bubble.setAttribute("aria-label", name);
    bubble.setAttribute("aria-keyshortcuts", "Alt+Shift+A");
    bubble.title = name + " (Alt+Shift+A)";
    bubble.innerHTML = '<svg aria-hidden="true" width="26" height="26" viewBox="0 0 24 24" fill="currentColor"><path d="M4 4h16a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H9l-5 4v-4a2 2 0 0 1-2-2V6a2 2 0 0 1 2-2z"/></svg>';
    bubble.style.cssText =
      "position:fixed;" + (rtl ? "left" : "right") + ":20px;bottom:20px;z-index:2147483000;width:56px;height:56px;border-radius:50%;" +
      "border:none;cursor:pointer;display:flex;align-items:center;justify-content:center;color:#fff;box-shadow:0 4px 14px rgba(0,0,0,.25);" +
      "background:var(--ifm-color-primary,#2e8555)";
    ["pointerenter", "focus", "touchstart"].forEach(function (ev) {
      bubble.addEventListener(ev, fetchWidget, { passive: true });
    });
    bubble.addEventListener("click", function () {
      bubble.disabled = true;
      mount(true);
    });
    document.body.appendChild(bubble);
  }

  /** The widget's own words (keys and English defaults in src/i18n.rs), in the page's locale when
   * the book translates them (`BOOK_CHAT_CONFIG.strings`). */
  function word(key, english) {
    var t = cfg.strings && cfg.strings[key];
    return typeof t === "string" && t.trim() ? t : english;
  }

  /** Replaces the dead widget (or the placeholder) with a short notice; once. */
  function showDead(detail) {
    if (dead) return;
    dead = true;
    var host = document.getElementById(HOST_ID);
    if (host) host.remove();
    if (bubble) bubble.remove();
    var note = document.createElement("div");
    note.id = "book-chat-dead";
    note.setAttribute("role", "alert");
    note.style.cssText =
      "position:fixed;right:20px;bottom:20px;z-index:2147483000;max-width:280px;padding:10px 14px;border-radius:8px;" +
      "font:14px/1.4 system-ui,sans-serif;background:#fff;color:#1c1e21;border:1px solid #ccc;box-shadow:0 4px 14px rgba(0,0,0,.2)";
    note.textContent = word("stoppedNotice", "The assistant stopped; reload the page.") + " ";
    var again = document.createElement("button");
    again.type = "button";
    again.textContent = word("reload", "Reload");
    again.style.cssText = "font:inherit;margin-left:4px;cursor:pointer";
    again.addEventListener("click", function () {
      location.reload();
    });
    note.appendChild(again);
    document.body.appendChild(note);
    if (detail && detail.message) note.title = detail.message;
  }

  window.addEventListener(DEAD_EVENT, function (e) {
    showDead(e.detail);
  });
  // A trap without a panic message (e.g. out of memory) in the widget's wasm: same notice.
  function isWidgetTrap(err) {
    return err instanceof WebAssembly.RuntimeError && String(err.stack || "").indexOf(binName) >= 0;
  }
  window.addEventListener("error", function (e) {
    if (isWidgetTrap(e.error)) showDead({ message: String(e.error) });
  });
  window.addEventListener("unhandledrejection", function (e) {
    if (isWidgetTrap(e.reason)) showDead({ message: String(e.reason) });
  });

  document.addEventListener("keydown", function (e) {
    // Once mounted, the widget handles the shortcut itself.
    if (e.altKey && e.shiftKey && !e.ctrlKey && !e.metaKey && e.code === "KeyA" && !mounted) {
      e.preventDefault();
      mount(true);
    }
  });
  var selTimer = 0;
  document.addEventListener("selectionchange", function () {
    if (mounted) return;
    clearTimeout(selTimer);
    selTimer = setTimeout(function () {
      if (!mounted && hasArticleSelection()) mount(false);
    }, 100);
  });

  function start() {
    drawBubble();
    var wasOpen = false;
    try {
      wasOpen = window.localStorage.getItem(OPEN_KEY) === "1";
    } catch (e) {
      /* storage blocked: wait for intent */
    }
    if (wasOpen) mount(false);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();

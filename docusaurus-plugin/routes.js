// Which pages get the widget. The same `isChatRoute` runs at build time (tests) and in the
// browser (its source is inlined into every page by `inlineScript`), so there is one rule.

/**
 * Whether `pathname` gets the widget: it starts with one of `prefixes` (each ends in '/') or is one
 * of `exact`, and is not one of `optOut` (pages with front matter `chat: false`); pages are
 * compared without a trailing slash. Kept free of closures and modern syntax: its source text is
 * shipped as is.
 */
function isChatRoute(pathname, prefixes, optOut, exact) {
  var p = String(pathname || '/').split('#')[0].split('?')[0];
  try {
    p = decodeURI(p);
  } catch (e) {
    /* keep the raw path */
  }
  var bare = p.length > 1 ? p.replace(/\/+$/, '') : p;
  for (var i = 0; i < optOut.length; i++) {
    if (optOut[i] === bare) return false;
  }
  var pages = exact || [];
  for (var k = 0; k < pages.length; k++) {
    if (pages[k] === bare) return true;
  }
  var withSlash = bare === '/' ? '/' : bare + '/';
  for (var j = 0; j < prefixes.length; j++) {
    if (withSlash.indexOf(prefixes[j]) === 0) return true;
  }
  return false;
}

/**
 * The index URL for `pathname` (contract 1): the longest `prefix` of `indexes` that starts it, else
 * `fallback`. Shipped as source text like `isChatRoute`, so no closures or modern syntax.
 */
function indexFor(pathname, indexes, fallback) {
  var best = null;
  var list = indexes || [];
  for (var i = 0; i < list.length; i++) {
    if (String(pathname).indexOf(list[i].prefix) === 0 && (!best || list[i].prefix.length > best.prefix.length)) best = list[i];
  }
  return best ? best.indexUrl : fallback;
}

/** '/a/b/' → '/a/b' (the root stays '/'); used for the opt-out list. */
function stripSlash(p) {
  return p.length > 1 ? p.replace(/\/+$/, '') : p;
}

/** A prefix always ends in '/' so '/docs/' does not match '/docs-old/'. */
function asPrefix(p) {
  return p.endsWith('/') ? p : `${p}/`;
}

/**
 * Route prefixes that get the widget: the `routes` option (relative to baseUrl), or by default the
 * path of every version of the docs plugin (e.g. '/docs/', '/book/docs/').
 */
function chatPrefixes({baseUrl, routes, versionPaths}) {
  if (routes && routes.length) {
    return routes.map((r) => asPrefix(baseUrl.replace(/\/$/, '') + '/' + r.replace(/^\//, '')));
  }
  return versionPaths.map(asPrefix);
}

/**
 * The pages that get the widget (contract of `isChatRoute`): `{prefixes, exact}`. The `routes`
 * option, or each docs version's path; but a version served at the site root (docs-only mode,
 * `routeBasePath: '/'`) would make '/' a prefix and give the blog, other docs instances and custom
 * pages a chat that cannot answer about them, so such a version names its own pages instead:
 * each first path segment holding its docs becomes a prefix, its pages right under the root are
 * listed exactly. `versions`: `[{path, permalinks}]`, permalinks of the published docs and
 * generated category pages.
 */
function chatRoutes({baseUrl, routes, versions}) {
  if (routes && routes.length) return {prefixes: chatPrefixes({baseUrl, routes, versionPaths: []}), exact: []};
  const prefixes = new Set();
  const exact = new Set();
  const root = asPrefix(baseUrl);
  for (const v of versions) {
    if (asPrefix(v.path) !== root) {
      prefixes.add(asPrefix(v.path));
      continue;
    }
    for (const link of v.permalinks) {
      const bare = stripSlash(link);
      const withSlash = asPrefix(bare);
      if (!withSlash.startsWith(root)) continue;
      const segments = withSlash.slice(root.length).split('/').filter(Boolean);
      if (segments.length === 0) exact.add(stripSlash(root));
      else if (segments.length === 1) exact.add(bare);
      else prefixes.add(`${root}${segments[0]}/`);
    }
  }
  return {prefixes: [...prefixes], exact: [...exact]};
}

/** Permalinks of the docs whose front matter says `chat: false`. */
function optOutRoutes(docs) {
  return docs.filter((d) => d.frontMatter && d.frontMatter.chat === false).map((d) => stripSlash(d.permalink));
}

/** JSON safe to embed in an inline <script> (no '</script>', no U+2028/2029 surprises). */
function scriptJson(value) {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/**
 * `window.BOOK_CHAT_CONFIG` (contract 1): the loader's and widget's fields; `indexes` (one per docs
 * version), `locale`, `direction` and `strings` only when they say something.
 */
function widgetConfig(c) {
  const w = {proxyUrl: c.proxyUrl, indexUrl: c.indexUrl, wasmUrl: c.wasmUrl, encoderUrl: c.encoderUrl, markdownUrl: c.markdownUrl};
  if (c.indexes && c.indexes.length) w.indexes = c.indexes;
  if (c.locale) w.locale = c.locale;
  if (c.direction) w.direction = c.direction;
  if (c.strings && Object.keys(c.strings).length) w.strings = c.strings;
  return w;
}

/**
 * The inline head script: sets `window.BOOK_CHAT_CONFIG` for the loader, and
 * `window.__bookChatRoute(path)`, which marks <html data-book-chat="on|off"> and adds the loader
 * the first time a chat page is shown (also after client-side navigation, from the client module).
 */
function inlineScript(c) {
  const data = {
    widget: widgetConfig(c),
    loaderUrl: c.loaderUrl,
    prefixes: c.prefixes,
    exact: c.exact || [],
    optOut: c.optOut,
  };
  return [
    '(function(){',
    `var C=${scriptJson(data)};`,
    `var isChatRoute=${isChatRoute.toString()};`,
    `var indexFor=${indexFor.toString()};`,
    // The version of the page the widget first loads on; a widget that reads `indexes` re-decides per question.
    'C.widget.indexUrl=indexFor(location.pathname,C.widget.indexes,C.widget.indexUrl);',
    'window.BOOK_CHAT_CONFIG=C.widget;',
    'window.__bookChatRoute=function(path){',
    'var on=isChatRoute(path,C.prefixes,C.optOut,C.exact);',
    "document.documentElement.setAttribute('data-book-chat',on?'on':'off');",
    'if(on&&!window.__bookChatLoaderAdded){window.__bookChatLoaderAdded=true;',
    "var s=document.createElement('script');s.src=C.loaderUrl;s.async=true;document.head.appendChild(s);}",
    '};',
    'window.__bookChatRoute(location.pathname);',
    '})();',
  ].join('');
}

/**
 * CSS in the page (outside the widget's shadow root): hides the widget on pages without chat
 * (it stays mounted, so its conversation survives), and sets custom colours through the
 * `--ifm-color-primary` the widget already follows.
 */
function inlineCss(colors) {
  const off = 'html[data-book-chat="off"]';
  const rules = [
    `${off} #book-chat-host,${off} body>button[aria-label="Ask the book"]{display:none!important}`,
  ];
  const target = '#book-chat-host,body>button[aria-label="Ask the book"]';
  if (colors.primary) rules.push(`${target}{--ifm-color-primary:${colors.primary}}`);
  if (colors.primaryDark) {
    rules.push(
      `html[data-theme="dark"] #book-chat-host,html[data-theme="dark"] body>button[aria-label="Ask the book"]{--ifm-color-primary:${colors.primaryDark}}`,
    );
  }
  return rules.join('\n');
}

module.exports = {widgetConfig, indexFor, isChatRoute, stripSlash, chatPrefixes, chatRoutes, optOutRoutes, scriptJson, inlineScript, inlineCss};

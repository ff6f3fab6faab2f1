const {test} = require('node:test');
const assert = require('node:assert/strict');
const vm = require('node:vm');
const {isChatRoute, chatPrefixes, chatRoutes, optOutRoutes, inlineScript, inlineCss, scriptJson} = require('../routes');

test('docs pages get the widget, other pages and opted-out pages do not', () => {
  const prefixes = ['/docs/'];
  const optOut = ['/docs/private'];
  assert.equal(isChatRoute('/docs/intro', prefixes, optOut), true);
  assert.equal(isChatRoute('/docs/intro/', prefixes, optOut), true);
  assert.equal(isChatRoute('/docs', prefixes, optOut), true);
  assert.equal(isChatRoute('/docs/ros2/nodes?x=1#a', prefixes, optOut), true);
  assert.equal(isChatRoute('/', prefixes, optOut), false);
  assert.equal(isChatRoute('/docs-old/intro', prefixes, optOut), false);
  assert.equal(isChatRoute('/blog/post', prefixes, optOut), false);
  assert.equal(isChatRoute('/docs/private', prefixes, optOut), false);
  assert.equal(isChatRoute('/docs/private/', prefixes, optOut), false);
  assert.equal(isChatRoute('/docs/private-not', prefixes, optOut), true);
});

test('percent-encoded paths match their decoded permalinks', () => {
  assert.equal(isChatRoute('/docs/caf%C3%A9', ['/docs/'], ['/docs/café']), false);
  assert.equal(isChatRoute('/docs/%E0%A4%A', ['/docs/'], []), true, 'a malformed escape must not throw');
});

test('prefixes follow baseUrl and the routes option', () => {
  assert.deepEqual(chatPrefixes({baseUrl: '/', routes: null, versionPaths: ['/docs']}), ['/docs/']);
  assert.deepEqual(chatPrefixes({baseUrl: '/book/', routes: null, versionPaths: ['/book/docs', '/book/docs/1.0']}), [
    '/book/docs/',
    '/book/docs/1.0/',
  ]);
  assert.deepEqual(chatPrefixes({baseUrl: '/book/', routes: ['guide', '/api/'], versionPaths: ['/book/docs']}), [
    '/book/guide/',
    '/book/api/',
  ]);
  assert.deepEqual(chatPrefixes({baseUrl: '/', routes: [''], versionPaths: ['/docs']}), ['/']);
});

test('docs served at the site root name their own pages, so the blog and other plugins get no chat', () => {
  // create-docusaurus with routeBasePath: '/' and a second docs instance at /community/.
  const versions = [
    {
      path: '/',
      permalinks: ['/', '/tutorial-basics/create-a-page', '/tutorial-basics/deploy-your-site', '/faq', '/category/tutorial---basics'],
    },
  ];
  const routes = chatRoutes({baseUrl: '/', routes: null, versions});
  assert.deepEqual(routes, {prefixes: ['/tutorial-basics/', '/category/'], exact: ['/', '/faq']});
  const on = (p) => isChatRoute(p, routes.prefixes, [], routes.exact);
  for (const p of ['/', '/faq/', '/tutorial-basics/create-a-page', '/category/tutorial---basics']) assert.ok(on(p), p);
  for (const p of ['/blog', '/blog/first-post', '/community/', '/markdown-page', '/faq-old']) assert.ok(!on(p), p);
  // Under a baseUrl, with an older version at /book/1.0/ (a prefix as before).
  const nested = chatRoutes({
    baseUrl: '/book/',
    routes: null,
    versions: [
      {path: '/book/', permalinks: ['/book/', '/book/guide/setup/']},
      {path: '/book/1.0', permalinks: ['/book/1.0/', '/book/1.0/guide/setup']},
    ],
  });
  assert.deepEqual(nested, {prefixes: ['/book/guide/', '/book/1.0/'], exact: ['/book']});
  // Docs under their own path keep the plain prefix; the routes option still wins.
  assert.deepEqual(chatRoutes({baseUrl: '/', routes: null, versions: [{path: '/docs', permalinks: ['/docs/a']}]}), {prefixes: ['/docs/'], exact: []});
  assert.deepEqual(chatRoutes({baseUrl: '/', routes: ['guide'], versions}), {prefixes: ['/guide/'], exact: []});
});

test('the inline script turns the chat on for an exact page', () => {
  const {sandbox, added, attrs} = runInline('/blog', {...CONFIG, prefixes: ['/tutorial/'], exact: ['/']});
  assert.equal(attrs['data-book-chat'], 'off');
  sandbox.window.__bookChatRoute('/');
  assert.equal(attrs['data-book-chat'], 'on');
  assert.equal(added.length, 1);
});

test('front matter chat: false opts a page out (only an explicit false)', () => {
  const docs = [
    {permalink: '/docs/a', frontMatter: {}},
    {permalink: '/docs/b/', frontMatter: {chat: false}},
    {permalink: '/docs/c', frontMatter: {chat: 'false'}},
    {permalink: '/docs/d', frontMatter: {chat: true}},
  ];
  assert.deepEqual(optOutRoutes(docs), ['/docs/b']);
});

test('scriptJson cannot close the script element', () => {
  const s = scriptJson({x: '</script><script>alert(1)</script>\u2028'});
  assert.ok(!s.includes('<'), s);
  assert.ok(!s.includes('\u2028'));
  assert.deepEqual(JSON.parse(s), {x: '</script><script>alert(1)</script>\u2028'});
});

/** Runs the inline script in a fake browser; returns what it did. */
function runInline(pathname, config) {
  const added = [];
  const attrs = {};
  const sandbox = {
    location: {pathname},
    document: {
      documentElement: {setAttribute: (k, v) => (attrs[k] = v)},
      createElement: () => ({}),
      head: {appendChild: (el) => added.push(el.src)},
    },
  };
  sandbox.window = sandbox;
  vm.runInNewContext(inlineScript(config), sandbox);
  return {sandbox, added, attrs};
}

const CONFIG = {
  proxyUrl: '/',
  indexUrl: '/book-index',
  wasmUrl: '/widget/book-chat-abc.js',
  loaderUrl: '/widget/loader.123.js',
  prefixes: ['/docs/'],
  optOut: ['/docs/private'],
};

test('the inline script configures the loader and adds it on a chat page only once', () => {
  const {sandbox, added, attrs} = runInline('/docs/intro', CONFIG);
  assert.deepEqual(JSON.parse(JSON.stringify(sandbox.window.BOOK_CHAT_CONFIG)), {proxyUrl: '/', indexUrl: '/book-index', wasmUrl: '/widget/book-chat-abc.js'});
  assert.equal(attrs['data-book-chat'], 'on');
  assert.deepEqual(added, ['/widget/loader.123.js']);
  // Client-side navigation: off on an opted-out page, on again later, loader never added twice.
  sandbox.window.__bookChatRoute('/docs/private');
  assert.equal(attrs['data-book-chat'], 'off');
  sandbox.window.__bookChatRoute('/docs/other');
  assert.equal(attrs['data-book-chat'], 'on');
  assert.equal(added.length, 1);
});

test('the inline script does not load the widget on a page without chat', () => {
  const {sandbox, added, attrs} = runInline('/', CONFIG);
  assert.equal(attrs['data-book-chat'], 'off');
  assert.deepEqual(added, []);
  sandbox.window.__bookChatRoute('/docs/intro');
  assert.deepEqual(added, ['/widget/loader.123.js']);
});

test('colours become --ifm-color-primary on the widget host; none by default', () => {
  assert.ok(!inlineCss({}).includes('--ifm-color-primary'));
  const css = inlineCss({primary: '#123456', primaryDark: 'rgb(1, 2, 3)'});
  assert.match(css, /#book-chat-host[^{]*\{--ifm-color-primary:#123456\}/);
  assert.match(css, /html\[data-theme="dark"\] #book-chat-host[^{]*\{--ifm-color-primary:rgb\(1, 2, 3\)\}/);
  assert.match(inlineCss({}), /html\[data-book-chat="off"\] #book-chat-host/);
});

test('indexFor: the longest matching version prefix wins, else the default index', () => {
  const {indexFor} = require('../routes');
  const indexes = [
    {prefix: '/docs/', indexUrl: '/book-index/1.0'},
    {prefix: '/docs/next/', indexUrl: '/book-index/current'},
  ];
  assert.equal(indexFor('/docs/next/intro', indexes, '/x'), '/book-index/current');
  assert.equal(indexFor('/docs/intro', indexes, '/x'), '/book-index/1.0');
  assert.equal(indexFor('/blog/', indexes, '/x'), '/x');
  assert.equal(indexFor('/docs/intro', undefined, '/x'), '/x');
});

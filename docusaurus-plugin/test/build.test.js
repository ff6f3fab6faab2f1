// Builds a small fixture book with real Docusaurus and this plugin (baseUrl /book/,
// trailingSlash true, a `chat: false` page), with a stand-in index builder, and checks what the
// plugin passed on, injected and copied, and that a missing cited anchor fails the build.
const {test} = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const {spawnSync} = require('node:child_process');
const vm = require('node:vm');
const cheerio = require('cheerio');

const ROOT = path.resolve(__dirname, '../..');
const DOCUSAURUS = path.join(ROOT, 'node_modules/@docusaurus/core/bin/docusaurus.mjs');

/** A fresh copy of the fixture inside the repo (so node_modules resolve), with a fake widget. */
function setup(name) {
  const dir = path.join(ROOT, 'test-results/plugin-build', name);
  fs.rmSync(dir, {recursive: true, force: true});
  fs.cpSync(path.join(__dirname, 'fixture-site'), path.join(dir, 'site'), {recursive: true});
  const widget = path.join(dir, 'widget');
  fs.mkdirSync(widget, {recursive: true});
  fs.writeFileSync(path.join(widget, 'book-chat-0123abcd.js'), 'export default async function () {}');
  fs.writeFileSync(path.join(widget, 'book-chat-0123abcd_bg.wasm'), Buffer.from([0, 97, 115, 109]));
  fs.writeFileSync(path.join(widget, 'loader.js'), '/* loader */');
  return {dir, site: path.join(dir, 'site'), widget, out: path.join(dir, 'site/build')};
}

function build(t, urls) {
  fs.writeFileSync(path.join(t.dir, 'urls.txt'), urls.join('\n') + '\n');
  const r = spawnSync(process.execPath, [DOCUSAURUS, 'build', t.site, '--out-dir', t.out], {
    encoding: 'utf8',
    timeout: 600000,
    env: {
      ...process.env,
      // The webpack cache in node_modules/.cache is shared by every site using these node_modules
      // (its name does not include the site): a second site reusing it fails to render.
      DOCUSAURUS_NO_PERSISTENT_CACHE: '1',
      BOOK_CHAT_PLUGIN: path.resolve(__dirname, '..'),
      BOOK_CHAT_WIDGET_DIR: t.widget,
      BOOK_CHAT_INDEX_BUILDER: path.join(__dirname, 'fake-index-builder.js'),
      FAKE_ARGS_FILE: path.join(t.dir, 'args.json'),
      FAKE_URLS_FILE: path.join(t.dir, 'urls.txt'),
    },
  });
  // A timed-out build is killed with SIGTERM, on which Docusaurus exits 0: say so instead.
  assert.ok(!r.error, `docusaurus build did not finish: ${r.error}`);
  return r;
}

test('a /book/ site with trailing slashes: index arguments, widget files, config and opt-out', {timeout: 700000}, () => {
  const t = setup('ok');
  const r = build(t, ['/book/docs/a/', '/book/docs/a/#first-section']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const args = JSON.parse(fs.readFileSync(path.join(t.dir, 'args.json'), 'utf8'));
  const arg = (n) => args[args.indexOf(n) + 1];
  assert.equal(arg('--docs'), path.join(t.site, 'docs'));
  // Written beside the final folder, then moved in (a failed build leaves no index that looks complete).
  assert.match(arg('--out'), /book-index\.tmp-\d+$/);
  assert.ok(fs.existsSync(path.join(t.out, 'book-index/manifest.json')));
  assert.ok(!fs.readdirSync(t.out).some((f) => f.includes('.tmp-')));
  assert.equal(arg('--cache'), path.join(t.site, 'node_modules/.cache/book-chat/embeddings-en-current.bin'));
  assert.equal(arg('--base-url'), '/book/');
  assert.equal(arg('--route-base-path'), '/docs');
  assert.equal(arg('--trailing-slash'), 'true');
  // The site's Docusaurus, for its heading-anchor rules.
  assert.equal(arg('--docusaurus-version'), require('@docusaurus/core/package.json').version);
  // Docusaurus fills in markdown.format ('mdx' by default).
  assert.equal(arg('--markdown-format'), 'mdx');
  assert.ok(!args.includes('--anchors-maintain-case'), 'the fixture keeps the default lower-case anchors');
  // The word table is the builder's unless the author sets it (the instances test does).
  assert.ok(!args.includes('--word-min-uses') && !args.includes('--word-rows'));
  // Each doc's permalink, by its path in the docs folder.
  const permalinks = JSON.parse(fs.readFileSync(arg('--permalinks'), 'utf8'));
  assert.equal(permalinks['a.md'], '/book/docs/a');
  assert.equal(arg('--title'), 'Fixture book');
  const files = fs.readdirSync(path.join(t.out, 'widget')).sort();
  assert.equal(files.length, 3, files.join(' '));
  assert.ok(files.includes('book-chat-0123abcd.js') && files.includes('book-chat-0123abcd_bg.wasm'));
  const loader = files.find((f) => /^loader\.[0-9a-f]{10}\.js$/.test(f));
  assert.ok(loader, files.join(' '));
  // Run the page's inline script (as minified by Docusaurus) in a fake browser.
  const $ = cheerio.load(fs.readFileSync(path.join(t.out, 'docs/a/index.html'), 'utf8'));
  const added = [];
  const attrs = {};
  const win = {
    location: {pathname: '/book/docs/a/'},
    document: {
      documentElement: {setAttribute: (k, v) => (attrs[k] = v)},
      createElement: () => ({}),
      head: {appendChild: (el) => added.push(el.src)},
    },
  };
  win.window = win;
  vm.runInNewContext($('script[data-book-chat]').text(), win);
  assert.deepEqual(JSON.parse(JSON.stringify(win.BOOK_CHAT_CONFIG)), {
    proxyUrl: null,
    indexUrl: '/book/book-index',
    wasmUrl: '/book/widget/book-chat-0123abcd.js',
    // The fixture's widget folder has no question-encoder module: BM25-only answers.
    encoderUrl: null,
    // Nor the Markdown module: answers are shown as plain text.
    markdownUrl: null,
    locale: 'en',
    direction: 'ltr',
  });
  assert.deepEqual(added, [`/book/widget/${loader}`]);
  assert.equal(attrs['data-book-chat'], 'on');
  win.__bookChatRoute('/book/docs/b/');
  assert.equal(attrs['data-book-chat'], 'off', 'chat: false page');
  win.__bookChatRoute('/book/');
  assert.equal(attrs['data-book-chat'], 'off', 'landing page');
  win.__bookChatRoute('/book/docs/a/');
  assert.equal(attrs['data-book-chat'], 'on');
  assert.match($('style[data-book-chat]').text(), /--ifm-color-primary:#aa3300/);
  // Every page carries the tags (client-side navigation can reach a chat page from any page).
  assert.equal(cheerio.load(fs.readFileSync(path.join(t.out, 'index.html'), 'utf8'))('script[data-book-chat]').length, 1);
  assert.ok(r.stdout.includes('checked 2 cited URLs'), r.stdout);
});

test('a cited page missing from the built HTML fails the build, a missing anchor warns, as the site says', {timeout: 700000}, () => {
  const t = setup('missing');
  const r = build(t, ['/book/docs/a/#first-section', '/book/docs/a/#no-such-section', '/book/docs/gone/']);
  assert.notEqual(r.status, 0, 'the build should fail');
  const out = r.stdout + r.stderr;
  // onBrokenLinks: 'throw' (the fixture's) for the page, onBrokenAnchors' default 'warn' for the anchor.
  assert.match(out, /1 cited URL\(s\) do not exist in the built site \(locale en, onBrokenLinks\)/);
  assert.match(out, /\/book\/docs\/gone\/: no page/);
  assert.match(out, /1 cited anchor\(s\) do not exist in the built site \(locale en, onBrokenAnchors\)/);
  assert.match(out, /\/book\/docs\/a\/#no-such-section: page docs\/a\/index\.html has no element with id "no-such-section"/);
  // No half-written output that looks complete.
  assert.ok(!fs.existsSync(path.join(t.out, 'index.html')), 'the incomplete build folder is removed');
  assert.match(out, /incomplete output folder .* was removed/);
});

test('a missing cited anchor alone: the build succeeds with a warning, or fails under onBrokenAnchors: throw', {timeout: 700000}, () => {
  const t = setup('anchor-only');
  const urls = ['/book/docs/a/#first-section', '/book/docs/a/#no-such-section'];
  let r = build(t, urls);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /1 cited anchor\(s\) do not exist .* open their page at the top/);
  assert.ok(fs.existsSync(path.join(t.out, 'book-index/manifest.json')));
  const config = path.join(t.site, 'docusaurus.config.js');
  fs.writeFileSync(config, fs.readFileSync(config, 'utf8').replace("onBrokenLinks: 'throw',", "onBrokenLinks: 'throw',\n  onBrokenAnchors: 'throw',"));
  r = build(t, urls);
  assert.notEqual(r.status, 0, 'onBrokenAnchors: throw should fail the build');
  assert.match(r.stdout + r.stderr, /no element with id "no-such-section"/);
});

test('every docs instance gets its own index, and a page asks the index of its instance', {timeout: 700000}, () => {
  const t = setup('instances');
  // A second docs instance at /book/community/, as the Docusaurus site has.
  fs.mkdirSync(path.join(t.site, 'community'));
  fs.writeFileSync(path.join(t.site, 'community/c.md'), '# Community page\n\n## Meetups\n\nWe meet every month.\n');
  const config = path.join(t.site, 'docusaurus.config.js');
  fs.writeFileSync(
    config,
    fs
      .readFileSync(config, 'utf8')
      .replace('plugins: [', "plugins: [\n    ['@docusaurus/plugin-content-docs', {id: 'community', path: 'community', routeBasePath: 'community'}],")
      .replace("colors: {primary: '#aa3300'},", "colors: {primary: '#aa3300'},\n        wordMinUses: 1,\n        wordRows: 100000,"),
  );
  const r = build(t, ['/book/docs/a/', '/book/community/c/#meetups']);
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const runs = fs
    .readFileSync(path.join(t.dir, 'args.json.all'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
  const arg = (args, n) => args[args.indexOf(n) + 1];
  assert.deepEqual(runs.map((a) => path.basename(arg(a, '--docs'))).sort(), ['community', 'docs']);
  const community = runs.find((a) => arg(a, '--docs').endsWith('community'));
  assert.equal(arg(community, '--route-base-path'), '/community');
  for (const a of runs) assert.deepEqual([arg(a, '--word-min-uses'), arg(a, '--word-rows')], ['1', '100000']);
  // Its own embedding cache and permalinks; the default instance keeps its file names.
  assert.equal(arg(community, '--cache'), path.join(t.site, 'node_modules/.cache/book-chat/embeddings-en-community-current.bin'));
  assert.equal(JSON.parse(fs.readFileSync(arg(community, '--permalinks'), 'utf8'))['c.md'], '/book/community/c');
  assert.ok(fs.existsSync(path.join(t.out, 'book-index/manifest.json')));
  assert.ok(fs.existsSync(path.join(t.out, 'book-index-community/manifest.json')));
  // The pages of both instances get the chat, each asking its own index.
  const $ = cheerio.load(fs.readFileSync(path.join(t.out, 'community/c/index.html'), 'utf8'));
  const attrs = {};
  const win = {
    location: {pathname: '/book/community/c/'},
    document: {documentElement: {setAttribute: (k, v) => (attrs[k] = v)}, createElement: () => ({}), head: {appendChild: () => {}}},
  };
  win.window = win;
  vm.runInNewContext($('script[data-book-chat]').text(), win);
  assert.equal(attrs['data-book-chat'], 'on');
  const cfg = JSON.parse(JSON.stringify(win.BOOK_CHAT_CONFIG));
  // The page's own instance answers first; the widget re-decides per question by `indexes`.
  assert.equal(cfg.indexUrl, '/book/book-index-community');
  assert.deepEqual(cfg.indexes.map((i) => [i.prefix, i.indexUrl]).sort(), [
    ['/book/community/', '/book/book-index-community'],
    ['/book/docs/', '/book/book-index'],
  ]);
  win.__bookChatRoute('/book/docs/a/');
  assert.equal(attrs['data-book-chat'], 'on');
  assert.ok(r.stdout.includes('checked 4 cited URLs'), r.stdout);
});

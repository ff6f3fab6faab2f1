// The author's path, end to end: the tarballs written by scripts/pack.sh are installed with npm into
// a copy of a fixture Docusaurus book that is not this repo's sample (TypeScript config, English +
// Urdu (rtl, translated headings), docs versions 1.0 and next), `docusaurus build` runs with a PATH
// that holds no cargo or rustc and an empty HOME, the output is served by a tiny static server, and
// headless Chromium asks a question on a page of each locale and each version: the cited link must
// land on an existing anchor of that locale and version. Then `docusaurus start` (the author's
// first `npm start`): the dev server shows the chat, indexed in the background, and re-indexes
// after a page is saved.
//   scripts/pack.sh && node --test tests/package/package.test.mjs      (~3-5 min)
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {spawn, spawnSync} from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {chromium} from 'playwright-core';
import {freePort} from '../e2e/lib/harness.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const FIXTURE = path.join(ROOT, 'tests/package/fixture');
const TARBALLS = process.env.BOOK_CHAT_NPM_OUT || path.join(ROOT, 'static/npm');
const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'];

// One page per locale and version, a question it answers, and where its citations must point.
const CASES = [
  {name: 'en, next', page: '/docs/next/intro', question: 'How often does the foghorn sound its blast?', prefix: '/docs/next/', anchor: '/docs/next/keeping/fog-signals#foghorn-timing'},
  {name: 'en, 1.0', page: '/docs/intro', question: 'How many times is the fog bell struck?', prefix: '/docs/', notPrefix: '/docs/next/', anchor: '/docs/keeping/fog-bell#bell-striking-pattern'},
  {name: 'ur, next', page: '/ur/docs/next/intro', question: 'بھونپو کتنے سیکنڈ بعد آواز دیتا ہے', prefix: '/ur/docs/next/', anchor: '/ur/docs/next/keeping/fog-signals#بھونپو-کا-وقت'},
  {name: 'ur, 1.0', page: '/ur/docs/intro', question: 'تیل کا چراغ کب جلاتا ہے', prefix: '/ur/docs/', notPrefix: '/ur/docs/next/', anchor: '/ur/docs/intro#رات-کا-معمول'},
];

let work;
let server;
let origin;
let browser;

/** Runs a command, failing the test with its output when it fails. */
function sh(cmd, args, opts) {
  const r = spawnSync(cmd, args, {encoding: 'utf8', maxBuffer: 256 << 20, ...opts});
  assert.equal(r.status, 0, `${cmd} ${args.join(' ')} failed (${r.error || r.status}):\n${r.stdout}\n${r.stderr}`);
  return r;
}

/** A static file server for the build: `/a/b` -> a/b/index.html or a/b.html, as static hosts do. */
function serve(dir) {
  return new Promise((resolve) => {
    const s = http.createServer((req, res) => {
      const p = decodeURIComponent(new URL(req.url, 'http://x').pathname);
      const base = path.join(dir, p);
      if (!base.startsWith(dir)) {
        res.writeHead(403).end();
        return;
      }
      const file = [base, path.join(base, 'index.html'), `${base}.html`].find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
      if (!file) {
        res.writeHead(404).end('not found');
        return;
      }
      const types = {'.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json', '.css': 'text/css'};
      res.writeHead(200, {'content-type': types[path.extname(file)] || 'application/octet-stream'});
      fs.createReadStream(file).pipe(res);
    });
    s.listen(0, '127.0.0.1', () => resolve(s));
  });
}

/** Waits until `check()` is truthy (polled every 250 ms), failing with `what` and `log()` after `ms`. */
async function until(check, ms, what, log = () => '') {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}:\n${log()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** GET `url` as text, or null when it fails or is not 200. */
async function fetchText(url) {
  try {
    const r = await fetch(url);
    return r.ok ? await r.text() : null;
  } catch {
    return null;
  }
}

/** Opens `url`, asks `question` and returns the hrefs of the answer's links with an anchor. */
async function askOnPage(url, question) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  try {
    await page.goto(url, {waitUntil: 'load'});
    const bubble = page.locator('#book-chat-bubble');
    await bubble.waitFor({state: 'visible', timeout: 60000});
    await bubble.click();
    const box = page.locator('#book-chat-host textarea');
    await box.waitFor({state: 'visible', timeout: 30000});
    await box.fill(question);
    await box.press('Enter');
    const links = page.locator('#book-chat-host .bc-turn .bc-a a[href*="#"]');
    await links.first().waitFor({state: 'attached', timeout: 30000});
    const hrefs = await links.evaluateAll((els) => els.map((a) => decodeURI(a.getAttribute('href'))));
    assert.deepEqual(errors, [], url);
    return hrefs;
  } finally {
    await context.close();
  }
}

describe('the packed plugin in a fixture book (Node only)', {timeout: 10 * 60 * 1000}, () => {
  before(() => {
    const tgz = fs.existsSync(TARBALLS) ? fs.readdirSync(TARBALLS).filter((f) => /^docusaurus-plugin-book-chat-.*\.tgz$/.test(f)) : [];
    assert.ok(tgz.some((f) => f.includes('linux-x64')) && tgz.length >= 2, `no tarballs in ${TARBALLS}: run scripts/pack.sh first`);
    assert.ok(fs.existsSync(CHROMIUM), `${CHROMIUM} is missing (apt-get install chromium)`);
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'book-chat-package-'));
    fs.cpSync(FIXTURE, path.join(work, 'site'), {recursive: true});
    // npm with the machine's cache (a registry copy kept offline where possible).
    sh('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...tgz.map((f) => path.join(TARBALLS, f))], {cwd: path.join(work, 'site')});
  });

  after(async () => {
    await browser?.close().catch(() => {});
    server?.close();
    if (work && !process.env.KEEP_PACKAGE_TEST) fs.rmSync(work, {recursive: true, force: true});
  });

  test('docusaurus build with no cargo, no rustc and an empty HOME', {timeout: 6 * 60 * 1000}, () => {
    const home = path.join(work, 'empty-home');
    fs.mkdirSync(home);
    const PATH = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':');
    for (const tool of ['cargo', 'rustc']) {
      assert.notEqual(spawnSync('sh', ['-c', `command -v ${tool}`], {env: {PATH}}).status, 0, `${tool} is on the test PATH`);
    }
    const site = path.join(work, 'site');
    const t0 = Date.now();
    const r = sh(process.execPath, [path.join(site, 'node_modules/@docusaurus/core/bin/docusaurus.mjs'), 'build'], {
      cwd: site,
      env: {PATH, HOME: home, LANG: 'C.UTF-8', DOCUSAURUS_NO_PERSISTENT_CACHE: '1'},
    });
    console.log(`figure: docusaurus build of the fixture (2 locales x 2 versions), package builder: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const out = r.stdout + r.stderr;
    for (const idx of ['build/book-index/1.0', 'build/book-index/current', 'build/ur/book-index/1.0', 'build/ur/book-index/current']) {
      assert.ok(fs.existsSync(path.join(site, idx, 'manifest.json')), `${idx} missing:\n${out}`);
    }
    assert.match(out, /every page and anchor exists/);
    // Nothing of ours in HOME (Docusaurus' update notifier keeps its own note in ~/.config).
    assert.ok(!fs.existsSync(path.join(home, '.cache')), 'the build wrote a cache into HOME');
  });

  test('a question on a page of each locale and version cites that locale and version', {timeout: 3 * 60 * 1000}, async () => {
    const build = path.join(work, 'site/build');
    server = await serve(build);
    origin = `http://127.0.0.1:${server.address().port}`;
    browser = await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS});
    for (const c of CASES) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      try {
        await page.goto(origin + c.page, {waitUntil: 'load'});
        const config = await page.evaluate(() => window.BOOK_CHAT_CONFIG);
        if (c.page.startsWith('/ur/')) {
          assert.equal(config.locale, 'ur', c.name);
          assert.equal(config.direction, 'rtl', c.name);
          assert.equal(config.strings.bubble, 'کتاب سے پوچھیں', 'code.json bookChat.* strings reach the config');
        }
        assert.ok(config.indexes.some((i) => i.prefix === c.prefix), `${c.name}: ${JSON.stringify(config.indexes)}`);
        // The page has only the loader's placeholder bubble until the reader shows intent; a click
        // fetches the widget and opens the panel. Its name is the locale's.
        const bubble = page.locator('#book-chat-bubble');
        await bubble.waitFor({state: 'visible', timeout: 30000});
        if (c.page.startsWith('/ur/')) assert.equal(await bubble.getAttribute('aria-label'), 'کتاب سے پوچھیں');
        await bubble.click();
        const box = page.locator('#book-chat-host textarea');
        await box.waitFor({state: 'visible', timeout: 30000});
        await box.fill(c.question);
        await box.press('Enter');
        const link = page.locator('#book-chat-host .bc-turn .bc-a a[href*="#"]').first();
        await link.waitFor({state: 'attached', timeout: 30000});
        const hrefs = await page.locator('#book-chat-host .bc-turn .bc-a a[href*="#"]').evaluateAll((els) => els.map((a) => a.getAttribute('href')));
        for (const h of hrefs) {
          const p = decodeURI(h);
          assert.ok(p.startsWith(c.prefix) && !(c.notPrefix && p.startsWith(c.notPrefix)), `${c.name}: citation ${p} is not in ${c.prefix}`);
        }
        assert.ok(hrefs.map((h) => decodeURI(h)).includes(c.anchor), `${c.name}: expected ${c.anchor} among ${hrefs.map(decodeURI).join(' ')}`);
        // The quotes are framed in the locale's words (code.json bookChat.excerptLabel), not English.
        if (c.page.startsWith('/ur/')) {
          const answer = await page.locator('#book-chat-host .bc-turn .bc-a').first().innerText();
          assert.ok(answer.includes('کتاب سے اقتباسات') && !answer.includes('Excerpts from the book'), `${c.name}: ${answer}`);
        }
        // The cited anchor exists on the page it names.
        const [pathname, hash] = decodeURI(hrefs[0]).split('#');
        await page.goto(origin + encodeURI(pathname), {waitUntil: 'load'});
        assert.ok(await page.evaluate((id) => !!document.getElementById(id), hash), `${c.name}: no element #${hash} on ${pathname}`);
        if (c.page.startsWith('/ur/')) assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl');
        assert.deepEqual(errors, [], c.name);
        console.log(`${c.name}: ${c.question} -> ${decodeURI(hrefs[0])}`);
      } finally {
        await context.close();
      }
    }
  });

  test('docusaurus start shows the chat, indexed in the background, and re-indexes a saved page', {timeout: 5 * 60 * 1000}, async () => {
    const site = path.join(work, 'site');
    const PATH = [path.dirname(process.execPath), '/usr/bin', '/bin'].join(':');
    const port = await freePort();
    const dev = `http://127.0.0.1:${port}`;
    let log = '';
    const child = spawn(process.execPath, [path.join(site, 'node_modules/@docusaurus/core/bin/docusaurus.mjs'), 'start', '--port', String(port), '--host', '127.0.0.1', '--no-open'], {
      cwd: site,
      env: {PATH, HOME: path.join(work, 'empty-home'), LANG: 'C.UTF-8', DOCUSAURUS_NO_PERSISTENT_CACHE: '1', BROWSER: 'none'},
      detached: true,
    });
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    const ready = () => (log.match(/index for `docusaurus start` is ready/g) || []).length;
    try {
      // Both versions are indexed, then the dev server serves the indexes and the widget.
      await until(() => ready() >= 1, 180000, 'the background index', () => log);
      const manifest = JSON.parse(await until(() => fetchText(`${dev}/book-index/current/manifest.json`), 60000, 'the dev index', () => log));
      assert.ok(await fetchText(`${dev}/book-index/1.0/manifest.json`), 'the 1.0 index is served');
      const html = await until(() => fetchText(`${dev}/docs/next/intro`), 120000, 'the dev server', () => log);
      assert.match(html, /BOOK_CHAT_CONFIG/, 'the dev page carries the chat config');
      browser ??= await chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS});
      const hrefs = await askOnPage(`${dev}/docs/next/intro`, 'How often does the foghorn sound its blast?');
      assert.ok(hrefs.includes('/docs/next/keeping/fog-signals#foghorn-timing'), `dev server: ${hrefs.join(' ')}`);
      // An author saves a new section: the dev server indexes again and cites it.
      const page = path.join(site, 'docs/keeping/fog-signals.md');
      fs.appendFileSync(page, '\n## Painting the tower\n\nEvery third summer the keeper repaints the tower in red and white bands with marine enamel.\n');
      await until(() => ready() >= 2, 180000, 'the index after a saved page', () => log);
      const next = JSON.parse(await fetchText(`${dev}/book-index/current/manifest.json`));
      assert.notEqual(next.content_hash, manifest.content_hash, 'the saved page changed the index');
      const after = await askOnPage(`${dev}/docs/next/keeping/fog-signals`, 'how often is the lighthouse repainted');
      assert.ok(after.includes('/docs/next/keeping/fog-signals#painting-the-tower'), `after the edit: ${after.join(' ')}`);
      assert.doesNotMatch(log, /keeps the index it had/, 'no background build failed');
    } finally {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {}
    }
  });
});

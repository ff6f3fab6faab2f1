// Test harness for the browser tests: starts the release proxy serving the built book (and the
// stub upstream), launches Debian's Chromium through playwright-core, keeps screenshots in one
// folder, and kills everything it started. Every wait is bounded.
import {execFileSync, spawn} from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import {fileURLToPath} from 'node:url';
import {chromium} from 'playwright-core';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SITE = path.join(ROOT, 'www/build');
const TARGET = process.env.CARGO_TARGET_DIR || path.join(ROOT, 'target');
export const PROXY_BIN = path.join(TARGET, 'release/proxy');
export const STUB_BIN = path.join(TARGET, 'release/stub-upstream');
export const SCREENSHOTS = path.join(ROOT, 'test-results/screenshots');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--headless',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const children = new Set();
function killAll() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* already gone */
    }
  }
}
process.on('exit', killAll);

/** Fails the run early with a clear message when the build or the browser is missing. */
export function requireBuilt() {
  const missing = [];
  if (!fs.existsSync(path.join(SITE, 'index.html'))) missing.push(`${SITE} (run scripts/build-site.sh)`);
  if (!fs.existsSync(path.join(SITE, 'book-index/manifest.json'))) missing.push(`${SITE}/book-index`);
  if (!fs.existsSync(PROXY_BIN)) missing.push(`${PROXY_BIN} (cargo build --release -p proxy)`);
  if (!fs.existsSync(STUB_BIN)) missing.push(`${STUB_BIN} (cargo build --release -p proxy --bins)`);
  if (!fs.existsSync(CHROMIUM)) missing.push(`${CHROMIUM} (apt-get install chromium)`);
  if (missing.length) throw new Error(`e2e prerequisites missing:\n  ${missing.join('\n  ')}`);
}

/** Empties the screenshot folder so it holds this run's pictures only. */
export function resetScreenshots() {
  fs.rmSync(SCREENSHOTS, {recursive: true, force: true});
  fs.mkdirSync(SCREENSHOTS, {recursive: true});
}

/** A free TCP port on 127.0.0.1 (asked of the OS, then released for the proxy to take). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const {port} = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** Rejects after `ms` with `what` in the message; every wait in the tests goes through this. */
export function within(ms, what, promise) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Starts the proxy on `port` serving the built site. `upstream` = the stub's base URL, or null
 * for no LLM (extractive answers). Resolves once it prints its start line.
 */
export async function startProxy({port, upstream = null, args: extraArgs = []}) {
  const env = {...process.env, RUST_LOG: 'warn'};
  delete env.LLM_BASE_URL;
  delete env.LLM_API_KEY;
  delete env.LLM_MODEL;
  if (upstream) {
    env.LLM_BASE_URL = upstream;
    env.LLM_MODEL = 'stub-model';
  }
  const args = ['--listen', `127.0.0.1:${port}`, '--site', SITE, '--shutdown-grace', '1s', ...extraArgs];
  const child = spawn(PROXY_BIN, args, {env, stdio: ['ignore', 'pipe', 'pipe']});
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({code, signal})));
  child.on('exit', () => children.delete(child));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const started = new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('proxy listening on')) resolve();
    });
    exited.then(({code}) => reject(new Error(`proxy exited (${code}) before starting: ${stderr}`)));
  });
  await within(20000, 'proxy start line', started);
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    /** SIGKILL: the process dies at once, mid-stream if a chat is in flight (fault runs). */
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGKILL');
      await within(5000, 'proxy exit after SIGKILL', exited);
    },
    /** SIGTERM, then SIGKILL if it has not exited within 5 s. */
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      try {
        await within(5000, 'proxy exit after SIGTERM', exited);
      } catch {
        child.kill('SIGKILL');
        await within(5000, 'proxy exit after SIGKILL', exited);
      }
    },
  };
}

/**
 * The `cite` scenario's answer chunks, read from the Rust stub (their one definition); [''] when the
 * stub binary is not built yet, so importing does not throw and requireBuilt can fail the run with
 * a clear message.
 */
export const ANSWER_CHUNKS = fs.existsSync(STUB_BIN)
  ? JSON.parse(execFileSync(STUB_BIN, ['--print-cite-answer'], {encoding: 'utf8'}))
  : [''];

/**
 * Starts the Rust stub upstream (`stub-upstream --scenario cite`: streams ANSWER_CHUNKS, which cite
 * [1] and [2], `delayMs` apart) on a free loopback port. Returns {url, requests, close}; `requests`
 * is the list of JSON bodies received so far, read from the stub's record file (also kept at
 * `recordFile` when given).
 */
export async function startStub({delayMs = 150, recordFile = null} = {}) {
  // A record file of our own lives in a temporary folder that close() removes.
  const ownDir = recordFile ? null : fs.mkdtempSync(path.join(process.env.TMPDIR || '/tmp', 'book-chat-stub-'));
  const record = recordFile || path.join(ownDir, 'requests.jsonl');
  const args = ['--listen', '127.0.0.1:0', '--scenario', 'cite', '--delay-ms', String(delayMs), '--record', record];
  const child = spawn(STUB_BIN, args, {env: {...process.env, RUST_LOG: 'warn'}, stdio: ['ignore', 'pipe', 'pipe']});
  children.add(child);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({code, signal})));
  child.on('exit', () => children.delete(child));
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const base = await within(
    10000,
    'stub-upstream start line',
    new Promise((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d) => {
        out += d;
        const m = out.match(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
        if (m) resolve(m[1]);
      });
      exited.then(({code}) => reject(new Error(`stub-upstream exited (${code}) before starting: ${stderr}`)));
    }),
  );
  return {
    url: `${base}/v1`,
    get requests() {
      if (!fs.existsSync(record)) return [];
      return fs
        .readFileSync(record, 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l).body);
    },
    async close() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        try {
          await within(5000, 'stub exit after SIGTERM', exited);
        } catch {
          child.kill('SIGKILL');
          await within(5000, 'stub exit after SIGKILL', exited);
        }
      }
      if (ownDir) fs.rmSync(ownDir, {recursive: true, force: true});
    },
  };
}

/** Debian's Chromium, headless; never a downloaded browser. */
export function launchBrowser() {
  return chromium.launch({executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true, timeout: 30000});
}

/** A fresh context (own storage) and page with bounded default waits; page errors are collected. */
export async function newPage(browser, contextOptions = {}) {
  const context = await browser.newContext({viewport: {width: 1280, height: 860}, ...contextOptions});
  const page = await context.newPage();
  page.setDefaultTimeout(15000);
  page.setDefaultNavigationTimeout(20000);
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  return {context, page, errors};
}

/** Saves a full-window screenshot as test-results/screenshots/<name>.png. */
export async function screenshot(page, name) {
  fs.mkdirSync(SCREENSHOTS, {recursive: true});
  await page.screenshot({path: path.join(SCREENSHOTS, `${name}.png`)});
}

/** The element focused now, looking through shadow roots: {tag, text, href, inSources}. */
export function deepActive(page) {
  return page.evaluate(() => {
    let a = document.activeElement;
    while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
    if (!a) return null;
    return {
      tag: a.tagName.toLowerCase(),
      text: (a.textContent || '').trim().slice(0, 80),
      href: a.getAttribute('href'),
      label: a.getAttribute('aria-label'),
      inSources: !!a.closest('ol[aria-label="Sources"]'),
    };
  });
}

/** Whether the element with the URL's #fragment exists and its top is inside the viewport. */
export function anchorInView(page) {
  return page.evaluate(() => {
    const id = decodeURIComponent(location.hash.slice(1));
    const el = id && document.getElementById(id);
    if (!el) return {id, found: false};
    const r = el.getBoundingClientRect();
    return {id, found: true, top: r.top, inView: r.top >= -2 && r.top < innerHeight};
  });
}

/** The widget's own files (JS glue and wasm, not the loader nor the question encoder). */
export const WIDGET_FILE = /\/book-chat-[0-9a-f]+(_bg\.wasm|\.js)(\?|$)/;

/**
 * Records the page's requests for the widget: `{widget: [urls of WIDGET_FILE], loader: [urls]}`,
 * live (the arrays grow as requests are made).
 */
export function widgetRequests(page) {
  const seen = {widget: [], loader: []};
  page.on('request', (r) => {
    const u = r.url();
    if (WIDGET_FILE.test(new URL(u).pathname)) seen.widget.push(u);
    else if (/\/loader(\.[0-9a-f]+)?\.js(\?|$)/.test(new URL(u).pathname)) seen.loader.push(u);
  });
  return seen;
}

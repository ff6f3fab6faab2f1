// The loader in the built book: first-load cost and "never silently dead".
//   - before any interaction the page fetches the loader only (no widget JS glue, no wasm);
//   - pointer over the bubble prefetches the widget without mounting it; a click opens the panel;
//   - a text selection in the article loads the widget so "Ask about this" shows next to it;
//   - Alt+Shift+A opens the panel from a cold page;
//   - a panic inside the widget is logged with its location and the bubble is replaced by a notice;
//   - a hand-written config holding values the widget cannot read still starts it (each value is
//     dropped with a warning).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {freePort, launchBrowser, newPage, requireBuilt, ROOT, screenshot, startProxy, widgetRequests} from './lib/harness.mjs';

const CHAPTER = '/docs/ros2/nodes-topics';
const TEST_TIMEOUT = 90000;

let proxy;
let browser;

describe('widget loader', {timeout: 10 * 60 * 1000}, () => {
  before(async () => {
    requireBuilt();
    proxy = await startProxy({port: await freePort(), upstream: null});
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await proxy?.stop().catch(() => {});
  });

  test('the loader is at most 5 KB gzipped', () => {
    const gz = zlib.gzipSync(fs.readFileSync(path.join(ROOT, 'widget-loader/loader.js')), {level: 9}).length;
    console.log(`figure: loader.js ${gz} B gzipped`);
    assert.ok(gz <= 5 * 1024, `loader.js is ${gz} B gzipped`);
  });

  test('no request for the widget before interaction; hover prefetches, click opens', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    const seen = widgetRequests(page);
    try {
      await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
      // A reader reads: scrolls and moves the pointer over the article, for a while.
      await page.mouse.move(300, 300);
      await page.mouse.wheel(0, 600);
      await page.waitForTimeout(4000);
      assert.deepEqual(seen.widget, [], `widget fetched before any interaction: ${seen.widget.join(' ')}`);
      assert.ok(seen.loader.length === 1, `loader requests: ${seen.loader.join(' ')}`);
      assert.equal(await page.locator('#book-chat-host').count(), 0, 'widget mounted before interaction');
      // Pointer over the bubble: the widget is fetched but not mounted yet.
      await page.getByRole('button', {name: 'Ask the book'}).hover();
      await page.waitForFunction(() => performance.getEntriesByType('resource').some((e) => /\/book-chat-[0-9a-f]+_bg\.wasm/.test(e.name)), null, {timeout: 20000});
      assert.ok(seen.widget.some((u) => u.endsWith('.js')), 'no JS glue prefetched on hover');
      assert.equal(await page.locator('#book-chat-host').count(), 0, 'hover mounted the widget');
      await page.getByRole('button', {name: 'Ask the book'}).click();
      await page.getByRole('textbox', {name: 'Your question'}).waitFor({state: 'visible', timeout: 20000});
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('a selection in the article loads the widget: "Ask about this" shows', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    const seen = widgetRequests(page);
    try {
      await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
      assert.deepEqual(seen.widget, []);
      const para = page.locator('.theme-doc-markdown p').nth(1);
      await para.scrollIntoViewIfNeeded();
      await para.click({clickCount: 3});
      await page.getByRole('button', {name: 'Ask about this'}).waitFor({state: 'visible', timeout: 20000});
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('Alt+Shift+A on a cold page opens the panel', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
      await page.keyboard.press('Alt+Shift+A');
      await page.getByRole('textbox', {name: 'Your question'}).waitFor({state: 'visible', timeout: 20000});
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('a panic in the widget is logged and the bubble becomes a "reload" notice', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page} = await newPage(browser);
    const consoleErrors = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    try {
      await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
      await page.getByRole('button', {name: 'Ask the book'}).click();
      await page.getByRole('textbox', {name: 'Your question'}).waitFor({state: 'visible', timeout: 20000});
      // The same module instance the loader imported (ES modules are cached by URL).
      const thrown = await page.evaluate(async () => {
        const mod = await import(new URL(window.BOOK_CHAT_CONFIG.wasmUrl, location.href).href);
        try {
          mod.force_panic_for_tests();
          return null;
        } catch (e) {
          return `${e.name}: ${e.message}`;
        }
      });
      assert.match(String(thrown), /RuntimeError/);
      const notice = page.getByRole('alert').filter({hasText: 'The assistant stopped; reload the page'});
      await notice.waitFor({state: 'visible', timeout: 5000});
      assert.equal(await page.locator('#book-chat-host').count(), 0, 'the dead widget is still shown');
      const logged = consoleErrors.find((t) => t.includes('book-chat panicked'));
      assert.ok(logged, `no panic report in the console: ${consoleErrors.join(' | ')}`);
      assert.match(logged, /panic forced by a test/);
      assert.match(logged, /panic_report\.rs:\d+:\d+/);
      await screenshot(page, 'loader-dead-notice');
      // The notice's button reloads; the panel was open, so the loader mounts the widget at once
      // and the widget reopens it.
      await notice.getByRole('button', {name: 'Reload'}).click();
      await page.waitForLoadState('load');
      await page.getByRole('textbox', {name: 'Your question'}).waitFor({state: 'visible', timeout: 20000});
    } finally {
      await context.close();
    }
  });

  test('a hand-written config with values the widget cannot read: each is dropped with a warning, and the reader is answered', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    const warnings = [];
    page.on('console', (m) => m.type() === 'warning' && warnings.push(m.text()));
    // An author writes window.BOOK_CHAT_CONFIG by hand (no plugin to validate it): numbers, null
    // and objects where text belongs, translations that are not text, a broken version route.
    await page.addInitScript(() => {
      let config;
      Object.defineProperty(window, 'BOOK_CHAT_CONFIG', {
        configurable: true,
        get: () => config,
        set: (given) => {
          config = Object.assign({}, given, {
            locale: 42,
            direction: {rtl: true},
            strings: {bubble: 'Frag das Buch', send: 5, close: null, stop: {x: 1}, settings: ['a']},
            indexes: [{prefix: 3, indexUrl: '/x/'}, ...(given.indexes || [])],
          });
        },
      });
    });
    try {
      await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
      // The one translation that is text is used; the panel opens and answers in English otherwise.
      await page.getByRole('button', {name: 'Frag das Buch'}).click();
      await page.getByRole('textbox', {name: 'Your question'}).fill('What is a topic?');
      await page.getByRole('button', {name: 'Send', exact: true}).click();
      const answer = page.locator('.bc-turn').last().locator('.bc-a');
      await answer.getByRole('list', {name: 'Sources'}).waitFor({state: 'visible', timeout: 30000});
      for (const what of ['locale', 'direction', 'strings.send', 'strings.close', 'strings.stop', 'strings.settings', 'indexes[0]']) {
        assert.ok(warnings.some((w) => w.includes(`config ${what} ignored`)), `no warning for ${what}: ${warnings.join(' | ')}`);
      }
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});

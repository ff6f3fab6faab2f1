// Accessibility of the panel: axe-core (npm axe-core) run on the widget's shadow root (axe
// descends into open shadow roots; the context is the widget's host element) with a question
// answered, in light mode, dark mode and at phone size: no serious or critical violations.
// Also saves the screenshots of light, dark, phone and right-to-left layouts
// (test-results/screenshots/panel-{light,dark,phone,rtl}.png).
import {createRequire} from 'node:module';
import path from 'node:path';
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {startStub} from './lib/stub-upstream.mjs';
import {freePort, launchBrowser, newPage, requireBuilt, ROOT, screenshot, startProxy} from './lib/harness.mjs';

const CHAPTER = '/docs/ros2/nodes-topics';
const QUESTION = 'What is the difference between a topic and a service?';
const TEST_TIMEOUT = 120000;
const AXE = createRequire(path.join(ROOT, 'package.json')).resolve('axe-core/axe.min.js');

let stub;
let proxy;
let browser;

/** Opens the panel on the chapter, asks, waits for the finished answer. */
async function answeredPanel(page) {
  await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
  await page.getByRole('button', {name: 'Ask the book'}).click();
  const box = page.getByRole('textbox', {name: 'Your question'});
  await box.waitFor({state: 'visible', timeout: 20000});
  await box.fill(QUESTION);
  await page.getByRole('button', {name: 'Send', exact: true}).click();
  await page.locator('.bc-turn').last().getByRole('button', {name: 'Regenerate'}).waitFor({state: 'visible', timeout: 30000});
  await page.waitForTimeout(300); // transitions settle before colours are checked
}

/** axe-core on the widget (its shadow root); returns the serious and critical violations. */
async function axeWidget(page) {
  await page.addScriptTag({path: AXE});
  const {inside, violations} = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const res = await axe.run({include: [['#book-chat-host']]});
    // Proof that axe looked inside the shadow root: nodes checked there by passing rules.
    const inside = res.passes.reduce((n, r) => n + r.nodes.filter((x) => Array.isArray(x.target[0])).length, 0);
    if (inside < 10) throw new Error(`axe checked only ${inside} nodes inside the widget's shadow root`);
    const violations = res.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 3).map((n) => ({target: n.target, summary: n.failureSummary})),
    }));
    return {inside, violations};
  });
  console.log(`axe: ${inside} widget nodes passed checks`);
  for (const v of violations) console.log(`axe ${v.impact}: ${v.id} (${v.help}) ${JSON.stringify(v.nodes[0]?.target)}`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

describe('accessibility of the panel (axe-core) and layout screenshots', {timeout: 10 * 60 * 1000}, () => {
  before(async () => {
    requireBuilt();
    stub = await startStub({delayMs: 20});
    proxy = await startProxy({port: await freePort(), upstream: stub.url});
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await proxy?.stop().catch(() => {});
    await stub?.close().catch(() => {});
  });

  const layouts = [
    ['light', {colorScheme: 'light'}],
    ['dark', {colorScheme: 'dark'}],
    ['phone', {viewport: {width: 390, height: 844}, deviceScaleFactor: 2, isMobile: true, hasTouch: true}],
  ];
  for (const [name, options] of layouts) {
    test(`${name}: no serious or critical axe violations in the panel`, {timeout: TEST_TIMEOUT}, async () => {
      const {context, page, errors} = await newPage(browser, options);
      try {
        await answeredPanel(page);
        if (name !== 'phone') assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), name);
        await screenshot(page, `panel-${name}`);
        const bad = await axeWidget(page);
        assert.deepEqual(bad, [], `axe: ${JSON.stringify(bad, null, 1)}`);
        assert.deepEqual(errors, []);
      } finally {
        await context.close();
      }
    });
  }

  test('right-to-left screenshot (direction "rtl" in BOOK_CHAT_CONFIG)', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      // The plugin's inline script assigns BOOK_CHAT_CONFIG; add the direction as it does so.
      await page.addInitScript(() => {
        let cfg;
        Object.defineProperty(window, 'BOOK_CHAT_CONFIG', {
          configurable: true,
          get: () => cfg,
          set: (v) => {
            cfg = Object.assign({}, v, {direction: 'rtl', locale: 'ar'});
          },
        });
      });
      await answeredPanel(page);
      assert.equal(await page.evaluate(() => window.BOOK_CHAT_CONFIG.direction), 'rtl');
      await screenshot(page, 'panel-rtl');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});

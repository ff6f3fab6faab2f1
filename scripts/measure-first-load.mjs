#!/usr/bin/env node
// First-load cost of the widget, measured in headless Chromium on a 4G-like link (Chrome DevTools
// Protocol Network.emulateNetworkConditions: 9 Mbps down, 1.5 Mbps up, 150 ms RTT), each run in a
// fresh browser context (empty HTTP cache and Cache Storage), on the built book served by the
// release proxy (extractive mode). Prints:
//   - bytes transferred before any interaction (whole page, and the widget's share: loader + widget files);
//   - click-to-panel-ready (click on the bubble -> question box visible), median of RUNS, three ways:
//       cold      the click is the first sign of intent (no pointer over the bubble first);
//       dwell     the pointer rests on the bubble DWELL_MS (default 300) before clicking (prefetch in flight);
//       prefetched the pointer rested until the prefetch finished.
// Usage (after scripts/build-site.sh):  node scripts/measure-first-load.mjs   [RUNS=5 DWELL_MS=300]
import {freePort, launchBrowser, startProxy, WIDGET_FILE} from '../tests/e2e/lib/harness.mjs';

const CHAPTER = '/docs/ros2/nodes-topics';
const RUNS = Number(process.env.RUNS || 5);
const DWELL_MS = Number(process.env.DWELL_MS || 300);
const LINK = {offline: false, latency: 150, downloadThroughput: (9e6 / 8) | 0, uploadThroughput: (1.5e6 / 8) | 0};

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/** One cold page view; returns {bytes, widgetBytes, clickToReady}. */
async function run(browser, base, mode) {
  const context = await browser.newContext({viewport: {width: 1280, height: 860}});
  const page = await context.newPage();
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', LINK);
    const urls = new Map();
    let bytes = 0;
    let widgetBytes = 0;
    let counting = true;
    cdp.on('Network.requestWillBeSent', (e) => urls.set(e.requestId, e.request.url));
    cdp.on('Network.loadingFinished', (e) => {
      if (!counting) return;
      bytes += e.encodedDataLength;
      const u = urls.get(e.requestId) || '';
      const p = u.startsWith('http') ? new URL(u).pathname : u;
      if (WIDGET_FILE.test(p) || /\/loader(\.[0-9a-f]+)?\.js$/.test(p)) widgetBytes += e.encodedDataLength;
    });
    await page.goto(base + CHAPTER, {waitUntil: 'load', timeout: 60000});
    await page.waitForTimeout(3000); // the reader reads; nothing more should arrive
    counting = false;
    const bubble = page.getByRole('button', {name: 'Ask the book'});
    await bubble.waitFor({state: 'visible'});
    if (mode === 'dwell') {
      await bubble.hover();
      await page.waitForTimeout(DWELL_MS);
    } else if (mode === 'prefetched') {
      await bubble.hover();
      await page.waitForFunction(
        () => performance.getEntriesByType('resource').some((e) => /\/book-chat-[0-9a-f]+_bg\.wasm/.test(e.name) && e.responseEnd > 0),
        null,
        {timeout: 60000},
      );
      await page.waitForTimeout(200); // compile/instantiate
    }
    // Click from inside the page (no pointer events before it in "cold"), then watch for the box.
    const ms = await page.evaluate(
      () =>
        new Promise((resolve, reject) => {
          const b = [...document.querySelectorAll('body > button')].find((x) => x.getAttribute('aria-label') === 'Ask the book');
          if (!b) return reject(new Error('no placeholder bubble'));
          const t0 = performance.now();
          b.click();
          const tick = () => {
            const host = document.getElementById('book-chat-host');
            const ta = host && host.shadowRoot && host.shadowRoot.querySelector('textarea');
            if (ta && ta.getClientRects().length) return resolve(performance.now() - t0);
            if (performance.now() - t0 > 60000) return reject(new Error('panel not ready in 60 s'));
            requestAnimationFrame(tick);
          };
          tick();
        }),
    );
    return {bytes, widgetBytes, clickToReady: ms};
  } finally {
    await context.close();
  }
}

const browser = await launchBrowser();
const proxy = await startProxy({port: await freePort(), upstream: null});
try {
  const results = {cold: [], dwell: [], prefetched: []};
  for (let i = 0; i < RUNS; i++) {
    for (const mode of Object.keys(results)) results[mode].push(await run(browser, proxy.url, mode));
  }
  const all = Object.values(results).flat();
  console.log(`first load of ${CHAPTER}, 4G-like link (9 Mbps down, 1.5 Mbps up, 150 ms RTT), ${RUNS} cold runs per mode`);
  console.log(`bytes before interaction: page ${median(all.map((r) => r.bytes))} B, of which loader + widget ${median(all.map((r) => r.widgetBytes))} B`);
  for (const [mode, rs] of Object.entries(results)) {
    const ms = rs.map((r) => r.clickToReady);
    const label = mode === 'dwell' ? `dwell ${DWELL_MS} ms` : mode;
    console.log(`click-to-panel-ready (${label}): median ${median(ms).toFixed(0)} ms  [${ms.map((x) => x.toFixed(0)).join(', ')}]`);
  }
} finally {
  await browser.close().catch(() => {});
  await proxy.stop().catch(() => {});
}

// Fault runs in the browser: the widget never hangs in a loading state.
//   - the index fails to download, then the network recovers: the next question works;
//   - the proxy is killed (SIGKILL) while an answer streams: the partial answer stays, marked incomplete;
//   - a slow network (index and encoder files delayed): the first answer still arrives.
import {after, before, describe, test} from 'node:test';
import assert from 'node:assert/strict';
import {startStub} from './lib/stub-upstream.mjs';
import {freePort, launchBrowser, newPage, requireBuilt, screenshot, startProxy} from './lib/harness.mjs';

const CHAPTER = '/docs/ros2/nodes-topics';
const QUESTION = 'What is the difference between a topic and a service?';
const TEST_TIMEOUT = 120000;

let stub;
let browser;

async function openChat(page, url) {
  await page.goto(url, {waitUntil: 'load'});
  await page.getByRole('button', {name: 'Ask the book'}).click();
  await page.getByRole('textbox', {name: 'Your question'}).waitFor({state: 'visible', timeout: 20000});
}

async function ask(page, question) {
  await page.getByRole('textbox', {name: 'Your question'}).fill(question);
  await page.getByRole('button', {name: 'Send', exact: true}).click();
}

const lastAnswer = (page) => page.locator('.bc-turn').last().locator('.bc-a');

/** Nothing in the panel may still say it is working. */
async function notLoading(page) {
  const stop = await page.getByRole('button', {name: 'Stop'}).count();
  assert.equal(stop, 0, 'the Stop button is still shown: the panel is stuck loading');
}

describe('fault runs in the browser', {timeout: 10 * 60 * 1000}, () => {
  before(async () => {
    requireBuilt();
    stub = await startStub({delayMs: 300});
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await stub?.close().catch(() => {});
  });

  test('the index download fails, then recovers: a clear message, and the next question is answered', {timeout: TEST_TIMEOUT}, async () => {
    const proxy = await startProxy({port: await freePort(), upstream: null});
    const {context, page, errors} = await newPage(browser);
    try {
      let blocked = true;
      await page.route('**/book-index/**', (route) => (blocked ? route.abort('internetdisconnected') : route.continue()));
      await openChat(page, proxy.url + CHAPTER);
      await ask(page, QUESTION);
      await page.getByText('could not be loaded', {exact: false}).first().waitFor({timeout: 20000});
      await notLoading(page);
      await screenshot(page, 'fault-index-unreachable');
      blocked = false;
      await ask(page, QUESTION);
      await lastAnswer(page).getByText('Excerpts from the book', {exact: false}).waitFor({timeout: 30000});
      const links = await lastAnswer(page).getByRole('list', {name: 'Sources'}).getByRole('link').count();
      assert.ok(links >= 1, 'the recovered answer has no sources');
      await notLoading(page);
      assert.deepEqual(errors.filter((e) => !/book-index|Failed to fetch|ERR_INTERNET_DISCONNECTED/.test(e)), []);
    } finally {
      await context.close();
      await proxy.stop();
    }
  });

  test('the proxy is killed mid-stream: the partial answer stays, marked incomplete, with Regenerate', {timeout: TEST_TIMEOUT}, async () => {
    const proxy = await startProxy({port: await freePort(), upstream: stub.url});
    const {context, page} = await newPage(browser);
    try {
      await openChat(page, proxy.url + CHAPTER);
      await ask(page, QUESTION);
      await lastAnswer(page).getByText('According to the book', {exact: false}).waitFor({timeout: 30000});
      await proxy.kill();
      await lastAnswer(page).getByText('connection was lost', {exact: false}).waitFor({timeout: 20000});
      const text = await lastAnswer(page).innerText();
      assert.ok(text.includes('According to the book'), `the partial answer was lost: ${text}`);
      await notLoading(page);
      assert.ok(await lastAnswer(page).getByRole('button', {name: 'Regenerate'}).count() >= 1, 'no Regenerate after the cut');
      await screenshot(page, 'fault-proxy-killed-mid-stream');
    } finally {
      await context.close();
      await proxy.stop();
    }
  });

  test('a slow network: the index arrives late, the first answer still comes and nothing hangs', {timeout: TEST_TIMEOUT}, async () => {
    const proxy = await startProxy({port: await freePort(), upstream: null});
    const {context, page} = await newPage(browser);
    try {
      // Every asset file is held back for 1.5 s (the encoder, the largest, arrives last).
      await page.route('**/book-index/**', async (route) => {
        await new Promise((r) => setTimeout(r, 1500));
        await route.continue();
      });
      await openChat(page, proxy.url + CHAPTER);
      const t0 = Date.now();
      await ask(page, QUESTION);
      await lastAnswer(page).getByText('Excerpts from the book', {exact: false}).waitFor({timeout: 30000});
      assert.ok(Date.now() - t0 >= 1000, 'the throttled index arrived too early: the route did not apply');
      await notLoading(page);
      // The encoder, delayed too, still arrives and switches the search to hybrid.
      await page.waitForSelector('#book-chat-host[data-search="hybrid"]', {state: 'attached', timeout: 60000});
      await screenshot(page, 'fault-slow-network');
    } finally {
      await context.close();
      await proxy.stop();
    }
  });
});

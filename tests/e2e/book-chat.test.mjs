// End-to-end tests of the book chat on the release build of the sample book (wasm-opt applied),
// served by the release proxy, answering through a local stub upstream. Run after
// scripts/build-site.sh:  npm run test:e2e   (screenshots: test-results/screenshots/).
import {after, before, describe, test} from 'node:test';
import {execFileSync} from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import {startStub, ANSWER_CHUNKS} from './lib/stub-upstream.mjs';
import {
  anchorInView,
  deepActive,
  freePort,
  launchBrowser,
  newPage,
  PROXY_BIN,
  requireBuilt,
  ROOT,
  screenshot,
  SITE,
  startProxy,
  within,
} from './lib/harness.mjs';

const CHAPTER = '/docs/ros2/nodes-topics';
const OTHER_CHAPTER = '/docs/ros2/writing-rclpy-nodes';
const QUESTION = 'What is the difference between a topic and a service?';
const OUT_OF_SCOPE = 'give me a recipe for chocolate cake';
const LAST_CHUNK = ANSWER_CHUNKS[ANSWER_CHUNKS.length - 1].trim();
const TEST_TIMEOUT = 120000;

let stub;
let proxy;
let browser;

/** Opens the page, clicks the bubble and waits for the question box. */
async function openChat(page, url) {
  await page.goto(url, {waitUntil: 'load'});
  await page.getByRole('button', {name: 'Ask the book'}).click();
  const box = page.getByRole('textbox', {name: 'Your question'});
  await box.waitFor({state: 'visible', timeout: 20000});
  return box;
}

/** Types and sends a question (mouse). */
async function ask(page, question) {
  await page.getByRole('textbox', {name: 'Your question'}).fill(question);
  await page.getByRole('button', {name: 'Send', exact: true}).click();
}

// `index-builder answer` for batch lines (objects), asked from CHAPTER: what the widget must show
// with no LLM.
function answerLines(rows) {
  const builder = path.join(path.dirname(PROXY_BIN), 'index-builder');
  const batch = path.join(os.tmpdir(), `book-chat-e2e-answer-${process.pid}.jsonl`);
  fs.writeFileSync(batch, rows.map((r, id) => JSON.stringify({id, page: CHAPTER, ...r})).join('\n'));
  try {
    return execFileSync(builder, ['answer', '--index', path.join(SITE, 'book-index'), '--batch', batch], {encoding: 'utf8'})
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
  } finally {
    fs.rmSync(batch, {force: true});
  }
}

// Markdown as the reader reads it: no code ticks or emphasis marks, one space between words.
const plain = (t) => t.replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim();

/** The last answer in the conversation. */
const lastAnswer = (page) => page.locator('.bc-turn').last().locator('.bc-a');

/** The first citation link (in the "Sources" list) that points at a section anchor. */
async function anchoredCitation(page) {
  const links = lastAnswer(page).getByRole('list', {name: 'Sources'}).getByRole('link');
  const hrefs = await links.evaluateAll((els) => els.map((a) => a.getAttribute('href')));
  assert.ok(hrefs.length >= 1, 'no citation links');
  for (const h of hrefs) assert.match(h, /^\/docs\//, `citation outside the book: ${h}`);
  const i = hrefs.findIndex((h) => /#./.test(h));
  assert.ok(i >= 0, `no citation points at a section anchor: ${hrefs.join(' ')}`);
  return {link: links.nth(i), href: hrefs[i]};
}

/** Waits until the last answer is finished (its Regenerate button appears). */
async function answered(page, timeout = 30000) {
  await lastAnswer(page).getByRole('button', {name: 'Regenerate'}).waitFor({state: 'visible', timeout});
}

describe('book chat in the built book', {timeout: 15 * 60 * 1000}, () => {
  before(async () => {
    requireBuilt();
    stub = await startStub({delayMs: 250});
    proxy = await startProxy({port: await freePort(), upstream: stub.url});
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close().catch(() => {});
    await proxy?.stop().catch(() => {});
    await stub?.close().catch(() => {});
  });

  test('1. ask on a chapter: the answer streams in with citations; a citation lands on its anchor', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, proxy.url + CHAPTER);
      // The question encoder (its own wasm module plus int8 weights) loads after the panel opens;
      // once attached, questions are embedded in the browser and the search is hybrid.
      await page.waitForSelector('#book-chat-host[data-search="hybrid"]', {state: 'attached', timeout: 60000});
      const before = stub.requests.length;
      // Enter to request sent (retrieval, encoding and prompt building in the browser), as a figure:
      // measured from the keypress to the stub's receipt, both on this machine's clock.
      await page.getByRole('textbox', {name: 'Your question'}).fill(QUESTION);
      // The same span on the page's own clock, without Playwright's process hops: from the Enter
      // keydown to the widget's fetch of the chat endpoint (the widget calls window.fetch).
      await page.evaluate(() => {
        const t = (window.__enterTiming = {});
        document.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' && t.key === undefined) t.key = performance.now();
        }, true);
        const fetch = window.fetch;
        window.fetch = function (input, init) {
          const url = typeof input === 'string' ? input : String(input?.url ?? input);
          if (url.includes('/api/chat') && t.sent === undefined) t.sent = performance.now();
          return fetch.call(this, input, init);
        };
      });
      const pressed = Date.now();
      await page.getByRole('textbox', {name: 'Your question'}).press('Enter');
      while (stub.requests.length === before && Date.now() - pressed < 20000) {
        await new Promise((r) => setTimeout(r, 2));
      }
      console.log(`figure: Enter to request received by the upstream stub: ${Date.now() - pressed} ms (hybrid, encoder loaded)`);
      const timing = await page.evaluate(() => window.__enterTiming);
      assert.ok(timing.key !== undefined && timing.sent !== undefined, `Enter or the chat request not seen in the page: ${JSON.stringify(timing)}`);
      console.log(`figure: Enter to chat request sent, in the page (encoding, search, prompt): ${(timing.sent - timing.key).toFixed(1)} ms (hybrid, encoder loaded)`);
      // Streaming: the first words are shown while the last are still to come, and Stop is offered.
      await lastAnswer(page).getByText('According to the book', {exact: false}).waitFor();
      const partial = await lastAnswer(page).innerText();
      assert.ok(!partial.includes(LAST_CHUNK), `the answer arrived at once, not streamed: ${partial}`);
      assert.ok(await page.getByRole('button', {name: 'Stop'}).isVisible(), 'no Stop button while streaming');
      await answered(page);
      const text = await lastAnswer(page).innerText();
      assert.ok(text.includes(LAST_CHUNK), text);
      assert.equal(stub.requests.length, before + 1, 'the stub should have received exactly one request');
      const sent = JSON.stringify(stub.requests.at(-1));
      assert.ok(sent.includes('topic'), 'the question and its book context reach the model');
      const {link, href} = await anchoredCitation(page);
      await screenshot(page, '1-answer-with-citations');
      await link.click();
      await page.waitForURL((u) => u.pathname + u.hash === decodeURI(href) || u.href.endsWith(href), {timeout: 15000});
      await page.waitForFunction(() => location.hash.length > 1, null, {timeout: 5000});
      const where = await anchorInView(page);
      assert.ok(where.found, `no element with id ${where.id}`);
      assert.ok(where.inView, `anchor #${where.id} is not scrolled into view (top ${where.top})`);
      await screenshot(page, '1-citation-landed');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('2. select a paragraph, "Ask about this": the selection is quoted and answered', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
      // No wait for the widget: a selection in the article is intent; the loader fetches the widget then.
      const para = page.locator('.theme-doc-markdown p').nth(1);
      const paraText = (await para.innerText()).trim();
      await para.scrollIntoViewIfNeeded();
      await para.click({clickCount: 3}); // triple click selects the paragraph
      const askThis = page.getByRole('button', {name: 'Ask about this'});
      await askThis.waitFor({state: 'visible'});
      await screenshot(page, '2-selection-ask-about-this');
      await askThis.click();
      const quote = page.locator('blockquote[aria-label="Selected text"]');
      await quote.waitFor({state: 'visible'});
      const quoted = (await quote.innerText()).trim();
      assert.ok(paraText.startsWith(quoted.slice(0, 40)), `quote "${quoted.slice(0, 60)}" is not the paragraph "${paraText.slice(0, 60)}"`);
      const before = stub.requests.length;
      await page.getByRole('button', {name: 'Send', exact: true}).click(); // empty box: "Explain this"
      await answered(page);
      const turn = page.locator('.bc-turn').last();
      assert.ok((await turn.locator('.bc-q blockquote').innerText()).trim().startsWith(quoted.slice(0, 40)));
      assert.ok((await turn.locator('.bc-q').innerText()).includes('Explain this'));
      assert.equal(stub.requests.length, before + 1);
      const sent = JSON.stringify(stub.requests.at(-1));
      assert.ok(sent.includes(quoted.slice(0, 40).replace(/"/g, '\\"')), 'the selection was not sent to the model');
      assert.ok((await lastAnswer(page).getByRole('list', {name: 'Sources'}).getByRole('link').count()) >= 1);
      await screenshot(page, '2-selection-answered');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('3. an out-of-scope question is refused and no request reaches the model', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, proxy.url + CHAPTER);
      const before = stub.requests.length;
      await ask(page, OUT_OF_SCOPE);
      await lastAnswer(page).getByText("couldn't find an answer to this in the book", {exact: false}).waitFor();
      // Give a wrongly sent request time to arrive before checking none did.
      await page.waitForTimeout(1000);
      // Sections matched only by chance ("The transfer recipe at a glance") are not offered as
      // the nearest ones, and the refusal does not promise a list.
      assert.equal(await lastAnswer(page).getByRole('list', {name: 'Nearest sections'}).count(), 0);
      assert.ok(!(await lastAnswer(page).innerText()).includes('nearest sections are listed'));
      assert.equal(stub.requests.length, before, 'the refusal must not call the model');
      await screenshot(page, '3-out-of-scope-refusal');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('4. proxy stopped: a clear error and Retry; proxy back: Retry answers', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, proxy.url + CHAPTER);
      // The index must be loaded while the server is up (the proxy also serves the site here).
      await page.getByText("Loading the book's index", {exact: false}).waitFor({state: 'detached', timeout: 20000});
      await proxy.stop();
      await ask(page, QUESTION);
      const alert = lastAnswer(page).getByRole('alert');
      await alert.waitFor({state: 'visible', timeout: 20000});
      const message = await alert.innerText();
      assert.match(message, /reach|connection|unavailable/i, `unclear error: ${message}`);
      const retry = lastAnswer(page).getByRole('button', {name: 'Retry'});
      await retry.waitFor({state: 'visible'});
      await screenshot(page, '4-proxy-down-error');
      proxy = await startProxy({port: proxy.port, upstream: stub.url});
      await retry.click();
      await answered(page);
      assert.ok((await lastAnswer(page).innerText()).includes(LAST_CHUNK));
      assert.equal(await lastAnswer(page).getByRole('alert').count(), 0);
      await screenshot(page, '4-proxy-back-retry-answered');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('5. reload and another page: the conversation is still there', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, proxy.url + CHAPTER);
      await ask(page, QUESTION);
      await answered(page);
      await page.reload({waitUntil: 'load'});
      // The panel reopens by itself after a reload, with the exchange.
      const q = page.locator('.bc-q', {hasText: QUESTION});
      await q.waitFor({state: 'visible', timeout: 20000});
      assert.ok((await lastAnswer(page).innerText()).includes(LAST_CHUNK));
      // Client-side navigation (sidebar link): the widget is outside React's root and stays mounted.
      await page.evaluate(() => {
        window.__e2eMarker = 'same document';
      });
      await page.locator(`a.pagination-nav__link--next[href="${OTHER_CHAPTER}"]`).click();
      await page.waitForURL((u) => u.pathname.startsWith(OTHER_CHAPTER), {timeout: 15000});
      assert.equal(await page.evaluate(() => window.__e2eMarker), 'same document', 'the navigation reloaded the page');
      await q.waitFor({state: 'visible'});
      assert.equal(await page.getByRole('textbox', {name: 'Your question'}).isVisible(), true, 'the panel closed on navigation');
      await screenshot(page, '5-after-client-navigation');
      // The landing page is not a docs page: the widget is hidden there (still mounted), and back
      // on a chapter it shows again with the conversation.
      await page.locator('a.navbar__brand').click();
      await page.waitForURL((u) => u.pathname === '/', {timeout: 15000});
      await page.waitForFunction(() => document.documentElement.dataset.bookChat === 'off', null, {timeout: 5000});
      assert.equal(await page.getByRole('button', {name: 'Ask the book'}).isVisible(), false, 'widget shown on the landing page');
      assert.equal(await page.evaluate(() => window.__e2eMarker), 'same document');
      await page.goBack();
      await page.waitForURL((u) => u.pathname.startsWith(OTHER_CHAPTER), {timeout: 15000});
      await q.waitFor({state: 'visible'});
      // A full page load of a third chapter restores it from storage.
      await page.goto(proxy.url + '/docs/isaac/synthetic-data', {waitUntil: 'load'});
      await q.waitFor({state: 'visible', timeout: 20000});
      await screenshot(page, '5-after-full-load-other-page');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('6. no upstream configured: an extractive answer with citations', {timeout: TEST_TIMEOUT}, async () => {
    const bare = await startProxy({port: await freePort(), upstream: null});
    const {context, page, errors} = await newPage(browser);
    try {
      const before = stub.requests.length;
      await openChat(page, bare.url + CHAPTER);
      await ask(page, QUESTION);
      await answered(page);
      const text = await lastAnswer(page).innerText();
      assert.match(text, /Excerpts from the book/);
      await anchoredCitation(page);
      assert.equal(stub.requests.length, before);
      await screenshot(page, '6-extractive-answer');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await bare.stop();
    }
  });

  test('6b. with the encoder loaded, the excerpt answer is `index-builder answer`\'s', {timeout: TEST_TIMEOUT}, async () => {
    // The widget and the CLI share the answer core; this checks the browser's side of the
    // contract (the encoder module's question and sentence encodings, the page boost, the
    // conversation) on the built book: same quotes, same sources in the same order, same
    // follow-ups. The questions are asked one after another in one conversation, as a reader
    // would, and the CLI is given the same conversation (`conversation` in its batch). The
    // self-contained ones (three written here, every 8th labelled answerable question) must get
    // the answer they get asked alone, so this also checks that the follow-up rule leaves readers'
    // own questions alone; the last ones are labelled follow-ups (eval/conversations/), each after
    // its own first question, so the widget must search them with the conversation as the CLI does.
    const jsonLines = (file) =>
      fs
        .readFileSync(path.join(ROOT, file), 'utf8')
        .split('\n')
        .filter((l) => l.trim())
        .map((l) => JSON.parse(l));
    const labelled = jsonLines('eval/sample-book.jsonl')
      .filter((q) => !q.out_of_scope)
      .filter((_, i) => i % 8 === 0)
      .map((q) => q.question);
    const standalone = [
      'How do nodes talk to each other?',
      'why does ros2 run say no executable found',
      'Which GPU do I need for Isaac Sim?',
      // A follow-up the book offers, word for word (as a reader clicking it asks it): answered
      // from the section offering it, which its words alone rank fourth.
      'What are parameter files?',
      // A bare topic, typed as into a search box: the search lifts the section named for it
      // ("Launch files") over one that uses the words as often ("The same launch file in three
      // formats", first without the lift).
      'launch file',
      ...labelled,
    ];
    const conversations = jsonLines('eval/conversations/sample-book.jsonl').filter((_, i) => i % 4 === 0);
    const questions = [...standalone, ...conversations.flatMap((c) => [c.previous, c.question])];
    // Every question, in one conversation or (null) each alone.
    const answerAll = (conversation) => answerLines(questions.map((question) => ({question, ...(conversation ? {conversation} : {})})));
    // `lines` asked in one conversation, the last one clicked under the section `offeredBy` when given.
    const cliAnswers = (lines, conversation, offeredBy) =>
      answerLines(
        lines.map((question, i) => ({
          question,
          conversation,
          ...(offeredBy && i === lines.length - 1 ? {offered_by: offeredBy} : {}),
        })),
      );
    const cli = answerAll('e2e');
    const alone = answerAll(null);
    const offered = cli[standalone.indexOf('What are parameter files?')];
    assert.match(offered.sources[0].url, /#parameter-files$/, 'a clicked follow-up is answered from its own section');
    assert.match(
      cli[standalone.indexOf('launch file')].sources[0].url,
      /#launch-files$/,
      'a bare topic is answered from the section that introduces it',
    );
    for (const [i, question] of standalone.entries()) {
      assert.deepEqual(cli[i], alone[i], `${question}: answered otherwise later in a conversation (read as a follow-up)`);
    }
    const followUps = conversations.map((_, j) => standalone.length + 2 * j + 1);
    assert.ok(
      followUps.some((i) => JSON.stringify(cli[i].sources) !== JSON.stringify(alone[i].sources)),
      'no labelled follow-up is answered differently in its conversation: the comparison would not check the conversation',
    );
    const bare = await startProxy({port: await freePort(), upstream: null});
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, bare.url + CHAPTER);
      await page.waitForSelector('#book-chat-host[data-search="hybrid"]', {state: 'attached', timeout: 60000});
      for (const [i, question] of questions.entries()) {
        const want = cli[i];
        await ask(page, question);
        if (want.refused) {
          // The CLI refused: so must the widget (a refusal has no Regenerate button to wait for).
          await lastAnswer(page).getByText("couldn't find an answer to this in the book", {exact: false}).waitFor({timeout: 30000});
          // Its follow-ups: the questions of the nearest sections it lists.
          const follow = await page.locator('.bc-turn').last().locator('.bc-sugg button').allInnerTexts();
          assert.deepEqual(follow.map((t) => t.trim()), want.suggestions.map((f) => f.question), `${question}: follow-ups of the refusal`);
          continue;
        }
        await answered(page);
        const shown = plain(await lastAnswer(page).innerText());
        assert.ok(want.quotes.length >= 1, `${question}: the CLI quoted nothing`);
        for (const q of want.quotes) {
          const line = plain(q.text.split('\n')[0]);
          assert.ok(shown.includes(line), `${question}: the widget does not show the CLI's quote "${line}"\nwidget: ${shown}`);
        }
        const hrefs = await lastAnswer(page)
          .getByRole('list', {name: 'Sources'})
          .getByRole('link')
          .evaluateAll((els) => els.map((a) => a.getAttribute('href')));
        assert.deepEqual(hrefs, want.sources.map((s) => s.url), `${question}: sources`);
        const follow = await page.locator('.bc-turn').last().locator('.bc-sugg button').allInnerTexts();
        assert.deepEqual(follow.map((t) => t.trim()), want.suggestions.map((f) => f.question), `${question}: follow-ups`);
      }
      // A clicked follow-up whose words another page's section offers too ("What are actions?":
      // ROS 2 actions, and the actions of the locomotion policy) is answered from the section it
      // was offered under, as the CLI answers it given that section (`offered_by`); typed, the
      // same words get ROS 2's actions.
      const first = 'what inputs does the walking policy get in isaac lab';
      await ask(page, first);
      await answered(page);
      const offer = cliAnswers([first, 'What are actions?'], 'click').at(0).suggestions.find((f) => f.question === 'What are actions?');
      assert.ok(offer, 'the locomotion answer no longer offers "What are actions?"');
      assert.match(offer.url, /rl-locomotion-isaac-lab#actions$/);
      const [, clicked] = cliAnswers([first, 'What are actions?'], 'click', offer.url);
      const [, typed] = cliAnswers([first, 'What are actions?'], 'typed');
      assert.equal(clicked.sources[0].url, offer.url);
      assert.notEqual(typed.sources[0].url, offer.url, 'typed, the words alone would pick the offering section anyway: the click is not checked');
      await page.locator('.bc-turn').last().locator('.bc-sugg').getByRole('button', {name: 'What are actions?'}).click();
      await answered(page);
      const clickedHrefs = await lastAnswer(page)
        .getByRole('list', {name: 'Sources'})
        .getByRole('link')
        .evaluateAll((els) => els.map((a) => a.getAttribute('href')));
      assert.deepEqual(clickedHrefs, clicked.sources.map((x) => x.url), 'a clicked follow-up: sources');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await bare.stop();
    }
  });

  test('6c. "Ask about this" with no LLM: the passage is not quoted back; the answer is `index-builder answer`\'s', {timeout: TEST_TIMEOUT}, async () => {
    const bare = await startProxy({port: await freePort(), upstream: null});
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, bare.url + CHAPTER);
      await page.waitForSelector('#book-chat-host[data-search="hybrid"]', {state: 'attached', timeout: 60000});
      const para = page.locator('.theme-doc-markdown p').nth(1);
      const paraText = (await para.innerText()).trim();
      await para.scrollIntoViewIfNeeded();
      await para.click({clickCount: 3});
      await page.getByRole('button', {name: 'Ask about this'}).click();
      await page.locator('blockquote[aria-label="Selected text"]').waitFor({state: 'visible'});
      await page.getByRole('button', {name: 'Send', exact: true}).click(); // empty box: "Explain this"
      await answered(page);
      const shown = plain(await lastAnswer(page).innerText());
      const selection = paraText.split(/\s+/).join(' ');
      const [want] = answerLines([{question: 'Explain this', selection}]);
      const [echo] = answerLines([{question: 'Summarize this', selection}]);
      assert.ok(
        echo.quotes.some((q) => selection.includes(q.text.split('\n')[0])),
        'asked for a summary, no sentence of the paragraph is quoted: the check below would not find an echo',
      );
      assert.ok(want.quotes.length >= 1, 'the CLI quoted nothing');
      // The answer's words without its sources list, whose cards preview each section's opening.
      const quoted = plain(
        await lastAnswer(page).evaluate((el) => {
          const copy = el.cloneNode(true);
          copy.querySelectorAll('.bc-sources').forEach((n) => n.remove());
          return copy.textContent;
        }),
      );
      assert.ok(!quoted.includes(plain(selection).slice(0, 60)), `the widget quotes the selection back\nwidget: ${quoted}`);
      for (const q of want.quotes) {
        const line = plain(q.text.split('\n')[0]);
        assert.ok(!plain(selection).includes(line), `the selected paragraph is quoted back: "${line}"`);
        assert.ok(shown.includes(line), `the widget does not show the CLI's quote "${line}"\nwidget: ${shown}`);
      }
      const hrefs = await lastAnswer(page)
        .getByRole('list', {name: 'Sources'})
        .getByRole('link')
        .evaluateAll((els) => els.map((a) => a.getAttribute('href')));
      assert.deepEqual(hrefs, want.sources.map((s) => s.url));
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await bare.stop();
    }
  });

  test('7. dark theme, phone viewport, keyboard only: open, ask, follow a citation', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser, {
      viewport: {width: 390, height: 844},
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      colorScheme: 'dark',
    });
    try {
      await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
      assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'dark');
      // Keyboard: Tab until the bubble has focus (bounded), then Enter.
      let found = false;
      for (let i = 0; i < 120 && !found; i++) {
        await page.keyboard.press('Tab');
        const a = await deepActive(page);
        found = !!a && a.label === 'Ask the book';
      }
      assert.ok(found, 'the bubble is not reachable with Tab');
      await page.keyboard.press('Enter');
      const box = page.getByRole('textbox', {name: 'Your question'});
      await box.waitFor({state: 'visible', timeout: 20000});
      await within(5000, 'focus in the question box', page.waitForFunction(() => {
        let a = document.activeElement;
        while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
        return a && a.tagName === 'TEXTAREA';
      }));
      await page.keyboard.type(QUESTION);
      await page.keyboard.press('Enter');
      await answered(page);
      const panel = await page.getByRole('dialog', {name: 'Ask the book'}).boundingBox();
      assert.ok(panel && panel.width <= 390 && panel.x >= 0, `panel does not fit the phone screen: ${JSON.stringify(panel)}`);
      await screenshot(page, '7-dark-phone-answer');
      // Tab (focus stays in the dialog) until a citation link has focus, then Enter.
      let link = null;
      for (let i = 0; i < 40 && !link; i++) {
        await page.keyboard.press('Tab');
        const a = await deepActive(page);
        if (a && a.tag === 'a' && a.inSources && /#./.test(a.href || '')) link = a;
      }
      assert.ok(link, 'no citation link with an anchor reachable with Tab');
      await page.keyboard.press('Enter');
      await page.waitForFunction(() => location.hash.length > 1, null, {timeout: 15000});
      await page.waitForLoadState('load');
      const where = await anchorInView(page);
      assert.ok(where.found, `no element with id ${where.id}`);
      assert.ok(link.href.endsWith(`#${encodeURI(where.id)}`) || link.href.endsWith(`#${where.id}`), `${link.href} vs #${where.id}`);
      // The panel covers a phone screen: following a citation closes it, so the reader sees the
      // section it landed on (the conversation stays for the next open).
      await page.getByRole('dialog', {name: 'Ask the book'}).waitFor({state: 'detached', timeout: 5000});
      const seen = await anchorInView(page);
      assert.ok(seen.inView, `anchor #${seen.id} is not in view (top ${seen.top})`);
      await screenshot(page, '7-dark-phone-citation-landed');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('8. issue 12 crash sequence: ask, follow a citation, refused question, Escape, "Ask about this" opens the panel', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    const consoleErrors = [];
    page.on('console', (m) => m.type() === 'error' && consoleErrors.push(m.text()));
    try {
      await openChat(page, proxy.url + '/docs/intro');
      await ask(page, 'How do nodes exchange messages in ROS 2?');
      await answered(page);
      const {link, href} = await anchoredCitation(page);
      await link.click();
      await page.waitForURL((u) => u.href.endsWith(href) || u.pathname + u.hash === decodeURI(href), {timeout: 15000});
      await page.waitForLoadState('load');
      // After the navigation the panel is open again (restored); ask an off-topic question.
      const box = page.getByRole('textbox', {name: 'Your question'});
      await page.getByRole('button', {name: 'Ask the book'}).waitFor({state: 'visible', timeout: 20000});
      // The panel reopens by itself when it was open before the navigation; else open it.
      const reopened = await box.waitFor({state: 'visible', timeout: 3000}).then(() => true, () => false);
      if (!reopened) await page.getByRole('button', {name: 'Ask the book'}).click();
      await box.waitFor({state: 'visible', timeout: 20000});
      // The wording ("best recipe for a chocolate cake") now matches a "Training recipe" table
      // on the cited page, so an equally off-topic question stands in for it.
      await ask(page, 'How long should I bake a chocolate cake?');
      await answered(page);
      const refusal = await lastAnswer(page).innerText();
      assert.ok(refusal.includes("couldn't find an answer to this in the book"), `not refused: ${refusal} (on ${page.url()})`);
      await box.press('Escape');
      await page.getByRole('dialog', {name: 'Ask the book'}).waitFor({state: 'detached', timeout: 5000});
      const para = page.locator('.theme-doc-markdown p').first();
      await para.scrollIntoViewIfNeeded();
      await para.click({clickCount: 3});
      const askThis = page.getByRole('button', {name: 'Ask about this'});
      await askThis.waitFor({state: 'visible'});
      await askThis.click();
      await page.locator('blockquote[aria-label="Selected text"]').waitFor({state: 'visible', timeout: 5000});
      // The earlier exchanges are still shown and the panel still answers.
      assert.equal(await page.locator('.bc-turn').count(), 2);
      await page.getByRole('button', {name: 'Send', exact: true}).click();
      await answered(page);
      await screenshot(page, '8-crash-sequence-answered');
      assert.deepEqual(errors, []);
      assert.deepEqual(consoleErrors.filter((e) => /panic|unreachable|book-chat/i.test(e)), []);
    } finally {
      await context.close();
    }
  });

  /** Whether `locator`'s box lies inside the conversation's visible area (no scrolling needed). */
  async function visibleInLog(page, locator) {
    const handle = await locator.elementHandle();
    return page.evaluate((el) => {
      const log = el.closest('.bc-log');
      const a = el.getBoundingClientRect();
      const b = log.getBoundingClientRect();
      return a.height > 0 && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
    }, handle);
  }

  test('9. two questions in a row: the second answer is in view without scrolling', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, proxy.url + CHAPTER);
      await ask(page, QUESTION);
      await answered(page);
      await ask(page, 'How do I write a publisher node in Python?');
      await answered(page);
      const regen = lastAnswer(page).getByRole('button', {name: 'Regenerate'});
      assert.ok(await visibleInLog(page, regen), 'the end of the second answer is below the fold');
      assert.equal(await page.getByRole('button', {name: 'Jump to latest'}).count(), 0);
      // Scrolled up mid-conversation: "Jump to latest" brings the end back.
      await page.locator('.bc-log').evaluate((el) => el.scrollTo(0, 0));
      const jump = page.getByRole('button', {name: 'Jump to latest'});
      await jump.waitFor({state: 'visible'});
      await jump.click();
      await page.waitForFunction(() => {
        const log = document.querySelector('#book-chat-host').shadowRoot.querySelector('.bc-log');
        return log.scrollHeight - log.scrollTop - log.clientHeight < 50;
      }, null, {timeout: 5000});
      // Reload: the restored conversation opens at its end.
      await page.reload({waitUntil: 'load'});
      await lastAnswer(page).getByRole('button', {name: 'Regenerate'}).waitFor({state: 'visible', timeout: 20000});
      await page.waitForTimeout(300);
      assert.ok(await visibleInLog(page, lastAnswer(page).getByRole('button', {name: 'Regenerate'})), 'restored conversation not at its end');
      await screenshot(page, '9-second-answer-in-view');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('10. a long selection is a compact quote; the answer stays in view', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await page.goto(proxy.url + CHAPTER, {waitUntil: 'load'});
      // Only the loader is on the page until the reader shows intent; the selection below is intent.
      await page.locator('#book-chat-bubble').waitFor({state: 'visible', timeout: 20000});
      // Select the article's first six blocks (several paragraphs).
      await page.evaluate(() => {
        const blocks = document.querySelectorAll('.theme-doc-markdown > p, .theme-doc-markdown > ul, .theme-doc-markdown > h2');
        const r = document.createRange();
        r.setStartBefore(blocks[0]);
        r.setEndAfter(blocks[Math.min(5, blocks.length - 1)]);
        const sel = getSelection();
        sel.removeAllRanges();
        sel.addRange(r);
      });
      await page.locator('.theme-doc-markdown p').first().dispatchEvent('mouseup');
      const askThis = page.getByRole('button', {name: 'Ask about this'});
      await askThis.waitFor({state: 'visible'});
      await askThis.click();
      const quote = page.locator('blockquote[aria-label="Selected text"]');
      await quote.waitFor({state: 'visible'});
      const box = await quote.boundingBox();
      assert.ok(box.height <= 100, `the quote is not compact: ${box.height}px`);
      assert.ok(await page.getByRole('button', {name: 'Show more'}).first().isVisible());
      const placeholder = await page.getByRole('textbox', {name: 'Your question'}).getAttribute('placeholder');
      assert.equal(placeholder, 'Ask about the selected passage');
      assert.ok(await page.evaluate(() => {
        let a = document.activeElement;
        while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
        return a && a.tagName === 'TEXTAREA';
      }), 'the question box has no focus');
      await page.getByRole('button', {name: 'Send', exact: true}).click();
      await answered(page);
      const qbox = await page.locator('.bc-turn').last().locator('.bc-q blockquote').boundingBox();
      assert.ok(qbox.height <= 100, `the quote in the question is not compact: ${qbox.height}px`);
      assert.ok(await visibleInLog(page, lastAnswer(page).getByRole('button', {name: 'Regenerate'})), 'the answer is out of view');
      await screenshot(page, '10-long-selection-compact');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('11. answer settings change the request the model receives and survive a reload', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, proxy.url + CHAPTER);
      await page.getByRole('button', {name: 'Answer settings'}).click();
      const group = page.getByRole('group', {name: 'Answer settings'});
      await group.getByRole('combobox', {name: 'Detail'}).selectOption('basic');
      await group.getByRole('combobox', {name: 'Format'}).selectOption('examples');
      await group.getByRole('checkbox', {name: 'Show citations'}).uncheck();
      await screenshot(page, '11-answer-settings');
      await page.keyboard.press('Escape'); // closes the settings, not the panel
      assert.ok(await page.getByRole('dialog', {name: 'Ask the book'}).isVisible());
      const before = stub.requests.length;
      await ask(page, QUESTION);
      await answered(page);
      assert.equal(stub.requests.length, before + 1);
      const sent = JSON.stringify(stub.requests.at(-1));
      assert.match(sent, /beginner/, 'detail level not in the prompt');
      assert.match(sent, /examples/i, 'format not in the prompt');
      await page.reload({waitUntil: 'load'});
      await page.getByRole('button', {name: 'Answer settings'}).click({timeout: 20000});
      assert.equal(await group.getByRole('combobox', {name: 'Detail'}).inputValue(), 'basic');
      assert.equal(await group.getByRole('combobox', {name: 'Format'}).inputValue(), 'examples');
      assert.equal(await group.getByRole('checkbox', {name: 'Show citations'}).isChecked(), false);
      await page.keyboard.press('Escape');
      await ask(page, 'How do I write a publisher node in Python?');
      await answered(page);
      assert.match(JSON.stringify(stub.requests.at(-1)), /beginner/, 'settings lost after reload');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('12. "Copy answer" puts the answer and its cited URLs on the clipboard', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser, {permissions: ['clipboard-read', 'clipboard-write']});
    try {
      await openChat(page, proxy.url + CHAPTER);
      await ask(page, QUESTION);
      await answered(page);
      await lastAnswer(page).getByRole('button', {name: 'Copy answer'}).click();
      await lastAnswer(page).getByRole('button', {name: 'Copied'}).waitFor({timeout: 5000});
      const text = await page.evaluate(() => navigator.clipboard.readText());
      assert.ok(text.includes(LAST_CHUNK), text);
      assert.match(text, new RegExp(`\\[1\\]: ${proxy.url.replace(/[.]/g, '\\.')}/docs/`), text);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });

  test('13. a refused question reaches the proxy\'s feedback store (gap report)', {timeout: TEST_TIMEOUT}, async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'book-chat-fb-'));
    const db = path.join(dir, 'feedback.db');
    const withDb = await startProxy({port: await freePort(), upstream: stub.url, args: ['--db', db, '--store-questions']});
    const {context, page, errors} = await newPage(browser);
    try {
      await openChat(page, withDb.url + CHAPTER);
      const posted = page.waitForResponse((r) => r.url().endsWith('/api/feedback'), {timeout: 20000});
      await ask(page, OUT_OF_SCOPE);
      await lastAnswer(page).getByText("couldn't find an answer to this in the book", {exact: false}).waitFor();
      const resp = await posted;
      const body = JSON.parse(resp.request().postData());
      assert.equal(body.rating, 'none');
      assert.equal(body.refused, true);
      assert.ok(resp.ok(), `the proxy refused the report: ${resp.status()} ${await resp.text()}`);
      const report = execFileSync(PROXY_BIN, ['report', '--db', db], {encoding: 'utf8'});
      assert.ok(report.toLowerCase().includes('chocolate cake'), report);
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
      await withDb.stop();
      fs.rmSync(dir, {recursive: true, force: true});
    }
  });

  test('14. right-to-left page with translated words: the panel is laid out right to left', {timeout: TEST_TIMEOUT}, async () => {
    const {context, page, errors} = await newPage(browser);
    try {
      // What the plugin writes for an Urdu locale (contract 1), merged into the page's config.
      await page.addInitScript(() => {
        let cfg;
        Object.defineProperty(window, 'BOOK_CHAT_CONFIG', {
          configurable: true,
          get: () => cfg,
          set: (v) => {
            cfg = {...v, locale: 'ur', direction: 'rtl', strings: {send: 'بھیجیں', newChat: 'نئی گفتگو'}};
          },
        });
      });
      await openChat(page, proxy.url + CHAPTER);
      const root = page.locator('.bc-root');
      assert.equal(await root.getAttribute('dir'), 'rtl');
      assert.equal(await root.getAttribute('lang'), 'ur');
      assert.ok(await page.getByRole('button', {name: 'بھیجیں'}).isVisible());
      assert.ok(await page.getByRole('button', {name: 'نئی گفتگو'}).isVisible());
      // Untranslated words keep their English defaults.
      assert.ok(await page.getByRole('button', {name: 'Answer settings'}).isVisible());
      const bubble = await page.getByRole('button', {name: 'Ask the book'}).boundingBox();
      assert.ok(bubble.x < 200, `the bubble is not on the left: x=${bubble.x}`);
      const panel = await page.getByRole('dialog').boundingBox();
      assert.ok(panel.x < 100, `the panel is not on the left: x=${panel.x}`);
      await page.getByRole('textbox', {name: 'Your question'}).fill(QUESTION);
      await page.getByRole('button', {name: 'بھیجیں'}).click();
      await answered(page);
      await screenshot(page, '14-rtl-layout');
      assert.deepEqual(errors, []);
    } finally {
      await context.close();
    }
  });
});

const {test, after} = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {checkUrls} = require('../check-anchors');

/** A tiny built site: trailingSlash undefined (dir/index.html), false (page.html) and nested. */
/** Temporary folders made by the tests, removed when the file's tests end. */
const made = [];
after(() => made.forEach((d) => fs.rmSync(d, {recursive: true, force: true})));

function site() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'book-chat-anchors-'));
  made.push(dir);
  const write = (rel, body) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), {recursive: true});
    fs.writeFileSync(path.join(dir, rel), `<!doctype html><html><body>${body}</body></html>`);
  };
  write('docs/intro/index.html', '<h2 id="goals">Goals</h2><h2 class="anchor" id="caf\u00e9">Café</h2>');
  write('docs/flat.html', '<h3 id="a-b">A b</h3>');
  // Docusaurus writes a /book/ baseUrl site without the /book folder.
  write('docs/x/index.html', '<div id="x1"></div>');
  return dir;
}

test('present pages and ids pass', () => {
  const dir = site();
  assert.deepEqual(
    checkUrls(dir, ['/docs/intro', '/docs/intro#goals', '/docs/intro/#goals', '/docs/flat#a-b', '/docs/intro#caf%C3%A9']),
    [],
  );
  assert.deepEqual(checkUrls(dir, ['/book/docs/x/#x1'], '/book/'), []);
});

test('a missing page or id fails, each reported', () => {
  const dir = site();
  const problems = checkUrls(dir, ['/docs/intro#nope', '/docs/gone#goals', '/docs/flat#a-b', '/other/x'], '/');
  assert.equal(problems.length, 3, problems.join('\n'));
  assert.match(problems[0], /no element with id "nope"/);
  assert.match(problems[1], /\/docs\/gone#goals: no page/);
  assert.match(problems[2], /\/other\/x: no page/);
  assert.match(checkUrls(dir, ['/docs/intro#goals'], '/book/')[0], /not under baseUrl/);
});

test('an id in text or in another attribute does not count', () => {
  const dir = site();
  fs.writeFileSync(path.join(dir, 'docs/flat.html'), '<p>id="fake"</p><a href="#also-fake" data-id="x">x</a>');
  assert.equal(checkUrls(dir, ['/docs/flat#fake', '/docs/flat#also-fake', '/docs/flat#x']).length, 3);
});

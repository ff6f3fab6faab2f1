// The package's run-time lookups: the platform binary package, the localized docs folder and the
// widget's translated words.
const {test, after} = require('node:test');
const assert = require('node:assert/strict');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {platformDir, nativeBinary, PlatformError, SUPPORTED} = require('../platform');
const {localizedDocsDir} = require('../locale-docs');
const {localeStrings} = require('../strings');
const {findWidget, WidgetNotBuilt} = require('../widget-files');

/** Temporary folders made by the tests, removed when the file's tests end. */
const made = [];
after(() => made.forEach((d) => fs.rmSync(d, {recursive: true, force: true})));
const tmp = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'book-chat-plugin-'));
  made.push(dir);
  return dir;
};

test('an unsupported platform is named with the supported ones', () => {
  assert.throws(() => platformDir({key: 'sunos-sparc'}), (e) => e instanceof PlatformError && /sunos-sparc/.test(e.message) && e.message.includes(SUPPORTED.join(', ')));
});

test('a missing platform package says which package to install', () => {
  const resolve = () => {
    throw new Error('Cannot find module');
  };
  assert.throws(() => platformDir({key: 'linux-x64', resolve}), /npm install docusaurus-plugin-book-chat-linux-x64/);
});

test('the binary is found inside the platform package, or named when missing', () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'package.json'), '{}');
  const resolve = () => path.join(dir, 'package.json');
  assert.throws(() => nativeBinary('index-builder', {key: 'linux-x64', resolve}), /bin\/index-builder is missing/);
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.writeFileSync(path.join(dir, 'bin/index-builder'), '');
  assert.equal(nativeBinary('index-builder', {key: 'linux-x64', resolve}), path.join(dir, 'bin/index-builder'));
});

test('a locale folder: translated files win, the rest fall back to the default locale, file by file', () => {
  const site = tmp();
  const docs = path.join(site, 'docs');
  const loc = path.join(site, 'i18n/ur/docusaurus-plugin-content-docs/current');
  fs.mkdirSync(path.join(docs, 'part'), {recursive: true});
  fs.mkdirSync(loc, {recursive: true});
  fs.writeFileSync(path.join(docs, 'intro.md'), '# Intro');
  fs.writeFileSync(path.join(docs, 'part/b.md'), '# B');
  fs.writeFileSync(path.join(docs, 'part/_category_.json'), '{}');
  fs.writeFileSync(path.join(loc, 'intro.md'), '# تعارف');
  fs.writeFileSync(path.join(loc, 'orphan.md'), '# not a doc: no default file');
  const version = {contentPath: docs, contentPathLocalized: loc, sources: ['@site/i18n/ur/docusaurus-plugin-content-docs/current/intro.md', '@site/docs/part/b.md']};
  const work = path.join(site, '.docusaurus/book-chat/ur-current');
  const dir = localizedDocsDir({version, siteDir: site, work});
  assert.equal(dir, work);
  assert.equal(fs.readFileSync(path.join(dir, 'intro.md'), 'utf8'), '# تعارف');
  assert.equal(fs.readFileSync(path.join(dir, 'part/b.md'), 'utf8'), '# B');
  assert.ok(fs.existsSync(path.join(dir, 'part/_category_.json')));
  assert.ok(!fs.existsSync(path.join(dir, 'orphan.md')));
  // No translation used: the original folder is read as is.
  assert.equal(localizedDocsDir({version: {...version, sources: ['@site/docs/intro.md']}, siteDir: site, work}), docs);
});

test("widget strings: the option, then code.json's bookChat.* ids", () => {
  const site = tmp();
  assert.deepEqual(localeStrings({siteDir: site, locale: 'ur', option: {ur: {a: 'x', b: 'y'}, fr: {a: 'z'}}}), {a: 'x', b: 'y'});
  fs.mkdirSync(path.join(site, 'i18n/ur'), {recursive: true});
  fs.writeFileSync(path.join(site, 'i18n/ur/code.json'), JSON.stringify({'bookChat.b': {message: 'code'}, 'theme.x': {message: 'no'}}));
  assert.deepEqual(localeStrings({siteDir: site, locale: 'ur', option: {ur: {a: 'x', b: 'y'}}}), {a: 'x', b: 'code'});
  fs.writeFileSync(path.join(site, 'i18n/ur/code.json'), '{broken');
  assert.throws(() => localeStrings({siteDir: site, locale: 'ur', option: {}}), /code\.json is not valid JSON/);
});

test('a widget file missing from the package is named with the fix', () => {
  const dir = tmp();
  fs.writeFileSync(path.join(dir, 'book-chat-0123abcd.js'), '');
  fs.writeFileSync(path.join(dir, 'loader.js'), '');
  assert.throws(() => findWidget(dir), (e) => e instanceof WidgetNotBuilt && e.message.includes('book-chat-0123abcd_bg.wasm is missing') && /reinstall docusaurus-plugin-book-chat/.test(e.message));
});

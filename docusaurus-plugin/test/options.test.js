const {test} = require('node:test');
const assert = require('node:assert/strict');
const {normalizePluginOptions} = require('@docusaurus/utils-validation');
const {schema, DEFAULT_OPTIONS} = require('../options');

/** Validates like Docusaurus does for a plugin (adds `id`). */
const validate = (options) => normalizePluginOptions(schema, options);

test('defaults fill every option', () => {
  const o = validate({});
  for (const [k, v] of Object.entries(DEFAULT_OPTIONS)) assert.deepEqual(o[k], v, k);
});

test('accepted values', () => {
  const o = validate({proxyUrl: 'https://chat.example.org', routes: ['docs/'], colors: {primary: '#ff0000'}, indexPath: 'assets/book-index'});
  assert.equal(o.proxyUrl, 'https://chat.example.org');
  assert.deepEqual(o.routes, ['docs/']);
  assert.equal(validate({proxyUrl: '/'}).proxyUrl, '/');
  assert.equal(validate({proxyUrl: null}).proxyUrl, null);
  // One docs instance, several, or (null, the default) every one.
  assert.equal(validate({docsPluginId: 'community'}).docsPluginId, 'community');
  assert.deepEqual(validate({docsPluginId: ['default', 'community']}).docsPluginId, ['default', 'community']);
  assert.equal(validate({}).docsPluginId, null);
  assert.equal(validate({wordMinUses: 1, wordRows: 100000}).wordRows, 100000);
});

test('bad values are rejected with the option named', () => {
  assert.throws(() => validate({proxyUrl: 42}), /proxyUrl/);
  assert.throws(() => validate({indexPath: '../outside'}), /indexPath/);
  assert.throws(() => validate({indexPath: '/abs'}), /indexPath/);
  assert.throws(() => validate({widgetPath: 'a/./b'}), /widgetPath/);
  assert.throws(() => validate({widgetPath: 'a/..'}), /widgetPath/);
  assert.equal(validate({widgetPath: 'a/.well-known/b..c'}).widgetPath, 'a/.well-known/b..c');
  assert.throws(() => validate({colors: {primary: 'red;} body{display:none'}}), /primary/);
  assert.throws(() => validate({colors: {accent: '#fff'}}), /accent/);
  assert.throws(() => validate({routes: 'docs'}), /routes/);
  assert.throws(() => validate({docsPluginId: []}), /docsPluginId/);
  assert.throws(() => validate({docsPluginId: 3}), /docsPluginId/);
  assert.throws(() => validate({wordMinUses: 0}), /wordMinUses/);
  assert.throws(() => validate({wordRows: 2.5}), /wordRows/);
  assert.throws(() => validate({unknownOption: 1}), /unknownOption/);
});

test('strings: per locale, text values only', () => {
  assert.deepEqual(validate({strings: {ur: {send: 'بھیجیں'}}}).strings, {ur: {send: 'بھیجیں'}});
  assert.throws(() => validate({strings: {ur: {send: 3}}}), /strings/);
  assert.throws(() => validate({strings: 'ur'}), /strings/);
});

// The plugin's options: one schema, with defaults, validated by Docusaurus at start-up.
const {Joi} = require('@docusaurus/utils-validation');

/** A folder inside the build output: relative, no '.' or '..' segments. */
const relativeFolder = Joi.string().pattern(/^(?!\.{1,2}(\/|$))(?!.*\/\.{1,2}(\/|$))[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, 'relative folder');

/** CSS colour: any non-empty string without characters that could close the style rule. */
const colour = Joi.string().pattern(/^[^;{}<>]+$/, 'CSS colour');

const DEFAULT_OPTIONS = {
  // Base URL of the proxy (same origin: '/'); null = extractive answers, no proxy at all.
  proxyUrl: null,
  // URL of the index folder in the built site; default `${baseUrl}${indexPath}`.
  indexUrl: null,
  // Folder (inside the build output) the index is written to and served from.
  indexPath: 'book-index',
  // Folder with the built widget (book-chat-<hash>.js, book-chat-<hash>_bg.wasm, loader.js); null = the one in this package.
  widgetDir: null,
  // Folder (inside the build output) the widget files are copied to.
  widgetPath: 'widget',
  // Path of an `index-builder` executable (or $BOOK_CHAT_INDEX_BUILDER); null = the platform package's.
  indexBuilder: null,
  // Build the index during `docusaurus build` (false: you put one at indexPath yourself).
  buildIndex: true,
  // Walk the built HTML and fail the build when a cited page or #anchor is missing.
  checkAnchors: true,
  // Docs plugin instance(s) whose pages are indexed and get the widget (an id or a list); null = every docs instance.
  docsPluginId: null,
  // The question encoder's word table: the book's own tokens get a row when used at least this
  // often (or in a heading), up to `wordRows` rows; null = the builder's defaults (2 and 3 900,
  // which keep the encoder under 6 MB). More rows: closer to the full model, a larger download.
  wordMinUses: null,
  wordRows: null,
  // Route prefixes (relative to baseUrl, e.g. 'docs/') that get the widget; null = every page of the docs plugin.
  routes: null,
  // Colours of the bubble and the panel's accents; unset = the book's --ifm-color-primary.
  colors: {},
  // Translations of the widget's words per locale: {ur: {"<key>": "<text>"}} (also from i18n/<locale>/code.json, ids "bookChat.<key>").
  strings: {},
};

const schema = Joi.object({
  proxyUrl: Joi.string().allow(null).uri({relativeOnly: false, allowRelative: true}).default(DEFAULT_OPTIONS.proxyUrl),
  indexUrl: Joi.string().allow(null).default(DEFAULT_OPTIONS.indexUrl),
  indexPath: relativeFolder.default(DEFAULT_OPTIONS.indexPath),
  widgetDir: Joi.string().allow(null).default(DEFAULT_OPTIONS.widgetDir),
  widgetPath: relativeFolder.default(DEFAULT_OPTIONS.widgetPath),
  indexBuilder: Joi.string().allow(null).default(DEFAULT_OPTIONS.indexBuilder),
  buildIndex: Joi.boolean().default(DEFAULT_OPTIONS.buildIndex),
  checkAnchors: Joi.boolean().default(DEFAULT_OPTIONS.checkAnchors),
  docsPluginId: Joi.alternatives(Joi.string(), Joi.array().items(Joi.string()).min(1)).allow(null).default(DEFAULT_OPTIONS.docsPluginId),
  wordMinUses: Joi.number().integer().min(1).allow(null).default(DEFAULT_OPTIONS.wordMinUses),
  wordRows: Joi.number().integer().min(0).allow(null).default(DEFAULT_OPTIONS.wordRows),
  routes: Joi.array().items(Joi.string()).allow(null).default(DEFAULT_OPTIONS.routes),
  colors: Joi.object({
    primary: colour,
    primaryDark: colour,
  }).default(DEFAULT_OPTIONS.colors),
  strings: Joi.object()
    .pattern(Joi.string(), Joi.object().pattern(Joi.string(), Joi.string()))
    .default(DEFAULT_OPTIONS.strings),
});

/** Docusaurus' `validateOptions` hook: returns the options with defaults filled in, or throws. */
function validateOptions({validate, options}) {
  return validate(schema, options);
}

module.exports = {schema, validateOptions, DEFAULT_OPTIONS};

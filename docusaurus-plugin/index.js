// docusaurus-plugin-book-chat: adds the book chat to a Docusaurus 3 book with one line in
// docusaurus.config.js. At build time it indexes the docs of the locale being built, one index per
// docs instance and version (the native index-builder of the platform package), copies the widget shipped in
// this package into the output and checks every cited anchor; on every page it injects the config
// and a tiny router hook that adds the loader on chat pages only. Options: options.js / README.md.
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');
const {validateOptions} = require('./options');
const {chatRoutes, optOutRoutes, inlineScript, inlineCss} = require('./routes');
const {findWidget, copyWidget, defaultWidgetDir, WidgetNotBuilt} = require('./widget-files');
const {checkUrls, indexUrls, isAnchorProblem} = require('./check-anchors');
const {nativeBinary} = require('./platform');
const {localizedDocsDir, sourcePath} = require('./locale-docs');
const {localeStrings} = require('./strings');
const {indexInBackground, runInBackground} = require('./dev-index');

const PLUGIN = 'docusaurus-plugin-book-chat';

/** The packed build model shipped with this package (written by scripts/pack.sh). */
const PACKED_MODEL = path.join(__dirname, 'model', 'book-chat-model.safetensors');

/**
 * The `index-builder` executable: the `indexBuilder` option or $BOOK_CHAT_INDEX_BUILDER (for
 * developers of this repo), else the platform package's binary. Never PATH or cargo.
 */
function indexBuilderPath(options) {
  return options.indexBuilder || process.env.BOOK_CHAT_INDEX_BUILDER || nativeBinary('index-builder');
}

/** Runs a command with inherited output; a failure becomes an Error naming the command. */
function run(cmd, args) {
  try {
    execFileSync(cmd, args, {stdio: ['ignore', 'inherit', 'inherit']});
  } catch (e) {
    const why = e.code === 'ENOENT' ? `${cmd} not found (set the plugin's indexBuilder option or BOOK_CHAT_INDEX_BUILDER)` : `exit status ${e.status}`;
    throw new Error(`[${PLUGIN}] ${path.basename(cmd)} ${args.join(' ')} failed: ${why}`);
  }
}

/**
 * The site's Docusaurus version (its `@docusaurus/core`), for the builder's anchor rules; `null`
 * when it cannot be read (the builder then follows the newest Docusaurus).
 */
function docusaurusVersion(siteDir) {
  try {
    const file = require.resolve('@docusaurus/core/package.json', {paths: [siteDir]});
    return JSON.parse(fs.readFileSync(file, 'utf8')).version || null;
  } catch {
    return null;
  }
}

/**
 * Reports `problems` at a Docusaurus reporting level ('ignore', 'log', 'warn' or 'throw'): returns
 * the message to throw for 'throw', else prints it (or nothing) and returns null.
 */
function report(problems, level, what) {
  if (!problems.length || level === 'ignore') return null;
  const message = `[${PLUGIN}] ${problems.length} ${what}:\n  ${problems.join('\n  ')}`;
  if (level === 'throw') return message;
  (level === 'log' ? console.log : console.warn)(message);
  return null;
}

/**
 * Writes `file`: each doc of `version` by its path in the folder the builder reads (relative to the
 * localized or the default content folder, '/'-separated) → the permalink Docusaurus gave it.
 */
function writePermalinks(file, version, siteDir) {
  const permalinks = {};
  for (const page of version.pages) {
    const abs = sourcePath(siteDir, page.source);
    for (const dir of [version.contentPathLocalized, version.contentPath].filter(Boolean)) {
      const rel = path.relative(dir, abs);
      if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) {
        permalinks[rel.split(path.sep).join('/')] = page.permalink;
        break;
      }
    }
  }
  fs.mkdirSync(path.dirname(file), {recursive: true});
  fs.writeFileSync(file, JSON.stringify(permalinks));
}

/**
 * Index folder (relative to the output) of one docs version: the primary docs instance's in
 * `indexPath`, another instance's beside it in `indexPath-<id>`; a single version keeps the plain
 * folder, several get a subfolder each.
 */
function versionIndexPath({indexPath, pluginId, primary, versionName, versionCount}) {
  const base = pluginId === primary ? indexPath : `${indexPath}-${pluginId}`;
  return versionCount > 1 ? `${base}/${versionName}` : base;
}

/**
 * The docs instances to index: the `docsPluginId` option (one id or a list), or every docs
 * instance of the site; and the primary one (`default` when indexed, else the first), whose last
 * version answers pages no other index claims. Throws naming the ids the site has.
 */
function docsInstances(byId, option) {
  const have = Object.keys(byId);
  const ids = option == null ? have : [].concat(option);
  const missing = ids.filter((id) => !byId[id]);
  if (!ids.length || missing.length) {
    throw new Error(
      `[${PLUGIN}] ${missing.length ? `no docs plugin with id "${missing.join('", "')}"` : 'no docs plugin'}: the chat indexes the pages of @docusaurus/plugin-content-docs. ` +
        (have.length
          ? `Set the option docsPluginId to one or more of: ${have.join(', ')} (or leave it out to index them all).`
          : 'Enable docs in the classic preset (presets: [["classic", {docs: {...}}]]) or add @docusaurus/plugin-content-docs.'),
    );
  }
  return {ids, primary: ids.includes('default') ? 'default' : ids[0]};
}

module.exports = function bookChatPlugin(context, options) {
  const {siteConfig, baseUrl, i18n, siteDir} = context;
  const joinBase = (p) => `${baseUrl.replace(/\/$/, '')}/${p.replace(/^\//, '')}`;
  const widgetUrlBase = joinBase(options.widgetPath);
  const locale = i18n ? i18n.currentLocale : 'en';
  const localeConfig = (i18n && i18n.localeConfigs && i18n.localeConfigs[locale]) || {};
  const isProduction = process.env.NODE_ENV === 'production';
  // Filled by allContentLoaded: what the docs plugin loaded.
  let docs = null;
  let widget = null;
  // `docusaurus start`: the folder the dev server also serves at baseUrl (widget and index), and
  // its background indexer (dev-index.js).
  const devDir = path.join(context.generatedFilesDir, 'book-chat', `dev-site-${locale}`);
  async function buildDevIndex(loaded) {
    const builder = indexBuilderPath(options);
    for (const v of loaded.versions) {
      const indexDir = path.join(devDir, v.indexPath);
      const {args, tmp} = prepareIndexBuild(v, indexDir, 'dev-');
      console.log(`[${PLUGIN}] indexing ${describe(v)} for \`docusaurus start\` in the background`);
      try {
        await runInBackground(builder, args);
      } catch (e) {
        fs.rmSync(tmp, {recursive: true, force: true});
        throw e;
      }
      moveIntoPlace(tmp, indexDir);
    }
  }

  /** "en docs, version current (12 pages)", naming a docs instance other than the default. */
  function describe(v) {
    const instance = v.pluginId === 'default' ? '' : ` (${v.pluginId})`;
    return `${locale} docs${instance}, version ${v.name} (${v.sources.length} pages)`;
  }

  /**
   * The builder's arguments for one docs version written to `${indexDir}.tmp-<pid>` (returned as
   * `tmp`, emptied here): what `docusaurus build` and the dev server's background index both run.
   * `scratch` prefixes the names of the scratch files, so `docusaurus start` ('dev-') and a
   * `docusaurus build` of the same site at the same time never write into each other's.
   */
  function prepareIndexBuild(v, indexDir, scratch = '') {
    const docsDir = localizedDocsDir({
      version: v,
      siteDir,
      work: path.join(context.generatedFilesDir, 'book-chat', `${scratch}${locale}-${v.key}`),
    });
    const routeBasePath = v.path.slice(baseUrl.length - 1) || '/';
    const tmp = `${indexDir}.tmp-${process.pid}`;
    fs.rmSync(tmp, {recursive: true, force: true});
    const args = ['build', '--docs', docsDir, '--out', tmp, '--base-url', baseUrl, '--route-base-path', routeBasePath, '--title', siteConfig.title, '--quiet'];
    if (typeof siteConfig.trailingSlash === 'boolean') args.push('--trailing-slash', String(siteConfig.trailingSlash));
    // Heading anchors follow the site's Docusaurus (3.10 reads `{/* #id */}` as an id).
    const version = docusaurusVersion(siteDir);
    if (version) args.push('--docusaurus-version', version);
    // Which pages are CommonMark rather than MDX ('mdx', 'detect' or 'md').
    const format = siteConfig.markdown && siteConfig.markdown.format;
    if (['mdx', 'detect', 'md'].includes(format)) args.push('--markdown-format', format);
    if (siteConfig.markdown && siteConfig.markdown.anchors && siteConfig.markdown.anchors.maintainCase === true) args.push('--anchors-maintain-case');
    // The URLs Docusaurus gave the docs, so citations never guess a page's URL.
    const permalinks = path.join(context.generatedFilesDir, 'book-chat', `${scratch}${locale}-${v.key}-permalinks.json`);
    writePermalinks(permalinks, v, siteDir);
    args.push('--permalinks', permalinks);
    // The page language: English books get the question encoder, others BM25 alone.
    args.push('--language', localeConfig.htmlLang || locale);
    if (fs.existsSync(PACKED_MODEL)) args.push('--model', PACKED_MODEL);
    // The encoder's word table, when the author trades download size for fidelity.
    if (options.wordMinUses != null) args.push('--word-min-uses', String(options.wordMinUses));
    if (options.wordRows != null) args.push('--word-rows', String(options.wordRows));
    args.push('--cache', path.join(siteDir, 'node_modules', '.cache', 'book-chat', `embeddings-${locale}-${v.key}.bin`));
    return {args, tmp};
  }

  /** Replaces `indexDir` with the finished `tmp`. */
  function moveIntoPlace(tmp, indexDir) {
    fs.rmSync(indexDir, {recursive: true, force: true});
    fs.renameSync(tmp, indexDir);
  }

  return {
    name: PLUGIN,

    getClientModules() {
      return [path.resolve(__dirname, 'client-module.js')];
    },

    async allContentLoaded({allContent}) {
      const byId = allContent['docusaurus-plugin-content-docs'] || {};
      const {ids, primary} = docsInstances(byId, options.docsPluginId);
      const published = (v) => v.docs.filter((d) => !d.draft);
      const all = ids.flatMap((id) => byId[id].loadedVersions.map((v) => ({id, v})));
      if (all.every(({v}) => published(v).length === 0)) {
        throw new Error(
          `[${PLUGIN}] the docs folder ${all.map(({v}) => v.contentPath).join(', ')} has no pages: add a .md or .mdx file, or remove the plugin.`,
        );
      }
      const versions = [];
      for (const id of ids) {
        const loaded = byId[id].loadedVersions;
        const last = loaded.find((v) => v.isLast) || loaded.find((v) => v.versionName === 'current') || loaded[0];
        const kept = loaded.filter((v) => published(v).length > 0);
        for (const v of kept) {
          versions.push({
            pluginId: id,
            name: v.versionName,
            // Names the version's scratch files and embedding cache; the default instance's keep
            // their names from before several instances were indexed.
            key: id === 'default' ? v.versionName : `${id}-${v.versionName}`,
            indexPath: versionIndexPath({indexPath: options.indexPath, pluginId: id, primary, versionName: v.versionName, versionCount: kept.length}),
            path: v.path,
            contentPath: v.contentPath,
            contentPathLocalized: v.contentPathLocalized,
            sources: published(v).map((d) => d.source),
            pages: published(v).map((d) => ({source: d.source, permalink: d.permalink})),
            isLast: id === primary && v === last,
          });
        }
      }
      const loadedAll = all.map(({v}) => v);
      docs = {
        versions,
        // Each version's path and pages, for the pages that get the widget (`chatRoutes`).
        routeVersions: loadedAll.map((v) => ({
          path: v.path,
          permalinks: published(v)
            .map((d) => d.permalink)
            .concat((v.categoryGeneratedIndices || []).map((c) => c.permalink)),
        })),
        optOut: loadedAll.flatMap((v) => optOutRoutes(v.docs)),
      };
      try {
        widget = findWidget(options.widgetDir || defaultWidgetDir());
      } catch (e) {
        // `docusaurus start` works without a built widget (no bubble); a build does not.
        if (!(e instanceof WidgetNotBuilt) || isProduction) throw e;
        console.warn(e.message);
        widget = null;
      }
      if (!isProduction && widget) {
        // The dev server gets the widget and, in the background, an index of the docs as they are
        // now (again after each change); page views never wait for it.
        copyWidget(widget, path.join(devDir, options.widgetPath));
        const loaded = docs;
        if (options.buildIndex) indexInBackground(devDir, () => buildDevIndex(loaded));
      }
    },

    configureWebpack(config, isServer) {
      // `docusaurus start` serves the widget and the background index from devDir (after the
      // site's own static folders, so an author's files of the same name win).
      if (isServer || isProduction) return {};
      // webpack-dev-server refuses a static folder that does not exist yet.
      fs.mkdirSync(devDir, {recursive: true});
      return {devServer: {static: [{directory: devDir, publicPath: baseUrl, watch: false}]}};
    },

    injectHtmlTags() {
      if (!docs || !widget) return {};
      const count = docs.versions.length;
      const urlOf = (v) => options.indexUrl || joinBase(v.indexPath);
      const lastVersion = docs.versions.find((v) => v.isLast) || docs.versions[0];
      const config = {
        proxyUrl: options.proxyUrl,
        indexUrl: urlOf(lastVersion),
        wasmUrl: `${widgetUrlBase}/${widget.js}`,
        encoderUrl: widget.encoderJs ? `${widgetUrlBase}/${widget.encoderJs}` : null,
        markdownUrl: widget.markdownJs ? `${widgetUrlBase}/${widget.markdownJs}` : null,
        loaderUrl: `${widgetUrlBase}/${widget.loaderOut}`,
        ...chatRoutes({baseUrl, routes: options.routes, versions: docs.routeVersions}),
        optOut: docs.optOut,
        indexes: count > 1 ? docs.versions.map((v) => ({prefix: v.path.replace(/\/?$/, '/'), indexUrl: urlOf(v)})) : undefined,
        locale: localeConfig.htmlLang || locale,
        direction: localeConfig.direction || 'ltr',
        strings: localeStrings({siteDir, locale, option: options.strings}),
      };
      return {
        headTags: [
          {tagName: 'style', attributes: {'data-book-chat': ''}, innerHTML: inlineCss(options.colors)},
          {tagName: 'script', attributes: {'data-book-chat': ''}, innerHTML: inlineScript(config)},
        ],
      };
    },

    async postBuild({outDir}) {
      const written = [];
      try {
        if (!docs) throw new Error(`[${PLUGIN}] docs were not loaded`);
        if (!widget) widget = findWidget(options.widgetDir || defaultWidgetDir());
        const widgetOut = path.join(outDir, options.widgetPath);
        written.push(widgetOut);
        copyWidget(widget, widgetOut);
        const builder = options.buildIndex ? indexBuilderPath(options) : null;
        const urls = [];
        for (const v of docs.versions) {
          const indexDir = path.join(outDir, v.indexPath);
          written.push(indexDir);
          if (builder) {
            // Written beside, then moved in: a failed build never leaves an index that looks complete.
            const {args, tmp} = prepareIndexBuild(v, indexDir);
            written.push(tmp);
            console.log(`[${PLUGIN}] indexing ${describe(v)} -> ${path.relative(outDir, indexDir) || '.'}`);
            run(builder, args);
            moveIntoPlace(tmp, indexDir);
          }
          if (!fs.existsSync(path.join(indexDir, 'manifest.json'))) {
            throw new Error(`[${PLUGIN}] no index at ${indexDir} (buildIndex is off: put one there before the build ends)`);
          }
          if (options.checkAnchors && builder) urls.push(...indexUrls(builder, indexDir));
        }
        if (options.checkAnchors && builder) {
          const problems = checkUrls(outDir, urls, baseUrl);
          // As Docusaurus treats its own links: a missing page by onBrokenLinks (default 'throw'), a
          // missing #anchor by onBrokenAnchors (default 'warn'; such a citation opens its page at the top).
          const failures = [
            report(problems.filter((p) => !isAnchorProblem(p)), siteConfig.onBrokenLinks || 'throw', `cited URL(s) do not exist in the built site (locale ${locale}, onBrokenLinks)`),
            report(
              problems.filter(isAnchorProblem),
              siteConfig.onBrokenAnchors || 'warn',
              `cited anchor(s) do not exist in the built site (locale ${locale}, onBrokenAnchors); those citations open their page at the top`,
            ),
          ].filter(Boolean);
          if (failures.length) throw new Error(failures.join('\n'));
          if (!problems.length) console.log(`[${PLUGIN}] checked ${urls.length} cited URLs: every page and anchor exists`);
        }
      } catch (e) {
        // Never leave a build folder that looks complete: the pages already written would show a
        // chat with no index, so this locale's output folder goes.
        for (const p of written) fs.rmSync(p, {recursive: true, force: true});
        fs.rmSync(outDir, {recursive: true, force: true});
        e.message += `\n[${PLUGIN}] the incomplete output folder ${outDir} was removed.`;
        throw e;
      }
    },
  };
};

module.exports.validateOptions = validateOptions;

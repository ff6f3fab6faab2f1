// docusaurus-plugin-book-chat: adds the book chat to a Docusaurus 3 book with one line in
// docusaurus.config.js. At build time it indexes the docs (index-builder), copies the widget into
// the output and checks every cited anchor; on every page it injects the config and a tiny
// router hook that adds the loader on chat pages only. Options: see options.js / README.md.
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');
const {validateOptions} = require('./options');
const {chatPrefixes, optOutRoutes, inlineScript, inlineCss} = require('./routes');
const {findWidget, copyWidget, WidgetNotBuilt} = require('./widget-files');
const {checkUrls, indexUrls} = require('./check-anchors');

const PLUGIN = 'docusaurus-plugin-book-chat';

/** The `index-builder` executable: option, then $BOOK_CHAT_INDEX_BUILDER, then PATH. */
function indexBuilderPath(options) {
  return options.indexBuilder || process.env.BOOK_CHAT_INDEX_BUILDER || 'index-builder';
}

/** Runs a command with inherited output; a failure becomes an Error naming the command. */
function run(cmd, args) {
  try {
    execFileSync(cmd, args, {stdio: ['ignore', 'inherit', 'inherit']});
  } catch (e) {
    const why = e.code === 'ENOENT' ? `${cmd} not found (set the plugin's indexBuilder option or BOOK_CHAT_INDEX_BUILDER)` : e.message;
    throw new Error(`[${PLUGIN}] ${cmd} ${args.join(' ')} failed: ${why}`);
  }
}

module.exports = function bookChatPlugin(context, options) {
  const {siteConfig, baseUrl} = context;
  const joinBase = (p) => `${baseUrl.replace(/\/$/, '')}/${p.replace(/^\//, '')}`;
  const indexUrl = options.indexUrl || joinBase(options.indexPath);
  const widgetUrlBase = joinBase(options.widgetPath);
  // Filled by allContentLoaded: what the docs plugin loaded.
  let docs = null;
  let widget = null;

  return {
    name: PLUGIN,

    getClientModules() {
      return [path.resolve(__dirname, 'client-module.js')];
    },

    async allContentLoaded({allContent}) {
      const byId = allContent['docusaurus-plugin-content-docs'] || {};
      const content = byId[options.docsPluginId];
      if (!content) {
        throw new Error(`[${PLUGIN}] no docs plugin with id "${options.docsPluginId}" (set docsPluginId)`);
      }
      const versions = content.loadedVersions;
      const current = versions.find((v) => v.versionName === 'current') || versions[0];
      docs = {
        contentPath: current.contentPath,
        currentPath: current.path,
        versionPaths: versions.map((v) => v.path),
        optOut: versions.flatMap((v) => optOutRoutes(v.docs)),
      };
      try {
        widget = findWidget(options.widgetDir);
      } catch (e) {
        // `docusaurus start` works without a built widget (no bubble); a build does not.
        if (!(e instanceof WidgetNotBuilt) || process.env.NODE_ENV === 'production') throw e;
        console.warn(e.message);
        widget = null;
      }
    },

    injectHtmlTags() {
      if (!docs || !widget) return {};
      const config = {
        proxyUrl: options.proxyUrl,
        indexUrl,
        wasmUrl: `${widgetUrlBase}/${widget.js}`,
        encoderUrl: widget.encoderJs ? `${widgetUrlBase}/${widget.encoderJs}` : null,
        loaderUrl: `${widgetUrlBase}/${widget.loaderOut}`,
        prefixes: chatPrefixes({baseUrl, routes: options.routes, versionPaths: docs.versionPaths}),
        optOut: docs.optOut,
      };
      return {
        headTags: [
          {tagName: 'style', attributes: {'data-book-chat': ''}, innerHTML: inlineCss(options.colors)},
          {tagName: 'script', attributes: {'data-book-chat': ''}, innerHTML: inlineScript(config)},
        ],
      };
    },

    async postBuild({outDir}) {
      if (!docs) throw new Error(`[${PLUGIN}] docs were not loaded`);
      if (!widget) widget = findWidget(options.widgetDir);
      copyWidget(widget, path.join(outDir, options.widgetPath));
      const indexDir = path.join(outDir, options.indexPath);
      const builder = indexBuilderPath(options);
      if (options.buildIndex) {
        const routeBasePath = docs.currentPath.slice(baseUrl.length - 1) || '/';
        const args = ['build', '--docs', docs.contentPath, '--out', indexDir, '--base-url', baseUrl, '--route-base-path', routeBasePath, '--title', siteConfig.title, '--quiet'];
        if (typeof siteConfig.trailingSlash === 'boolean') args.push('--trailing-slash', String(siteConfig.trailingSlash));
        console.log(`[${PLUGIN}] ${builder} ${args.join(' ')}`);
        run(builder, args);
      }
      if (!fs.existsSync(path.join(indexDir, 'manifest.json'))) {
        throw new Error(`[${PLUGIN}] no index at ${indexDir} (buildIndex is off: put one there before the build ends)`);
      }
      if (options.checkAnchors) {
        const urls = indexUrls(builder, indexDir);
        const problems = checkUrls(outDir, urls, baseUrl);
        if (problems.length) {
          throw new Error(`[${PLUGIN}] ${problems.length} cited URL(s) do not exist in the built site:\n  ${problems.join('\n  ')}`);
        }
        console.log(`[${PLUGIN}] checked ${urls.length} cited URLs: every page and anchor exists`);
      }
    },
  };
};

module.exports.validateOptions = validateOptions;

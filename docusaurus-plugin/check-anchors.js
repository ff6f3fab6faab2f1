#!/usr/bin/env node
// After a build: every url#anchor the index cites must exist in the built HTML as a page and an
// element id. Used by the plugin's postBuild and runnable alone:
//   node docusaurus-plugin/check-anchors.js BUILD_DIR [--base-url /] [--index DIR] [--urls FILE] [--index-builder PATH]
const fs = require('fs');
const path = require('path');
const {execFileSync} = require('child_process');
const cheerio = require('cheerio');

/** Candidate files for a page path, the way static hosts (and the proxy) resolve them. */
function pageFiles(outDir, pagePath) {
  const rel = pagePath.replace(/^\/+/, '');
  const base = path.join(outDir, rel);
  if (rel === '' || rel.endsWith('/')) return [path.join(base, 'index.html')];
  if (rel.endsWith('.html')) return [base];
  return [path.join(base, 'index.html'), `${base}.html`];
}

/** Decodes a URL fragment as the browser does before matching an id. */
function decodeFragment(f) {
  try {
    return decodeURIComponent(f);
  } catch {
    return f;
  }
}

/**
 * Checks `urls` (site-absolute, e.g. '/docs/intro#goals') against the build in `outDir`.
 * Returns the problems, one string each; an empty list means every page and id exists.
 */
function checkUrls(outDir, urls, baseUrl = '/') {
  const problems = [];
  const idsByFile = new Map();
  for (const url of urls) {
    const [withQuery, fragment] = url.split('#', 2);
    const pathname = withQuery.split('?')[0];
    if (!pathname.startsWith(baseUrl)) {
      problems.push(`${url}: not under baseUrl ${baseUrl}`);
      continue;
    }
    const file = pageFiles(outDir, pathname.slice(baseUrl.length)).find((f) => fs.existsSync(f));
    if (!file) {
      problems.push(`${url}: no page (looked for ${pageFiles(outDir, pathname.slice(baseUrl.length)).map((f) => path.relative(outDir, f)).join(' or ')})`);
      continue;
    }
    if (!fragment) continue;
    if (!idsByFile.has(file)) {
      const $ = cheerio.load(fs.readFileSync(file, 'utf8'));
      idsByFile.set(file, new Set($('[id]').map((_, el) => $(el).attr('id')).get()));
    }
    if (!idsByFile.get(file).has(decodeFragment(fragment))) {
      problems.push(`${url}: page ${path.relative(outDir, file)} has no element with id "${decodeFragment(fragment)}"`);
    }
  }
  return problems;
}

/** Whether a problem of `checkUrls` is a missing `#id` on a page that exists (not a missing page). */
function isAnchorProblem(problem) {
  return / has no element with id "/.test(problem);
}

/** The index's cited URLs, from `index-builder urls --index DIR`. */
function indexUrls(indexBuilder, indexDir) {
  const out = execFileSync(indexBuilder, ['urls', '--index', indexDir], {encoding: 'utf8', maxBuffer: 64 << 20});
  return out.split('\n').map((l) => l.trim()).filter(Boolean);
}

function main(argv) {
  const args = {baseUrl: '/', index: null, urls: null, indexBuilder: process.env.BOOK_CHAT_INDEX_BUILDER || 'index-builder'};
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--base-url') args.baseUrl = argv[++i];
    else if (a === '--index') args.index = argv[++i];
    else if (a === '--urls') args.urls = argv[++i];
    else if (a === '--index-builder') args.indexBuilder = argv[++i];
    else rest.push(a);
  }
  const outDir = rest[0];
  if (!outDir) {
    console.error('usage: check-anchors.js BUILD_DIR [--base-url /] [--index DIR | --urls FILE] [--index-builder PATH]');
    return 2;
  }
  const urls = args.urls
    ? fs.readFileSync(args.urls, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean)
    : indexUrls(args.indexBuilder, args.index || path.join(outDir, 'book-index'));
  const problems = checkUrls(outDir, urls, args.baseUrl);
  for (const p of problems) console.error(`missing: ${p}`);
  console.log(`checked ${urls.length} cited URLs: ${problems.length ? `${problems.length} missing` : 'all present'}`);
  return problems.length ? 1 : 0;
}

if (require.main === module) process.exitCode = main(process.argv.slice(2));

module.exports = {isAnchorProblem, checkUrls, indexUrls, pageFiles};

// The docs folder the index builder reads for one docs version in the locale being built.
// Docusaurus takes each doc from the locale's folder
// (i18n/<locale>/docusaurus-plugin-content-docs/<version>/) when a translation exists there and
// from the default folder otherwise, file by file. The builder reads one folder, so for a locale
// with translations a merged copy is made under .docusaurus/book-chat/ with exactly the files
// Docusaurus used; without translations the original folder is read as is.
const fs = require('fs');
const path = require('path');

/** `@site/docs/a.md` → absolute path under `siteDir`. */
function sourcePath(siteDir, source) {
  return source.startsWith('@site/') ? path.join(siteDir, source.slice('@site/'.length)) : source;
}

/** Every file under `dir` (relative paths), for the non-doc files a page needs (_category_ files). */
function filesUnder(dir, rel = '') {
  const out = [];
  for (const entry of fs.readdirSync(path.join(dir, rel), {withFileTypes: true})) {
    const r = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...filesUnder(dir, r));
    else if (entry.isFile()) out.push(r);
  }
  return out;
}

/**
 * The folder to index for `version` ({contentPath, contentPathLocalized, sources}); `work` is a
 * scratch folder this function owns (replaced on every call).
 */
function localizedDocsDir({version, siteDir, work}) {
  const localized = version.contentPathLocalized;
  const translated = version.sources
    .map((s) => sourcePath(siteDir, s))
    .filter((p) => localized && p.startsWith(localized + path.sep));
  if (translated.length === 0) return version.contentPath;
  fs.rmSync(work, {recursive: true, force: true});
  for (const rel of filesUnder(version.contentPath)) {
    const own = path.join(localized, rel);
    const from = fs.existsSync(own) ? own : path.join(version.contentPath, rel);
    fs.mkdirSync(path.dirname(path.join(work, rel)), {recursive: true});
    fs.copyFileSync(from, path.join(work, rel));
  }
  return work;
}

module.exports = {localizedDocsDir, sourcePath};

// Translations of the widget's own words for the locale being built (config `strings`): the
// plugin option `strings: {<locale>: {<key>: <text>}}`, then Docusaurus' own translation file
// i18n/<locale>/code.json, whose entries with ids "bookChat.<key>" win (the prefix is removed).
// Keys and their English defaults are defined by the widget (src/i18n.rs); a missing key stays English.
const fs = require('fs');
const path = require('path');

const PREFIX = 'bookChat.';

/** The strings for `locale`; `option` is the plugin's `strings` option (already validated). */
function localeStrings({siteDir, locale, option}) {
  const out = {...((option && option[locale]) || {})};
  const file = path.join(siteDir, 'i18n', locale, 'code.json');
  if (fs.existsSync(file)) {
    let codeJson;
    try {
      codeJson = JSON.parse(fs.readFileSync(file, 'utf8'));
    } catch (e) {
      throw new Error(`[docusaurus-plugin-book-chat] ${file} is not valid JSON (${e.message}): fix the file or run docusaurus write-translations again`);
    }
    for (const [id, entry] of Object.entries(codeJson)) {
      if (!id.startsWith(PREFIX)) continue;
      const text = typeof entry === 'string' ? entry : entry && entry.message;
      if (typeof text === 'string') out[id.slice(PREFIX.length)] = text;
    }
  }
  return out;
}

module.exports = {localeStrings};

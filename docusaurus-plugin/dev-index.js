// The chat during `docusaurus start`: the dev server has no postBuild, so the plugin indexes the
// docs in the background into a folder under .docusaurus/ that the dev server serves at the site's
// base URL (beside the author's static folders, which win on a clash), and indexes again after
// each content change. Page views never wait for it: until the first index is written the panel
// says the index is not there yet, and the terminal says when it is.
const {spawn} = require('child_process');

const PLUGIN = 'docusaurus-plugin-book-chat';

/** Runs `cmd args` without blocking the dev server; rejects with an Error naming the command. */
function runInBackground(cmd, args) {
  return new Promise((resolve, reject) => {
    let child;
    try {
      child = spawn(cmd, args, {stdio: ['ignore', 'inherit', 'inherit']});
    } catch (e) {
      reject(new Error(`[${PLUGIN}] ${cmd} could not start: ${e.message}`));
      return;
    }
    child.on('error', (e) => {
      const why = e.code === 'ENOENT' ? `${cmd} not found (set the plugin's indexBuilder option or BOOK_CHAT_INDEX_BUILDER)` : e.message;
      reject(new Error(`[${PLUGIN}] ${why}`));
    });
    child.on('exit', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`[${PLUGIN}] ${cmd} ${args[0]} failed: ${signal ? `killed by ${signal}` : `exit status ${code}`}`));
    });
  });
}

/** The indexer of each dev folder: Docusaurus may create the plugin again on a reload. */
const indexers = new Map();

/**
 * Runs `build` in the background for the dev folder `key`, one build at a time: asked while a
 * build runs, it runs the latest `build` once more after it (changes saved during a build are
 * never lost, and a burst of saves costs one extra build, not one each). A failed build is
 * reported and keeps the index before it; it never stops the dev server. The promise settles when
 * the builds it caused are done.
 */
function indexInBackground(key, build, log = console) {
  let state = indexers.get(key);
  if (!state) {
    state = {running: null, next: null};
    indexers.set(key, state);
  }
  state.next = build;
  if (state.running) return state.running;
  state.running = (async () => {
    while (state.next) {
      const job = state.next;
      state.next = null;
      const t0 = Date.now();
      try {
        await job();
        log.log(`[${PLUGIN}] the chat's index for \`docusaurus start\` is ready (${((Date.now() - t0) / 1000).toFixed(1)} s); reload the page to use it`);
      } catch (e) {
        log.warn(`${e.message}\n[${PLUGIN}] the chat keeps the index it had, if any; the next saved page indexes again`);
      }
    }
    state.running = null;
  })();
  return state.running;
}

module.exports = {indexInBackground, runInBackground};

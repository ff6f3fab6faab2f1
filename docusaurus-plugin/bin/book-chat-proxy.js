#!/usr/bin/env node
// `npx book-chat-proxy --site build [--listen 127.0.0.1:8080] ...`: runs the proxy binary of this
// platform's package with the arguments given (see `--help`). It reads LLM_BASE_URL, LLM_API_KEY,
// LLM_MODEL and PROXY_LISTEN from the environment; signals are passed on so Ctrl+C stops it cleanly.
const {spawn} = require('child_process');
const {nativeBinary} = require('../platform');

let exe;
try {
  exe = nativeBinary('proxy');
} catch (e) {
  console.error(e.message);
  process.exit(1);
}
const child = spawn(exe, process.argv.slice(2), {stdio: 'inherit'});
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => child.kill(sig));
}
child.on('error', (e) => {
  console.error(`book-chat-proxy: cannot run ${exe}: ${e.message}`);
  process.exit(1);
});
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

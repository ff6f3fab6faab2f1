#!/usr/bin/env node
// Stands in for index-builder in the plugin's build test: `build` records its arguments (the last
// run's, and every run's in `<file>.all`) and writes a manifest; `urls` prints the lines of
// $FAKE_URLS_FILE.
const fs = require('fs');
const path = require('path');
const [cmd, ...args] = process.argv.slice(2);
const arg = (name) => args[args.indexOf(name) + 1];
if (cmd === 'build') {
  fs.mkdirSync(arg('--out'), {recursive: true});
  fs.writeFileSync(path.join(arg('--out'), 'manifest.json'), '{}');
  fs.writeFileSync(process.env.FAKE_ARGS_FILE, JSON.stringify(args));
  // Every run, one JSON line each (a site with several indexes runs the builder once per index).
  fs.appendFileSync(`${process.env.FAKE_ARGS_FILE}.all`, JSON.stringify(args) + '\n');
} else if (cmd === 'urls') {
  process.stdout.write(fs.readFileSync(process.env.FAKE_URLS_FILE, 'utf8'));
} else {
  process.exit(2);
}

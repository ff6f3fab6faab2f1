// The dev server's background indexer: one build at a time, saves during a build cost one more
// build with the latest docs, a failed build is reported and the next save builds again, and a
// builder that cannot start is an error naming it (never an exception in the dev server).
const {test} = require('node:test');
const assert = require('node:assert/strict');
const {indexInBackground, runInBackground} = require('../dev-index');

/** A console stand-in that keeps what was printed. */
function recorder() {
  const lines = [];
  return {lines, log: (m) => lines.push(`log ${m}`), warn: (m) => lines.push(`warn ${m}`)};
}

test('saves during a build run one more build, with the latest job', async () => {
  const out = recorder();
  const ran = [];
  let release;
  const gate = new Promise((r) => (release = r));
  const first = indexInBackground('k1', async () => {
    ran.push('first');
    await gate;
  }, out);
  // Three saves while the first build runs: only the last one's build runs after it.
  indexInBackground('k1', async () => ran.push('second'), out);
  indexInBackground('k1', async () => ran.push('third'), out);
  const last = indexInBackground('k1', async () => ran.push('fourth'), out);
  assert.equal(last, first, 'one run at a time');
  release();
  await first;
  assert.deepEqual(ran, ['first', 'fourth']);
  assert.equal(out.lines.filter((l) => l.includes('is ready')).length, 2);
});

test('a failed build is reported, and the next save builds again', async () => {
  const out = recorder();
  await indexInBackground('k2', async () => {
    throw new Error('index-builder build failed: exit status 1');
  }, out);
  assert.match(out.lines.join('\n'), /warn index-builder build failed: exit status 1\n.*keeps the index it had/);
  let ran = false;
  await indexInBackground('k2', async () => {
    ran = true;
  }, out);
  assert.ok(ran, 'the indexer is not stuck after a failure');
});

test('a builder that is missing or fails is an error naming it', async () => {
  await assert.rejects(runInBackground('/nonexistent/index-builder', ['build']), /\/nonexistent\/index-builder not found/);
  await assert.rejects(runInBackground(process.execPath, ['-e', 'process.exit(3)']), /failed: exit status 3/);
  await runInBackground(process.execPath, ['-e', '']);
});

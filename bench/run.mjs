#!/usr/bin/env node
// Browser benchmark: builds the wasm harness, serves bench/ and the book assets on 127.0.0.1,
// drives the system Chromium with playwright-core, and writes bench-results/browser.json and
// bench-results/browser.png.
//
//   node bench/run.mjs [--sizes 1000,10000,100000] [--clusters 0,100] [--rounds 5]
//                      [--large 1000000] [--book name=ASSET_DIR=EVAL.jsonl ...] [--skip-build]
//
// --clusters: 0 = uniform random unit vectors (the hard case for HNSW), c > 0 = one centre per c
// vectors (closer to real embeddings). HNSW graphs are built natively (bench/src/bin/make_ann.rs,
// cached in bench/data/) and loaded in the browser; sets of up to --browser-build-max vectors are
// also built in the browser to time that.
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, extname, join, normalize, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '..');

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : dflt;
};
const sizes = opt('sizes', '1000,10000,100000').split(',').filter(Boolean).map(Number);
const clusterSizes = opt('clusters', '0,100').split(',').map(Number);
const rounds = Number(opt('rounds', '5'));
const queries = Number(opt('queries', '100'));
const browserBuildMax = Number(opt('browser-build-max', '10000'));
const large = opt('large', '').split(',').filter(Boolean).map(Number);
const books = [];
args.forEach((a, i) => {
  if (a === '--book') {
    const [name, dir, evalFile] = args[i + 1].split('=');
    books.push({ name, dir: resolve(dir), evalFile: resolve(evalFile) });
  }
});
const outDir = resolve(opt('out', join(root, 'bench-results')));

const run = (cmd, cmdArgs, cwd) => {
  console.error(`$ ${cmd} ${cmdArgs.join(' ')}`);
  const r = spawnSync(cmd, cmdArgs, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} failed (${r.status})`);
  return r.stdout;
};

// 1. Build the harness (wasm) and the native graph builder.
const target = process.env.CARGO_TARGET_DIR || join(here, 'target');
if (!args.includes('--skip-build')) {
  run('cargo', ['build', '--release', '--target', 'wasm32-unknown-unknown', '--lib'], here);
  run('wasm-bindgen', ['--target', 'web', '--out-dir', join(here, 'pkg'),
    join(target, 'wasm32-unknown-unknown/release/book_bench.wasm')], here);
  run('cargo', ['build', '--release', '--bin', 'make_ann'], here);
}
mkdirSync(join(here, 'data'), { recursive: true });
const native = [];
for (const c of clusterSizes) {
  for (const n of sizes) {
    const file = join(here, 'data', `ann-${n}-${c}.bin`);
    if (!existsSync(file)) {
      const clusters = c > 0 ? Math.max(1, Math.round(n / c)) : 0;
      native.push(JSON.parse(run(join(target, 'release/make_ann'), [String(n), String(clusters), file], here)));
    }
  }
}

// 2. Serve bench/ and the assets.
const types = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.wasm': 'application/wasm', '.json': 'application/json' };
const mounts = { '/bench/': here, ...Object.fromEntries(books.map((b) => [`/books/${b.name}/`, b.dir])) };
const server = createServer((req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  for (const [prefix, dir] of Object.entries(mounts)) {
    if (!path.startsWith(prefix)) continue;
    const file = normalize(join(dir, path.slice(prefix.length)));
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) break;
    // Cross-origin isolation: performance.now() then ticks in 5 µs steps instead of 100 µs.
    res.writeHead(200, {
      'content-type': types[extname(file)] || 'application/octet-stream',
      'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp',
    });
    res.end(readFileSync(file));
    return;
  }
  res.writeHead(404);
  res.end('not found');
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${server.address().port}`;

// 3. The browser.
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
    '--disable-sync', '--no-first-run', '--disable-quic'],
});
const page = await browser.newPage();
page.setDefaultTimeout(0);
page.on('console', (m) => console.error(`[page] ${m.text()}`));
page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
await page.goto(`${base}/bench/index.html`);
await page.evaluate(() => window.bench.ready);
const userAgent = await page.evaluate(() => navigator.userAgent);

const isolated = await page.evaluate(() => self.crossOriginIsolated);
const fig = { generated: new Date().toISOString(), user_agent: userAgent, cross_origin_isolated: isolated, peer: 'Orama @orama/orama 3.1.18, stemming on, title/headings boost 2, vector search on the same dequantized int8 vectors, our encoder for the question vector', dim: 384, queries, rounds, native_ann_builds: native, synthetic: [], books: [] };

for (const c of clusterSizes) {
  for (const n of sizes) {
    const clusters = c > 0 ? Math.max(1, Math.round(n / c)) : 0;
    console.error(`synthetic n=${n} clusters=${clusters}`);
    const r = await page.evaluate(([n, clusters, q, rounds, url, build]) => window.bench.synth(n, clusters, q, rounds, url, build),
      [n, clusters, queries, rounds, `/bench/data/ann-${n}-${c}.bin`, n <= browserBuildMax]);
    r.vectors_per_cluster = c;
    fig.synthetic.push(r);
    console.error(JSON.stringify({ n, clusters, scan: r.scan.latency_ms.p50, hnsw: r.hnsw?.latency_ms.p50, exact: r.exact.latency_ms.p50, floor: r.floor.latency_ms.p50, scan_recall: r.scan.recall_at_10, hnsw_recall: r.hnsw?.recall_at_10 }));
  }
}

fig.large = [];
for (const n of large) {
  console.error(`large n=${n}`);
  try {
    const r = await page.evaluate(([n, q, rounds]) => window.bench.large(n, q, rounds), [n, queries, rounds]);
    fig.large.push(r);
    console.error(JSON.stringify({ n, scan: r.scan.latency_ms.p50, floor: r.floor.latency_ms.p50 }));
  } catch (e) {
    fig.large.push({ n, error: String(e.message || e) });
  }
}

// Crossover: the smallest size where HNSW's p50 is no slower than the scan's, with recall@10 >= 0.9.
for (const c of clusterSizes) {
  const rows = fig.synthetic.filter((r) => r.vectors_per_cluster === c);
  const win = rows.find((r) => r.hnsw && r.hnsw.latency_ms.p50 <= r.scan.latency_ms.p50 && r.hnsw.recall_at_10 >= 0.9);
  fig[`crossover_${c ? 'clustered' : 'uniform'}`] = win ? win.n : null;
}

// 4. Real books: ours (hybrid, BM25, dense) and Orama, on the labelled questions.
const norm = (h) => h.split(/\s+/).filter(Boolean).join(' ').toLowerCase();
function scorer(labels, pages) {
  const title = (p) => pages.find((pg) => pg.path === p)?.title;
  const sectionHit = (q, r) => [[q.path, q.heading], ...(q.also || []).map((t) => [t.path, t.heading])].some(([p, h]) => {
    if (p !== r.path) return false;
    h = h ?? null;
    const rh = r.heading ?? null;
    if (h === null) return rh === null;
    if (rh !== null) return norm(h) === norm(rh);
    const t = title(p);
    return t !== undefined && norm(t) === norm(h);
  });
  const pageHit = (q, r) => q.path === r.path || (q.also || []).some((t) => t.path === r.path);
  return (results) => {
    let n = 0, s1 = 0, s5 = 0, mrr = 0, p5 = 0, oos = 0, oosRefused = 0, falseRefusals = 0;
    labels.forEach((q, i) => {
      const res = results[i];
      if (q.out_of_scope || !q.path) {
        oos++;
        if (res.refused) oosRefused++;
        return;
      }
      n++;
      if (res.refused) falseRefusals++;
      const rank = res.top.findIndex((r) => sectionHit(q, r));
      if (rank === 0) s1++;
      if (rank >= 0 && rank < 5) { s5++; mrr += 1 / (rank + 1); }
      if (res.top.slice(0, 5).some((r) => pageHit(q, r))) p5++;
    });
    const out = { answerable: n, section_r1: s1 / n, section_r5: s5 / n, section_mrr: mrr / n, page_r5: p5 / n };
    if (results[0] && 'refused' in results[0]) Object.assign(out, { out_of_scope: oos, refusal_recall: oos ? oosRefused / oos : null, false_refusals: falseRefusals / n });
    return out;
  };
}

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const sizeOf = (file) => { const b = readFileSync(file); return { file: file.replace(`${root}/`, ''), raw: b.length, gzip: gz(b) }; };
// The browser files as scripts/build-widget.sh writes them (static/widget/; trunk's dist/ as a
// fallback): loader, widget and Markdown module count before the first answer; the encoder's own
// wasm and glue count with the encoder weights.
const widgetDir = ['static/widget', 'dist'].map((d) => join(root, d)).find((d) => existsSync(d) && readdirSync(d).some((f) => f.endsWith('.wasm')));
if (!widgetDir) throw new Error('no built widget in static/widget or dist: run scripts/build-widget.sh first');
const widgetAll = readdirSync(widgetDir).filter((f) => /\.(js|wasm)$/.test(f));
const widgetFiles = widgetAll.filter((f) => !f.includes('-encoder-')).map((f) => join(widgetDir, f));
const encoderModuleFiles = widgetAll.filter((f) => f.includes('-encoder-')).map((f) => join(widgetDir, f));

for (const b of books) {
  console.error(`book ${b.name}`);
  const labels = readFileSync(b.evalFile, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const questions = labels.map((l) => l.question);
  const ours = await page.evaluate(([u, q, r]) => window.bench.book(u, q, r), [`/books/${b.name}`, questions, rounds]);
  const peer = await page.evaluate(([q, r]) => window.bench.orama(q, r), [questions, rounds]);
  const score = scorer(labels, ours.pages);
  const manifest = JSON.parse(readFileSync(join(b.dir, 'manifest.json'), 'utf8'));
  const assets = { manifest: sizeOf(join(b.dir, 'manifest.json')), index: sizeOf(join(b.dir, manifest.files.index)), chunks: sizeOf(join(b.dir, manifest.files.chunks)), encoder: manifest.files.encoder ? sizeOf(join(b.dir, manifest.files.encoder)) : null };
  const widget = widgetFiles.map(sizeOf);
  const sum = (xs, k) => xs.reduce((a, x) => a + x[k], 0);
  const first = [...widget, assets.manifest, assets.index, assets.chunks];
  const row = {
    name: b.name, chunks: ours.chunks, load_ms: ours.load_ms, questions: questions.length,
    ours: { encode_p50: ours.hybrid.encode_ms.p50, encode_p99: ours.hybrid.encode_ms.p99, search_p50: ours.hybrid.search_ms.p50, search_p99: ours.hybrid.search_ms.p99, total_p50: ours.hybrid.total_ms.p50, total_p99: ours.hybrid.total_ms.p99, answer_p50: ours.hybrid.answer_ms.p50, answer_p99: ours.hybrid.answer_ms.p99, answer_read_p50: ours.hybrid.answer_read_ms.p50, answer_read_p99: ours.hybrid.answer_read_ms.p99, answer_note: 'excerpt answer (book_answer::compose) after the search, sentence embeddings included', ...score(ours.hybrid.results) },
    bm25: { search_p50: ours.bm25.search_ms.p50, search_p99: ours.bm25.search_ms.p99, answer_p50: ours.bm25.answer_ms.p50, answer_p99: ours.bm25.answer_ms.p99, answer_read_p50: ours.bm25.answer_read_ms.p50, answer_read_p99: ours.bm25.answer_read_ms.p99, ...score(ours.bm25.results) },
    dense: { search_p50: ours.dense.search_ms.p50, ...score(ours.dense.results) },
    orama: { index_ms: peer.index_ms, ...Object.fromEntries(['fulltext', 'vector', 'hybrid'].map((m) => [m, { p50: peer[m].search_ms.p50, p99: peer[m].search_ms.p99, ...score(peer[m].results) }])) },
    bytes: {
      widget, assets,
      before_first_answer: { raw: sum(first, 'raw'), gzip: sum(first, 'gzip'), note: 'loader + widget and Markdown js/wasm + manifest + index + chunk texts (BM25 answers; the encoder module and weights follow)' },
      encoder_module: encoderModuleFiles.map(sizeOf),
      with_encoder: assets.encoder ? { raw: sum(first, 'raw') + sum(encoderModuleFiles.map(sizeOf), 'raw') + assets.encoder.raw, gzip: sum(first, 'gzip') + sum(encoderModuleFiles.map(sizeOf), 'gzip') + assets.encoder.gzip } : null,
    },
  };
  row.ratio_search_ours_over_orama_fulltext = row.bm25.search_p50 / row.orama.fulltext.p50;
  row.ratio_search_ours_over_orama_vector = row.ours.search_p50 / row.orama.vector.p50;
  row.ratio_dense_ours_over_orama_vector = row.dense.search_p50 / row.orama.vector.p50;
  fig.books.push(row);
  console.error(JSON.stringify({ book: b.name, ours: row.ours, bm25: row.bm25, orama: row.orama }));
}

// 5. Figures and chart.
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, 'browser.json'), `${JSON.stringify(fig, null, 2)}\n`);
fig.chart_clusters = fig.synthetic.some((r) => r.clusters > 0) ? fig.synthetic.find((r) => r.clusters > 0).clusters : 0;
for (const c of clusterSizes) {
  const rows = fig.synthetic.filter((r) => r.vectors_per_cluster === c);
  if (!rows.length) continue;
  const [w, h] = await page.evaluate(([f, cl]) => window.bench.chart({ ...f, synthetic: f.synthetic.map((r) => ({ ...r, clusters: r.vectors_per_cluster })), chart_clusters: cl }), [fig, c]);
  await page.setViewportSize({ width: w, height: h });
  await page.locator('#chart svg').screenshot({ path: join(outDir, `browser-${c ? 'clustered' : 'uniform'}.png`) });
}
await browser.close();
server.close();
console.log(JSON.stringify({ crossover_uniform: fig.crossover_uniform, crossover_clustered: fig.crossover_clustered }));

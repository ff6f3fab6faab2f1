// Runs inside headless Chromium; run.mjs calls window.bench.* one step at a time.
import init, { Synth, Book } from './pkg/book_bench.js';
import { create, insertMultiple, search } from '@orama/orama';

const pct = (ms) => {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p) => s[Math.round((s.length - 1) * p)];
  return { p50: at(0.5), p99: at(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length, n: s.length };
};
const get = async (url) => {
  const r = await fetch(url);
  if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
  return new Uint8Array(await r.arrayBuffer());
};

let synth = null;
let book = null;
let orama = null;

window.bench = {
  ready: init().then(() => true),

  async synth(n, clusters, queries, rounds, annUrl, buildInBrowser) {
    synth?.free();
    const t0 = performance.now();
    synth = new Synth(n, 384, queries, clusters);
    const out = { n, clusters, setup_ms: performance.now() - t0 };
    out.floor = JSON.parse(synth.floor(Math.max(20, rounds * 10)));
    out.scan = JSON.parse(synth.run('scan', rounds));
    out.exact = JSON.parse(synth.run('exact', 1));
    if (buildInBrowser) out.hnsw_build_ms_browser = synth.build_ann(7n);
    if (annUrl) {
      const bytes = await get(annUrl);
      out.hnsw_file_bytes = bytes.length;
      out.hnsw_load_ms = synth.load_ann(bytes);
    }
    if (buildInBrowser || annUrl) out.hnsw = JSON.parse(synth.run('hnsw', rounds));
    const f = out.floor.latency_ms.p50;
    for (const m of ['scan', 'hnsw', 'exact']) if (out[m]) out[m].p50_over_floor = out[m].latency_ms.p50 / f;
    return out;
  },

  // Sizes too large for an f32 copy (1M): int8 codes only; scan and floor, no recall.
  large(n, queries, rounds) {
    synth?.free();
    const t0 = performance.now();
    synth = Synth.quantized_only(n, 384, queries);
    const out = { n, setup_ms: performance.now() - t0, note: 'int8 codes only (no f32 copy): no exact search, no recall' };
    out.floor = JSON.parse(synth.floor(Math.max(20, rounds * 10)));
    out.scan = JSON.parse(synth.run('scan', rounds));
    out.scan.p50_over_floor = out.scan.latency_ms.p50 / out.floor.latency_ms.p50;
    synth.free();
    synth = null;
    return out;
  },

  async book(base, questions, rounds) {
    book?.free();
    const manifest = await (await fetch(`${base}/manifest.json`)).json();
    const [idx, chunks, enc] = await Promise.all(
      [manifest.files.index, manifest.files.chunks, manifest.files.encoder].map((f) => get(`${base}/${f}`)));
    const load_ms = Book.load_ms(idx, chunks, enc);
    book = new Book(idx, chunks, enc);
    const qs = JSON.stringify(questions);
    const hybrid = JSON.parse(book.ask_all(qs, 'hybrid', rounds));
    const bm25 = JSON.parse(book.ask_all(qs, 'bm25', rounds));
    const dense = JSON.parse(book.ask_all(qs, 'dense', 1));
    return { chunks: book.len(), load_ms, hybrid, bm25, dense, pages: JSON.parse(book.pages_json()) };
  },

  // The peer: Orama over the same chunks (same text, same vectors), same questions.
  async orama(questions, rounds) {
    const chunks = JSON.parse(book.chunks_json());
    const t0 = performance.now();
    // Orama's best English set-up we know of: stemming on, title and headings boosted like ours.
    orama = create({
      schema: { title: 'string', headings: 'string', text: 'string', embedding: 'vector[384]' },
      components: { tokenizer: { stemming: true } },
    });
    await insertMultiple(orama, chunks.map((c, i) => ({
      id: String(i), title: c.title, headings: c.headings, text: c.text, embedding: c.vector,
    })));
    const index_ms = performance.now() - t0;
    const vectors = questions.map((q) => Array.from(book.encode(q)));
    const modes = {
      fulltext: (q) => ({ term: q, properties: ['title', 'headings', 'text'], boost: { title: 2, headings: 2 }, limit: 20 }),
      vector: (q, v) => ({ mode: 'vector', vector: { value: v, property: 'embedding' }, similarity: 0, limit: 20 }),
      hybrid: (q, v) => ({ mode: 'hybrid', term: q, properties: ['title', 'headings', 'text'], boost: { title: 2, headings: 2 }, vector: { value: v, property: 'embedding' }, similarity: 0, limit: 20 }),
    };
    const out = { index_ms };
    for (const [name, params] of Object.entries(modes)) {
      const ms = [];
      const results = [];
      for (let r = 0; r < rounds; r++) {
        for (let i = 0; i < questions.length; i++) {
          const t = performance.now();
          const res = await search(orama, params(questions[i], vectors[i]));
          ms.push(performance.now() - t);
          if (r === 0) {
            // One result per section, as ours returns, then the top 5.
            const seen = new Set();
            const top = [];
            for (const h of res.hits) {
              const c = chunks[Number(h.id)];
              const key = `${c.path}\u0000${c.heading}`;
              if (seen.has(key)) continue;
              seen.add(key);
              top.push({ path: c.path, heading: c.heading });
              if (top.length === 5) break;
            }
            results.push({ top });
          }
        }
      }
      out[name] = { search_ms: pct(ms), results };
    }
    return out;
  },

  // Draws the figures as SVG for the screenshot.
  chart(fig) {
    const el = document.getElementById('chart');
    const W = 1200, H = 420, L = 70, B = 50, T = 40, R = 250;
    const series = [
      ['scan', 'int8 scan + rescoring', '#1f77b4'], ['hnsw', 'HNSW (instant-distance)', '#d62728'],
      ['exact', 'f32 exact', '#7f7f7f'], ['floor', 'floor: SIMD byte sum', '#2ca02c'],
    ];
    const rows = fig.synthetic.filter((r) => r.clusters === fig.chart_clusters);
    const ns = rows.map((r) => r.n);
    const val = (r, s) => (r[s] ? r[s].latency_ms.p50 : null);
    const all = rows.flatMap((r) => series.map(([s]) => val(r, s))).filter((v) => v > 0);
    const lo = Math.log10(Math.min(...all)) - 0.2, hi = Math.log10(Math.max(...all)) + 0.2;
    const x = (i) => L + (i + 0.5) * ((W - L - R) / ns.length);
    const y = (v) => T + (H - T - B) * (1 - (Math.log10(v) - lo) / (hi - lo));
    const height = H + 80 + fig.books.length * 22;
    let svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${height}" font-family="sans-serif" font-size="13">`;
    svg += `<rect width="100%" height="100%" fill="white"/>`;
    svg += `<text x="${L}" y="22" font-size="16" font-weight="bold">Vector search p50 latency in headless Chromium (wasm, dim 384, ${fig.chart_clusters ? 'clustered' : 'uniform'} synthetic), log scale</text>`;
    for (let e = Math.ceil(lo); e <= Math.floor(hi); e++) {
      svg += `<line x1="${L}" x2="${W - R}" y1="${y(10 ** e)}" y2="${y(10 ** e)}" stroke="#ddd"/><text x="${L - 8}" y="${y(10 ** e) + 4}" text-anchor="end">${10 ** e} ms</text>`;
    }
    ns.forEach((n, i) => { svg += `<text x="${x(i)}" y="${H - B + 20}" text-anchor="middle">${n.toLocaleString('en')} vectors</text>`; });
    series.forEach(([s, label, color], k) => {
      const pts = rows.map((r, i) => [x(i), val(r, s)]).filter((p) => p[1] > 0);
      svg += `<polyline fill="none" stroke="${color}" stroke-width="2.5" points="${pts.map(([a, v]) => `${a},${y(v)}`).join(' ')}"/>`;
      pts.forEach(([a, v]) => { svg += `<circle cx="${a}" cy="${y(v)}" r="4" fill="${color}"/>`; });
      // recall@10 against f32 exact beside the scan and HNSW points.
      rows.forEach((r, i) => {
        if ((s === 'scan' || s === 'hnsw') && r[s]) svg += `<text x="${x(i) + 8}" y="${y(val(r, s)) + (s === 'scan' ? 14 : -6)}" font-size="11" fill="${color}">R@10 ${r[s].recall_at_10.toFixed(3)}</text>`;
      });
      svg += `<rect x="${W - R + 20}" y="${T + k * 24}" width="14" height="14" fill="${color}"/><text x="${W - R + 40}" y="${T + k * 24 + 12}">${label}</text>`;
    });
    // Books table under the chart.
    let ty = H + 20;
    svg += `<text x="${L}" y="${ty}" font-weight="bold">Real books (labelled questions): p50 ms and section recall@5, ours vs Orama</text>`;
    const cols = ['book', 'chunks', 'ours encode', 'ours search', 'ours R@5', 'BM25 R@5', 'Orama FT', 'Orama FT R@5', 'Orama vec', 'Orama vec R@5', 'Orama hyb R@5'];
    ty += 24;
    const cx = (i) => (i === 0 ? L : L + 80 + i * 88);
    cols.forEach((c, i) => { svg += `<text x="${cx(i)}" y="${ty}" font-weight="bold" font-size="11">${c}</text>`; });
    for (const b of fig.books) {
      ty += 22;
      const f = (v, d = 2) => (v == null ? '-' : v.toFixed(d));
      const cells = [b.name, b.chunks, f(b.ours.encode_p50), f(b.ours.search_p50, 3), f(b.ours.section_r5), f(b.bm25.section_r5),
        f(b.orama.fulltext.p50, 3), f(b.orama.fulltext.section_r5), f(b.orama.vector.p50, 3), f(b.orama.vector.section_r5), f(b.orama.hybrid.section_r5)];
      cells.forEach((c, i) => { svg += `<text x="${cx(i)}" y="${ty}" font-size="11">${c}</text>`; });
    }
    svg += '</svg>';
    el.innerHTML = svg;
    return [W, height];
  },
};

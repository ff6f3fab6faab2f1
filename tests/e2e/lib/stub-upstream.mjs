// A local OpenAI-compatible upstream for the browser tests: streams a short answer that cites
// sources [1] and [2], chunk by chunk with a pause (so the test sees it stream), and records every request.
// (proxy/src/bin/stub-upstream answers "Hello, world!", which cites nothing; the widget lists only
// the sources an answer cites, so the citation tests need an answer with "[1]" in it.)
import http from 'node:http';
import fs from 'node:fs';

/** The streamed answer, in the chunks it is sent as. */
export const ANSWER_CHUNKS = [
  'According to the book, ',
  'this is explained in the ',
  'section cited here [1]. ',
  'It describes the idea ',
  'step by step, with an example [2].',
];

function chunk(delta, finish = null) {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-stub',
    object: 'chat.completion.chunk',
    created: 0,
    model: 'stub-model',
    choices: [{index: 0, delta, finish_reason: finish}],
  })}\n\n`;
}

/**
 * Starts the stub on 127.0.0.1 (free port). Returns {url, requests, close}; `requests` is the list
 * of JSON bodies received (also appended to `recordFile` as JSON lines when given).
 */
export async function startStub({delayMs = 150, recordFile = null} = {}) {
  const requests = [];
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
        res.writeHead(404, {'content-type': 'application/json'});
        res.end('{"error":{"message":"not found"}}');
        return;
      }
      let json = null;
      try {
        json = JSON.parse(body);
      } catch {
        /* recorded as null */
      }
      requests.push(json);
      if (recordFile) fs.appendFileSync(recordFile, `${JSON.stringify({path: req.url, body: json})}\n`);
      res.writeHead(200, {'content-type': 'text/event-stream', 'cache-control': 'no-cache'});
      res.write(chunk({role: 'assistant', content: ''}));
      for (const c of ANSWER_CHUNKS) {
        await new Promise((r) => setTimeout(r, delayMs));
        if (res.destroyed) return;
        res.write(chunk({content: c}));
      }
      res.write(chunk({}, 'stop'));
      res.end('data: [DONE]\n\n');
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const {port} = server.address();
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

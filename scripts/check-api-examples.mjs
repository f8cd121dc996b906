// Checks the request/answer examples of docs/api.md against a running server over the store the
// page names (gridquote seed --db examples.db --days 5 --until 20250228 --seed 1):
//   node scripts/check-api-examples.mjs docs/api.md http://127.0.0.1:8080 "$KEY"
// Each `GET /api/...` line followed by an answer is requested (with Accept: text/csv where the
// line says so); the answer's shown parts (split at `…`) must appear in the real one, in order.
// Examples that need other request headers (the 406 one) are reported and can be ignored.
import { readFileSync } from 'node:fs';

const [doc = 'docs/api.md', base = 'http://127.0.0.1:8080', key = ''] = process.argv.slice(2);
const lines = readFileSync(doc, 'utf8').split('\n');
const isHeader = (line) => /^[A-Za-z-]+: /.test(line) || line.startsWith('HTTP/1.1');
let checked = 0;
let differ = 0;
for (let i = 0; i < lines.length; i++) {
  const match = /^GET (\/api\/\S+)(.*)$/.exec(lines[i]);
  if (!match) continue;
  const [, url, rest] = match;
  const shown = [];
  for (let j = i + 1; j < lines.length && lines[j] !== '```' && !/^(GET|POST) /.test(lines[j]); j++) {
    if (!isHeader(lines[j])) shown.push(lines[j]);
  }
  const body = shown.join('\n').trim();
  if (body === '') continue;
  const headers = { authorization: `Bearer ${key}`, ...(rest.includes('text/csv') ? { accept: 'text/csv' } : {}) };
  const actual = (await (await fetch(base + url, { headers })).text()).trim();
  let at = 0;
  let missing;
  for (const part of body.split('…').map((text) => text.trim())) {
    if (part === '') continue;
    const found = actual.indexOf(part, at);
    if (found < 0) {
      missing = part;
      break;
    }
    at = found + part.length;
  }
  checked++;
  if (missing !== undefined) {
    differ++;
    console.log(`line ${i + 1}: GET ${url}\n  shown:  ${missing.slice(0, 200)}\n  actual: ${actual.slice(0, 200)}`);
  }
}
console.log(`${checked} examples checked, ${differ} differ`);

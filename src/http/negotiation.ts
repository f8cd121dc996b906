/**
 * Content negotiation between the two representations (docs/api.md, common rules: "Representations"). JSON
 * is the default; CSV wins only when the Accept header gives it a higher q-value. `?format=`
 * overrides the header entirely.
 */
export type Representation = 'json' | 'csv';

export const CONTENT_TYPES: Readonly<Record<Representation, string>> = {
  json: 'application/json; charset=utf-8',
  csv: 'text/csv; charset=utf-8',
};

const CANDIDATES: readonly {
  readonly representation: Representation;
  readonly type: string;
  readonly subtype: string;
}[] = [
  { representation: 'json', type: 'application', subtype: 'json' },
  { representation: 'csv', type: 'text', subtype: 'csv' },
];

// Clients send few distinct Accept headers; remember the answers.
const cache = new Map<string, Representation | undefined>();
const CACHE_LIMIT = 256;

/** The representation to answer with, or undefined when the header accepts neither (406). */
export function negotiate(accept: string | undefined): Representation | undefined {
  if (accept === undefined || accept === '' || accept === '*/*' || accept === 'application/json')
    return 'json';
  if (accept === 'text/csv') return 'csv';
  if (cache.has(accept)) return cache.get(accept);
  const answer = choose(accept);
  if (cache.size >= CACHE_LIMIT) cache.clear();
  cache.set(accept, answer);
  return answer;
}

interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

function parseAccept(header: string): Range[] {
  const ranges: Range[] = [];
  for (const part of header.split(',')) {
    const [mediaRange = '', ...parameters] = part.split(';');
    const [type, subtype, extra] = mediaRange.trim().toLowerCase().split('/');
    if (!type || !subtype || extra !== undefined) continue;
    let q = 1;
    for (const parameter of parameters) {
      const [name = '', value = ''] = parameter.split('=');
      if (name.trim().toLowerCase() !== 'q') continue;
      const parsed = Number(value.trim());
      // A malformed q-value is read leniently as 1 rather than refusing the request.
      q = value.trim() !== '' && parsed >= 0 && parsed <= 1 ? parsed : 1;
    }
    ranges.push({ type: type.trim(), subtype: subtype.trim(), q });
  }
  return ranges;
}

/** RFC 9110 12.5.1: the most specific matching range gives a candidate its q-value. */
function choose(header: string): Representation | undefined {
  const ranges = parseAccept(header);
  let best: Representation | undefined;
  let bestQ = 0;
  for (const candidate of CANDIDATES) {
    let specificity = -1;
    let q = 0;
    for (const range of ranges) {
      const level =
        range.type === candidate.type && range.subtype === candidate.subtype
          ? 2
          : range.type === candidate.type && range.subtype === '*'
            ? 1
            : range.type === '*' && range.subtype === '*'
              ? 0
              : -1;
      if (level > specificity) {
        specificity = level;
        q = range.q;
      }
    }
    // Strictly greater: on a tie the earlier candidate (JSON) stays.
    if (q > bestQ) {
      best = candidate.representation;
      bestQ = q;
    }
  }
  return best;
}

import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

/**
 * Content codings (RFC 9110 12.5.3): brotli or gzip when the client's Accept-Encoding allows
 * it, q-values and `identity` honoured. Small bodies are sent as they are: below about a
 * kilobyte the coding's framing and the CPU cost outweigh the bytes saved.
 */
export type Coding = 'br' | 'gzip';

export const COMPRESSION_THRESHOLD = 1024;

export interface EncodingChoice {
  /** The preferred coding the client accepts, if any. */
  readonly coding: Coding | undefined;
  /** Whether the client forbade identity (`identity;q=0`, or `*;q=0` without identity). */
  readonly identityRefused: boolean;
}

const NONE: EncodingChoice = { coding: undefined, identityRefused: false };
const BR: EncodingChoice = { coding: 'br', identityRefused: false };
const GZIP: EncodingChoice = { coding: 'gzip', identityRefused: false };

// Clients send few distinct Accept-Encoding headers; remember the answers.
const memo = new Map<string, EncodingChoice>();
const MEMO_LIMIT = 256;

export function chooseEncoding(header: string | undefined): EncodingChoice {
  if (header === undefined || header === '') return NONE;
  // What browsers, curl --compressed and most HTTP clients send.
  if (header === 'gzip, deflate, br' || header === 'gzip, deflate, br, zstd' || header === 'br') return BR;
  if (header === 'gzip' || header === 'gzip, deflate') return GZIP;
  let choice = memo.get(header);
  if (choice === undefined) {
    choice = parseAcceptEncoding(header);
    if (memo.size >= MEMO_LIMIT) memo.clear();
    memo.set(header, choice);
  }
  return choice;
}

function parseAcceptEncoding(header: string): EncodingChoice {
  const q = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...parameters] = part.split(';');
    let coding = name.trim().toLowerCase();
    if (coding === '') continue;
    if (coding === 'x-gzip') coding = 'gzip';
    let weight = 1;
    for (const parameter of parameters) {
      const [key = '', value = ''] = parameter.split('=');
      if (key.trim().toLowerCase() !== 'q') continue;
      const parsed = Number(value.trim());
      // A malformed q-value is read leniently as 1 rather than refusing the request.
      weight = value.trim() !== '' && parsed >= 0 && parsed <= 1 ? parsed : 1;
    }
    q.set(coding, weight);
  }
  const star = q.get('*');
  const weightOf = (coding: string): number => q.get(coding) ?? star ?? 0;
  const br = weightOf('br');
  const gz = weightOf('gzip');
  // identity is always acceptable unless refused, explicitly or through `*;q=0` (RFC 9110
  // 12.5.3); unlisted, it has no weight to prefer it over a coding the client did list.
  const identity = q.get('identity') ?? star;
  let coding: Coding | undefined;
  // Brotli wins ties: smaller for the same q.
  if (br > 0 && br >= gz) coding = 'br';
  else if (gz > 0) coding = 'gzip';
  if (coding !== undefined && identity !== undefined && identity > (coding === 'br' ? br : gz)) {
    coding = undefined;
  }
  return { coding, identityRefused: identity === 0 };
}

/** Whether a body of this size is sent with the chosen coding. */
export function shouldCompress(
  choice: EncodingChoice,
  size: number,
): choice is EncodingChoice & {
  coding: Coding;
} {
  return choice.coding !== undefined && (size >= COMPRESSION_THRESHOLD || choice.identityRefused);
}

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzip);

/** Brotli at quality 5 and gzip at level 6: most of the gain for a fraction of the maximum's CPU. */
export function compress(body: Buffer, coding: Coding): Promise<Buffer> {
  if (coding === 'br') {
    return brotliAsync(body, {
      params: {
        [constants.BROTLI_PARAM_QUALITY]: 5,
        [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
        [constants.BROTLI_PARAM_SIZE_HINT]: body.length,
      },
    });
  }
  return gzipAsync(body, { level: 6 });
}

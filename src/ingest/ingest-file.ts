import { open } from 'node:fs/promises';
import type { AppendResult, MarketWriter } from '../store/store.js';
import { type IngestLinesOptions, ingestLines } from './ingest-lines.js';
import { readLineGroups } from './read-lines.js';

/** Where a feed comes from: a file path, or '-' for standard input. */
export type FeedSource = string;

/**
 * Ingests an NDJSON feed file (or stdin for '-') as one batch, streaming: the file is never
 * held in memory as a whole. Throws IngestError for refused input, leaving the store as it was.
 */
export async function ingestFile(
  writer: MarketWriter,
  source: FeedSource,
  options: IngestLinesOptions & { stdin?: NodeJS.ReadableStream } = {},
): Promise<AppendResult> {
  if (source === '-') {
    const input = (options.stdin ?? process.stdin) as AsyncIterable<Buffer | string>;
    return ingestLines(writer, readLineGroups(input), options);
  }
  // Opening first turns a missing or unreadable file into an error before any work starts.
  const handle = await open(source, 'r');
  try {
    const stream = handle.createReadStream({ highWaterMark: 256 * 1024, autoClose: false });
    return await ingestLines(writer, readLineGroups(stream), options);
  } finally {
    await handle.close();
  }
}

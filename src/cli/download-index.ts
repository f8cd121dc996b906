import { createHash } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * What `gridquote get` knows of the files it completed in a directory, kept beside them in
 * `.gridquote-get.json`: each file's ETag (sent back as If-None-Match: a 304 means the file is
 * still the server's answer), its size and digest (a file changed or damaged since is
 * downloaded again without it).
 */
export interface IndexEntry {
  readonly etag: string;
  readonly bytes: number;
  readonly sha256: string;
}

export const INDEX_FILE = '.gridquote-get.json';

export class DownloadIndex {
  private constructor(
    private readonly dir: string,
    private readonly entries: Map<string, IndexEntry>,
  ) {}

  /** The directory's index; empty when there is none yet or it cannot be read (then all is re-checked). */
  static async load(dir: string): Promise<DownloadIndex> {
    const entries = new Map<string, IndexEntry>();
    try {
      const parsed = JSON.parse(await readFile(join(dir, INDEX_FILE), 'utf8')) as {
        files?: Record<string, IndexEntry>;
      };
      for (const [name, entry] of Object.entries(parsed.files ?? {})) {
        if (
          typeof entry?.etag === 'string' &&
          typeof entry.bytes === 'number' &&
          typeof entry.sha256 === 'string'
        ) {
          entries.set(name, { etag: entry.etag, bytes: entry.bytes, sha256: entry.sha256 });
        }
      }
    } catch {
      // Missing or unreadable: every file is fetched again, which is safe.
    }
    return new DownloadIndex(dir, entries);
  }

  /** The entry of a file whose bytes on disk are still the ones recorded; undefined otherwise. */
  async intact(name: string): Promise<IndexEntry | undefined> {
    const entry = this.entries.get(name);
    if (entry === undefined) return undefined;
    const bytes = await readFile(join(this.dir, name)).catch(() => undefined);
    if (bytes === undefined || bytes.length !== entry.bytes || digest(bytes) !== entry.sha256)
      return undefined;
    return entry;
  }

  /** Writes the file atomically, then records it: an interrupted run never leaves a half file counted complete. */
  async store(name: string, body: Buffer, etag: string | undefined): Promise<void> {
    await writeAtomically(join(this.dir, name), body);
    if (etag === undefined) this.entries.delete(name);
    else this.entries.set(name, { etag, bytes: body.length, sha256: digest(body) });
    await this.save();
  }

  private async save(): Promise<void> {
    const files = Object.fromEntries([...this.entries].sort(([a], [b]) => (a < b ? -1 : 1)));
    await writeAtomically(
      join(this.dir, INDEX_FILE),
      Buffer.from(`${JSON.stringify({ version: 1, files }, null, 2)}\n`),
    );
  }
}

function digest(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Temp file in the same directory, then rename: readers see the old file or the whole new one. */
async function writeAtomically(path: string, body: Buffer): Promise<void> {
  const temp = `${path}.${process.pid}.partial`;
  try {
    await writeFile(temp, body);
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

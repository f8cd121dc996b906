/**
 * A one-line progress display, redrawn in place, shown only when stderr is a terminal: piped
 * or logged output stays free of carriage returns.
 */
export interface Progress {
  update(text: string): void;
  done(): void;
}

const REDRAW_MS = 100;

export function createProgress(stderr: NodeJS.WritableStream & { readonly isTTY?: boolean }): Progress {
  if (!stderr.isTTY) return { update() {}, done() {} };
  let last = 0;
  let shown = false;
  return {
    update(text) {
      const now = Date.now();
      if (now - last < REDRAW_MS) return;
      last = now;
      shown = true;
      stderr.write(`\r${text}\u001b[K`);
    },
    done() {
      if (shown) stderr.write('\r\u001b[K');
    },
  };
}

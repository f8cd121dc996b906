import type pg from 'pg';

/**
 * The statements of one transaction, run one after the other on its connection while the
 * process goes on: `send` queues a write and does not wait for it, `ask` queues a read and
 * waits for its answer (after everything queued before it), `settle` waits for all. The first
 * failure is kept and thrown by every later ask and settle; the writes queued after it are not
 * run (the transaction is lost anyway). node-postgres runs one statement at a time and
 * deprecates queueing on the client, so every use of the connection goes through here.
 */
export class StatementQueue {
  private tail: Promise<void> = Promise.resolve();
  private failure: { readonly error: unknown } | undefined;
  private queued = 0;
  private unfinished = 0;

  constructor(readonly client: pg.ClientBase) {}

  /** Statements queued that have not started: they start only as the event loop turns. */
  get waiting(): number {
    return this.queued;
  }

  /** Whether every statement queued has finished, as far as the event loop has seen. */
  get idle(): boolean {
    return this.unfinished === 0;
  }

  send(write: (client: pg.ClientBase) => Promise<unknown>): void {
    this.queued += 1;
    this.unfinished += 1;
    this.tail = this.tail.then(async () => {
      this.queued -= 1;
      try {
        if (!this.failure) await write(this.client);
      } catch (error) {
        this.failure = { error };
      } finally {
        this.unfinished -= 1;
      }
    });
  }

  ask<T>(read: (client: pg.ClientBase) => Promise<T>): Promise<T> {
    this.queued += 1;
    this.unfinished += 1;
    const answer = this.tail.then(() => {
      this.queued -= 1;
      this.throwIfFailed();
      return read(this.client);
    });
    // a failed statement aborts the transaction: what is queued after it is not run
    this.tail = answer.then(
      () => {
        this.unfinished -= 1;
      },
      (error: unknown) => {
        this.unfinished -= 1;
        this.failure ??= { error };
      },
    );
    return answer;
  }

  async settle(): Promise<void> {
    await this.tail;
    this.throwIfFailed();
  }

  /** Resolves once everything queued so far has run, whether or not it failed. */
  drained(): Promise<void> {
    return this.tail;
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure.error;
  }
}

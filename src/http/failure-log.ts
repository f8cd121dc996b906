import { performance } from 'node:perf_hooks';

/**
 * When to log the cause of a failure that every request meets at once. A store that goes away
 * fails each request until it is back: with PostgreSQL stopped under load, the server logged
 * the same cause with its stack for every request, about 870 a second (docs/operations.md,
 * "When the store fails"), burying everything else in the log. Each request keeps its own
 * request line (at `error` for its 503); the cause is logged at most once per interval, with
 * the number of failures since the last one logged.
 */
export class FailureLog {
  #loggedAt = Number.NEGATIVE_INFINITY;
  #notLogged = 0;

  constructor(
    private readonly intervalMs = 1000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * For a failure now: when it is to be logged, how many were not logged since the last one
   * that was; otherwise undefined (and it is counted).
   */
  take(): number | undefined {
    const now = this.now();
    if (now - this.#loggedAt < this.intervalMs) {
      this.#notLogged += 1;
      return undefined;
    }
    this.#loggedAt = now;
    const notLogged = this.#notLogged;
    this.#notLogged = 0;
    return notLogged;
  }
}

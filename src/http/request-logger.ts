import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions, LogFn } from 'pino';

/**
 * Fastify gives every request a child logger bound to its request id, made before the handler
 * runs: about a microsecond and several objects per request (docs/benchmarks.md). The request
 * line (observability.ts) is written by the app's logger with the id as its first field, the same
 * JSON a child would write, so the child is needed only when a request logs something else (a
 * failure): this one makes it then.
 */
class LazyRequestLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger,
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions,
  ) {}

  #logger(): FastifyBaseLogger {
    this.#child ??= this.parent.child(this.bindings, this.options);
    return this.#child;
  }

  get level(): string {
    return this.#child?.level ?? this.options.level ?? this.parent.level;
  }

  set level(level: string) {
    this.#logger().level = level;
  }

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#logger().child(bindings, options);
  }

  fatal(...args: unknown[]): void {
    call(this.#logger(), 'fatal', args);
  }

  error(...args: unknown[]): void {
    call(this.#logger(), 'error', args);
  }

  warn(...args: unknown[]): void {
    call(this.#logger(), 'warn', args);
  }

  info(...args: unknown[]): void {
    call(this.#logger(), 'info', args);
  }

  debug(...args: unknown[]): void {
    call(this.#logger(), 'debug', args);
  }

  trace(...args: unknown[]): void {
    call(this.#logger(), 'trace', args);
  }

  silent(...args: unknown[]): void {
    call(this.#logger(), 'silent', args);
  }
}

type Level = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

/** pino's log methods are overloaded: the arguments are passed on as they came, with the logger as `this`. */
function call(logger: FastifyBaseLogger, level: Level, args: unknown[]): void {
  (logger[level] as LogFn as (...args: unknown[]) => void).apply(logger, args);
}

/** For Fastify's childLoggerFactory option. */
export function lazyRequestLogger(
  parent: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyRequestLogger(parent, bindings, options) as unknown as FastifyBaseLogger;
}

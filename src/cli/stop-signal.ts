import { SHUTDOWN_SIGNALS, type SignalSource } from './shutdown.js';

/**
 * An AbortSignal that aborts on SIGTERM or SIGINT: for the long-running stream commands, which
 * finish the work in hand and exit 0. dispose() removes the handlers.
 */
export function abortOnShutdownSignal(signals: SignalSource = process): {
  readonly signal: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const abort = () => controller.abort();
  for (const name of SHUTDOWN_SIGNALS) signals.on(name, abort);
  return {
    signal: controller.signal,
    dispose: () => {
      for (const name of SHUTDOWN_SIGNALS) signals.off(name, abort);
    },
  };
}

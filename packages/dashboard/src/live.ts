import { type GridquoteClient, GridquoteError, type StreamEvent, type StreamParams } from '@gridquote/client';

/** What a key that may not open the stream (an end_of_day key, 403) is told. */
export const STREAM_REFUSED =
  'live updates need a historical key: this key may not open the event stream (end_of_day access)';

/**
 * Follows GET /api/stream through the typed client (fetch with the key in the Authorization
 * header, resuming by itself with Last-Event-ID) and hands the events to a view in batches, in
 * order, on an animation frame at most every `intervalMs`: a view redraws a bounded number of
 * times a second however fast the feed runs, and the frames between stay free. Ends when the
 * view's signal aborts (the view was left), so a key never holds streams it does not show.
 * `onProblem` gets one line for the status ('' once a dropped stream is back).
 */
export function follow(
  api: GridquoteClient,
  params: StreamParams,
  signal: AbortSignal,
  onEvents: (events: StreamEvent[]) => void,
  onProblem: (message: string) => void,
  intervalMs = 0,
): void {
  let pending: StreamEvent[] = [];
  let frame = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastFlush = 0;
  const flush = (now: number) => {
    frame = 0;
    lastFlush = now;
    const events = pending;
    pending = [];
    if (!signal.aborted && events.length > 0) onEvents(events);
  };
  const schedule = () => {
    if (frame !== 0 || timer !== undefined) return;
    const wait = lastFlush + intervalMs - performance.now();
    if (wait <= 0) frame = requestAnimationFrame(flush);
    else
      timer = setTimeout(() => {
        timer = undefined;
        frame = requestAnimationFrame(flush);
      }, wait);
  };
  signal.addEventListener(
    'abort',
    () => {
      cancelAnimationFrame(frame);
      clearTimeout(timer);
    },
    { once: true },
  );
  let interrupted = false;
  void (async () => {
    try {
      const events = api.stream(params, {
        signal,
        onReconnect: ({ delayMs }) => {
          interrupted = true;
          onProblem(`live stream interrupted; reconnecting in ${Math.ceil(delayMs / 1000)} s`);
        },
        onOpen: () => {
          if (!interrupted) return;
          interrupted = false;
          onProblem('');
        },
      });
      for await (const event of events) {
        pending.push(event);
        schedule();
      }
    } catch (error) {
      if (signal.aborted) return;
      if (error instanceof GridquoteError && error.status === 403) {
        onProblem(STREAM_REFUSED);
        return;
      }
      onProblem(`live stream ended: ${error instanceof Error ? error.message : String(error)}`);
    }
  })();
}

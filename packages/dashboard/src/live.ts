import { type GridquoteClient, GridquoteError, type StreamEvent, type StreamParams } from '@gridquote/client';

/**
 * Follows GET /api/stream through the typed client (fetch with the key in the Authorization
 * header, resuming by itself with Last-Event-ID) and hands the events to a view once per
 * animation frame, in order: a view redraws at most once a frame however fast the feed runs.
 * Ends when the view's signal aborts (the view was left), so a key never holds streams it
 * does not show.
 */
export function follow(
  api: GridquoteClient,
  params: StreamParams,
  signal: AbortSignal,
  onEvents: (events: StreamEvent[]) => void,
  onProblem: (message: string) => void,
): void {
  let pending: StreamEvent[] = [];
  let frame = 0;
  const flush = () => {
    frame = 0;
    const events = pending;
    pending = [];
    if (!signal.aborted && events.length > 0) onEvents(events);
  };
  signal.addEventListener('abort', () => cancelAnimationFrame(frame), { once: true });
  void (async () => {
    try {
      const events = api.stream(params, {
        signal,
        onReconnect: ({ delayMs }) =>
          onProblem(`live stream interrupted; reconnecting in ${Math.ceil(delayMs / 1000)} s`),
      });
      for await (const event of events) {
        pending.push(event);
        if (frame === 0) frame = requestAnimationFrame(flush);
      }
    } catch (error) {
      if (signal.aborted) return;
      onProblem(
        `live stream ended: ${error instanceof GridquoteError || error instanceof Error ? error.message : String(error)}`,
      );
    }
  })();
}

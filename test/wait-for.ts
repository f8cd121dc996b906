/**
 * Waits for a condition rather than for a time: polls `probe` until it returns a value other
 * than undefined / false, or fails after `timeoutMs` naming what it waited for. The deadline is
 * generous on purpose: on a busy machine a condition arrives late, never early, and a passing
 * run returns as soon as it holds.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | false | Promise<T | undefined | false>,
  { timeoutMs = 20_000, intervalMs = 10 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

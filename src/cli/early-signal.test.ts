import { afterEach, describe, expect, it } from 'vitest';
import { EarlySignal } from './serve-workers.js';

/**
 * The primary's signals while its workers start (serve-workers.ts): kept instead of Node's
 * default (which ends the process at once, with no drain), then handed to the shutdown.
 * `process.emit` delivers a signal's listeners as the real signal would.
 */
describe('a shutdown signal while the workers start', () => {
  const added: [NodeJS.Signals, () => void][] = [];
  afterEach(() => {
    for (const [name, listener] of added.splice(0)) process.off(name, listener);
  });

  it('is kept while they start and handed on once to the shutdown that follows', async () => {
    const before = process.listenerCount('SIGTERM');
    const early = new EarlySignal();
    // Listened to: Node's default (ending the process) no longer applies.
    expect(process.listenerCount('SIGTERM')).toBe(before + 1);
    process.emit('SIGTERM');
    process.emit('SIGINT');
    early.stopListening();
    expect(process.listenerCount('SIGTERM')).toBe(before);

    const heard: string[] = [];
    const signals = early.replayed();
    for (const name of ['SIGTERM', 'SIGINT'] as const) {
      const listener = () => heard.push(name);
      added.push([name, listener]);
      signals.on(name, listener);
    }
    await Promise.resolve();
    // The first one received, once: a second signal means "hurry", and none came after the start.
    expect(heard).toEqual(['SIGTERM']);
    process.emit('SIGINT');
    expect(heard).toEqual(['SIGTERM', 'SIGINT']);
  });

  it('without a signal, leaves the shutdown to the process itself', () => {
    const early = new EarlySignal();
    early.stopListening();
    expect(early.replayed()).toBe(process);
  });
});

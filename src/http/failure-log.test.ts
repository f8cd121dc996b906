import { describe, expect, it } from 'vitest';
import { FailureLog } from './failure-log.js';

describe('FailureLog', () => {
  it('logs the first failure, then one per interval with the number left out since', () => {
    let now = 0;
    const log = new FailureLog(1000, () => now);
    expect(log.take()).toBe(0);
    now = 10;
    expect(log.take()).toBeUndefined();
    now = 999;
    expect(log.take()).toBeUndefined();
    expect(log.take()).toBeUndefined();
    now = 1000;
    expect(log.take()).toBe(3);
    now = 1500;
    expect(log.take()).toBeUndefined();
    now = 5000;
    expect(log.take()).toBe(1);
    now = 9000;
    expect(log.take()).toBe(0);
  });
});

import { describe, expect, it } from 'vitest';
import { guardStore } from './guard-store.js';
import { StoreUnavailableError } from './problems.js';

class Counter {
  count = 0;
  add(by: number): number {
    this.count += by;
    return this.count;
  }
  async later(by: number): Promise<number> {
    return this.add(by);
  }
  broken(): never {
    throw new Error('disk I/O error');
  }
  async brokenLater(): Promise<never> {
    throw new Error('connection terminated');
  }
}

describe('guardStore', () => {
  it("calls the target's own methods and its class's on the target, with their arguments and results", async () => {
    const counter = new Counter();
    const plain = { twice: (n: number) => n * 2 };
    const guarded = guardStore(counter);
    expect(guarded.add(2)).toBe(2);
    await expect(guarded.later(3)).resolves.toBe(5);
    expect(counter.count).toBe(5);
    expect(guardStore(plain).twice(21)).toBe(42);
  });

  it('turns a throw and a rejection into a 503 StoreUnavailableError that keeps the cause', async () => {
    const guarded = guardStore(new Counter());
    let thrown: unknown;
    try {
      guarded.broken();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(StoreUnavailableError);
    expect((thrown as Error).cause).toEqual(new Error('disk I/O error'));
    const rejected = await guarded.brokenLater().catch((error: unknown) => error);
    expect(rejected).toBeInstanceOf(StoreUnavailableError);
    expect((rejected as Error).cause).toEqual(new Error('connection terminated'));
  });

  it('calls a method replaced on the target after it was guarded', () => {
    const counter = new Counter();
    const guarded = guardStore(counter);
    expect(guarded.add(1)).toBe(1);
    counter.add = () => -1;
    expect(guarded.add(1)).toBe(-1);
  });

  it('leaves out what is not a method, and an optional method the target lacks', () => {
    const guarded = guardStore<{ find(): number; remembered?(): number }>({ find: () => 1 });
    expect(guarded.find()).toBe(1);
    expect(guarded.remembered).toBeUndefined();
    expect(Object.keys(guardStore(new Counter()))).not.toContain('count');
  });
});

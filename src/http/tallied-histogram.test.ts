import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { DURATION_BUCKETS } from './metrics.js';
import { createTalliedHistogram } from './tallied-histogram.js';

const NAME = 'test_duration_seconds';
const HELP = 'A duration.';

function tallied(registry: Registry) {
  return createTalliedHistogram({
    name: NAME,
    help: HELP,
    labelName: 'operation',
    buckets: DURATION_BUCKETS,
    registry,
  });
}

describe('createTalliedHistogram', () => {
  it("exposes exactly what prom-client's Histogram exposes for the same observations", async () => {
    const ours = new Registry();
    const theirs = new Registry();
    const reference = new Histogram({
      name: NAME,
      help: HELP,
      labelNames: ['operation'],
      buckets: DURATION_BUCKETS,
      registers: [theirs],
    });
    const histogram = tallied(ours);
    const epi = histogram.series('epi');
    const trades = histogram.series('trades');
    histogram.series('never-observed');
    // On bounds, between them, below the first and above the last (+Inf).
    const values = [0.0001, 0.0005, 0.0007, 0.001, 0.003, 0.25, 0.26, 2.5, 3, 7.25];
    for (const [index, value] of values.entries()) {
      const operation = index % 3 === 0 ? 'trades' : 'epi';
      (operation === 'trades' ? trades : epi)(value);
      reference.labels(operation).observe(value);
    }
    expect(await ours.metrics()).toBe(await theirs.metrics());
    expect(await ours.metrics()).not.toContain('never-observed');
  });

  it('gives observers of one label value one series, and is emptied by a registry reset', async () => {
    const registry = new Registry();
    const histogram = tallied(registry);
    histogram.series('docs')(0.002);
    histogram.series('docs')(0.004);
    expect(await registry.metrics()).toContain(`${NAME}_count{operation="docs"} 2`);
    expect(await registry.metrics()).toContain(`${NAME}_sum{operation="docs"} 0.006`);
    registry.resetMetrics();
    expect(await registry.metrics()).not.toContain(`${NAME}_count`);
  });
});

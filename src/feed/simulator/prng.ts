import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';

/**
 * A 32-bit seed derived from the run's seed and a label (FNV-1a over the text, then the
 * murmur3 finaliser). Each concern (a day's curve move, a day's activity, a contract's starting
 * open interest) draws from its own stream, so adding a draw in one place does not shift the
 * numbers of every other one, and a stream depends only on the seed and its label.
 */
export function deriveSeed(seed: number, ...parts: ReadonlyArray<string | number>): number {
  let hash = 0x811c9dc5 ^ (seed | 0);
  const text = parts.join('|');
  for (let i = 0; i < text.length; i++) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  }
  hash ^= Math.floor(seed / 0x1_0000_0000) | 0;
  hash = Math.imul(hash ^ (hash >>> 16), 0x85ebca6b);
  hash = Math.imul(hash ^ (hash >>> 13), 0xc2b2ae35);
  return (hash ^ (hash >>> 16)) | 0;
}

/** The seeded random source of the simulator: pure-rand's xoroshiro128+, used in place. */
export class Rng {
  private readonly generator: RandomGenerator;
  /** Box-Muller yields normals in pairs; the second one is kept for the next call. */
  private spareNormal: number | undefined;

  constructor(seed: number) {
    this.generator = xoroshiro128plus(seed | 0);
  }

  static derive(seed: number, ...parts: ReadonlyArray<string | number>): Rng {
    return new Rng(deriveSeed(seed, ...parts));
  }

  /** Uniform in [0, 1). */
  float(): number {
    return uniformFloat64(this.generator);
  }

  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number {
    return uniformInt(this.generator, min, max);
  }

  chance(probability: number): boolean {
    return this.float() < probability;
  }

  uniform(min: number, max: number): number {
    return min + (max - min) * this.float();
  }

  /** Standard normal. */
  normal(): number {
    const spare = this.spareNormal;
    if (spare !== undefined) {
      this.spareNormal = undefined;
      return spare;
    }
    let u = this.float();
    while (u <= 0) u = this.float();
    const v = this.float();
    const radius = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  }

  /** Poisson count; Knuth's method is fine for the small means used here. */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    if (mean > 60) return Math.max(0, Math.round(mean + Math.sqrt(mean) * this.normal()));
    const limit = Math.exp(-mean);
    let count = 0;
    let product = this.float();
    while (product > limit) {
      count++;
      product *= this.float();
    }
    return count;
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError('pick from an empty list');
    return items[this.int(0, items.length - 1)] as T;
  }

  /** An index drawn with probability proportional to its weight (weights >= 0, sum > 0). */
  weightedIndex(weights: readonly number[]): number {
    let total = 0;
    for (const weight of weights) total += weight;
    if (!(total > 0)) throw new RangeError('weights sum to zero');
    let target = this.float() * total;
    for (let i = 0; i < weights.length; i++) {
      target -= weights[i] ?? 0;
      if (target < 0) return i;
    }
    return weights.length - 1;
  }
}

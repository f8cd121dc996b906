/**
 * Cells that flash when their value changes: a class for a moment, then removed. Discrete on
 * purpose: an animated fade repaints every flashing cell on every frame, where this repaints a
 * cell twice (on and off), so the frames between the board's batches cost nothing.
 */
export type FlashKind = 'flash-up' | 'flash-down' | 'flash';

const KINDS: readonly FlashKind[] = ['flash-up', 'flash-down', 'flash'];

export class Flashes {
  readonly #until = new Map<HTMLElement, number>();
  #timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly durationMs: number) {}

  mark(cell: HTMLElement, kind: FlashKind): void {
    for (const other of KINDS) if (other !== kind) cell.classList.remove(other);
    cell.classList.add(kind);
    this.#until.set(cell, performance.now() + this.durationMs);
    this.#schedule();
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#until.clear();
  }

  #schedule(): void {
    if (this.#timer !== undefined) return;
    // Sweeps at a fifth of the duration: a flash lasts its duration, give or take that.
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      requestAnimationFrame((now) => this.#sweep(now));
    }, this.durationMs / 5);
  }

  #sweep(now: number): void {
    for (const [cell, until] of this.#until) {
      if (until > now) continue;
      cell.classList.remove(...KINDS);
      this.#until.delete(cell);
    }
    if (this.#until.size > 0) this.#schedule();
  }
}

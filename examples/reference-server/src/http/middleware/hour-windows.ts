/**
 * The rate limit's counters, in windows aligned to the epoch (for the default hour: to the UTC hour),
 * as the service counts them: every key's window ends at the same moment, and `X-RateLimit-Reset`
 * says the seconds to it. hono-rate-limiter's own store starts a key's window at its first request.
 *
 * Bounded: at most `maxKeys` counters. Counters are kept in the order their windows began, so when
 * there are too many, those of past windows go first, then the oldest.
 */
import type { Store } from 'hono-rate-limiter';

interface Counter {
  window: number;
  hits: number;
}

export class AlignedWindowStore implements Store {
  readonly localKeys = true;
  readonly #windowMs: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #counters = new Map<string, Counter>();

  constructor(windowMs: number, options: { maxKeys?: number; now?: () => number } = {}) {
    this.#windowMs = windowMs;
    this.#maxKeys = options.maxKeys ?? 100_000;
    this.#now = options.now ?? Date.now;
  }

  #current(): number {
    return Math.floor(this.#now() / this.#windowMs);
  }

  #info(counter: Counter) {
    return { totalHits: counter.hits, resetTime: new Date((counter.window + 1) * this.#windowMs) };
  }

  get(key: string) {
    const counter = this.#counters.get(key);
    return counter && counter.window === this.#current() ? this.#info(counter) : undefined;
  }

  increment(key: string) {
    const window = this.#current();
    let counter = this.#counters.get(key);
    if (!counter || counter.window !== window) {
      // Moved to the end: the map stays in the order the windows began.
      this.#counters.delete(key);
      counter = { window, hits: 0 };
      this.#counters.set(key, counter);
      if (this.#counters.size > this.#maxKeys) this.#evict(window);
    }
    counter.hits += 1;
    return this.#info(counter);
  }

  decrement(key: string): void {
    const counter = this.#counters.get(key);
    if (counter && counter.hits > 0) counter.hits -= 1;
  }

  resetKey(key: string): void {
    this.#counters.delete(key);
  }

  resetAll(): void {
    this.#counters.clear();
  }

  #evict(window: number): void {
    for (const [key, counter] of this.#counters) {
      if (this.#counters.size <= this.#maxKeys && counter.window === window) return;
      this.#counters.delete(key);
    }
  }
}

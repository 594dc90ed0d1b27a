// Everything the sandbox emits is derived from these hashes, never from Math.random or the clock,
// so one (seed, options, today) always produces byte-identical responses.

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

/** Murmur3 finaliser: spreads every input bit over the whole word. */
export function fmix32(input: number): number {
  let h = input >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

export function hashString(text: string, seed = 0): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix32(h);
}

/** Murmur3-style combination of small integers (days, indices, ordinals) into one 32-bit hash. */
export function hashInts(...parts: number[]): number {
  let h = 0x9e3779b9;
  for (const part of parts) {
    let k = Math.imul(part | 0, 0xcc9e2d51);
    k = rotl(k, 15);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = rotl(h, 13);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  return fmix32(h ^ parts.length);
}

/** Maps a hash to [0, 1). */
export function unit(hash: number): number {
  return (hash >>> 0) / 4294967296;
}

/** mulberry32: tiny, fast and good enough for synthetic data; one instance per (account, day). */
export class Rng {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  next(): number {
    this.state = (this.state + 0x6d2b79f5) | 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [lo, hi], both inclusive. */
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) throw new Error('Rng.pick on an empty list');
    return item;
  }

  /** Integer count whose expectation is exactly `mean`, spread over 0..2×mean. */
  countAround(mean: number): number {
    if (mean <= 0) return 0;
    const x = this.next() * 2 * mean;
    const whole = Math.floor(x);
    return whole + (this.next() < x - whole ? 1 : 0);
  }
}

/** Two hex digits per byte: `toString(16)` on every id was a tenth of the sandbox's time serving rows. */
const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function hex8(n: number): string {
  return (
    HEX_BYTES[n >>> 24]! + HEX_BYTES[(n >>> 16) & 0xff]! + HEX_BYTES[(n >>> 8) & 0xff]! + HEX_BYTES[n & 0xff]!
  );
}

/**
 * A keyed 64-bit Feistel permutation of (ordinal, day, index, tag). Being a bijection, it gives ids
 * that look random yet can never collide within one sandbox, even across a million rows. `tag`
 * (16 bits, default 0) gives the same row a wholly different id, e.g. after a bank re-issues ids.
 */
export function permutedId(key: number, ordinal: number, day: number, index: number, tag = 0): string {
  let left = (((ordinal & 0xfff) << 20) | (day & 0xfffff)) >>> 0;
  let right = (((tag & 0xffff) << 16) | (index & 0xffff)) >>> 0;
  for (let round = 0; round < 4; round++) {
    const next = (left ^ fmix32(right ^ hashInts(key, round))) >>> 0;
    left = right;
    right = next;
  }
  return hex8(left) + hex8(right);
}

export function hexFromHash(hash: number, length: number): string {
  let out = '';
  let h = hash;
  while (out.length < length) {
    out += hex8(h);
    h = fmix32(h + 0x9e3779b9);
  }
  return out.slice(0, length);
}

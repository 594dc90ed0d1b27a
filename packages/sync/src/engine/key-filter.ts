/**
 * The keys a run has committed to an account, as a Bloom filter: `mayHave` is never wrong about a
 * key that was added, and wrong about roughly one key in 50,000 that was not. A first sync uses it
 * to skip the store lookups of keys it never wrote (transactions.ts). The rate is that low because
 * what costs is the lookup query, not its keys: at one false key in a hundred, every page of 2,000
 * rows still made one. A Set of the keys would hold every key string of the history until the
 * account is done (~8 MiB for 100,000 rows); the filter holds 4 to 7 bytes a key.
 *
 * It grows as filters of doubling size, so the number of keys need not be known first (a "scalable"
 * Bloom filter). `mayHave` asks every one, so each next one is made three times as strict, and
 * their false positives add up to at most 1.5 times the first one's.
 */

/** Keys the first filter is made for; each next one is made for twice as many. */
const FIRST_CAPACITY = 16_384;
/**
 * Bits a key in the first filter, and bits set a key in every one: about 1.4e-5 false positives,
 * (1 - e^(-12/24))^12. Three more bits a key make the next filter's rate about a third.
 */
const FIRST_BITS_PER_KEY = 24;
const MORE_BITS_PER_KEY = 3;
const HASHES = 12;

class BloomFilter {
  readonly #bits: Uint32Array;
  readonly #size: number;
  count = 0;

  constructor(
    readonly capacity: number,
    bitsPerKey: number,
  ) {
    this.#size = capacity * bitsPerKey;
    this.#bits = new Uint32Array(Math.ceil(this.#size / 32));
  }

  add(h1: number, h2: number): void {
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) % this.#size;
      this.#bits[bit >>> 5]! |= 1 << (bit & 31);
    }
    this.count += 1;
  }

  has(h1: number, h2: number): boolean {
    for (let i = 0; i < HASHES; i++) {
      const bit = (h1 + i * h2) % this.#size;
      if ((this.#bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
    }
    return true;
  }
}

export class KeyFilter {
  readonly #filters: BloomFilter[] = [new BloomFilter(FIRST_CAPACITY, FIRST_BITS_PER_KEY)];
  #h1 = 0;
  #h2 = 0;

  add(key: string): void {
    this.#hash(key);
    let filter = this.#filters.at(-1)!;
    if (filter.count >= filter.capacity) {
      const level = this.#filters.length;
      filter = new BloomFilter(filter.capacity * 2, FIRST_BITS_PER_KEY + level * MORE_BITS_PER_KEY);
      this.#filters.push(filter);
    }
    filter.add(this.#h1, this.#h2);
  }

  mayHave(key: string): boolean {
    this.#hash(key);
    for (const filter of this.#filters) if (filter.has(this.#h1, this.#h2)) return true;
    return false;
  }

  /**
   * Two independent 32-bit hashes of the key (FNV-1a with two offsets, each then mixed), combined
   * as h1 + i·h2 for the i-th bit (Kirsch and Mitzenmacher): as good as twelve hashes, for two.
   */
  #hash(key: string): void {
    let a = 0x811c9dc5;
    let b = 0x01000193 ^ 0x9e3779b9;
    for (let i = 0; i < key.length; i++) {
      const code = key.charCodeAt(i);
      a = Math.imul(a ^ code, 0x01000193);
      b = Math.imul(b ^ code, 0x5bd1e995);
    }
    this.#h1 = mix(a) >>> 0;
    // Odd, so the i·h2 steps do not fall into a short cycle.
    this.#h2 = (mix(b ^ 0x5bd1e995) | 1) >>> 0;
  }
}

/** The finalizer of MurmurHash3: spreads every input bit over every output bit. */
function mix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h;
}

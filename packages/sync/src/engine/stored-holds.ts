/**
 * An account's stored holds, read once for its turn while the turn has changed none of its rows.
 *
 * A routine re-sync needs them up to three times: to see how far back to read (transaction-reads.ts),
 * for the window's diff (transactions.ts) and for the balance check's pending total (balance.ts).
 * Each read is a round trip of its own: 21 of the 64 statements of a routine re-sync of the sandbox's
 * eight accounts into PostgreSQL, a third of what a fleet's steady state sends.
 *
 * They are read once only under a worker's lease (`keep`), when nothing else commits to the
 * connection while the run goes on: until the turn commits a change to the account's rows, the rows
 * read first are the rows. Two runs of one connection at once (two processes without leases) may each
 * commit between the other's reads, and a diff against holds read before the provider's answer came
 * in was measured to lose a posted row for good (balance.test.ts); so without a lease every ask reads
 * the store, as the diff's reads always did.
 *
 * Once the turn begins a commit that changes rows, every later ask reads the store again: a read taken
 * beside a commit in flight may or may not see it, and after it the rows have moved.
 */
import type { MirrorTransaction } from '../model.js';

export class StoredHolds {
  readonly #read: () => Promise<MirrorTransaction[]>;
  #kept: Promise<MirrorTransaction[]> | undefined;
  #keep: boolean;

  constructor(read: () => Promise<MirrorTransaction[]>, options: { keep: boolean }) {
    this.#read = read;
    this.#keep = options.keep;
  }

  /** The account's stored holds: the rows read before, while they may be kept (see the file's header). */
  get(): Promise<readonly MirrorTransaction[]> {
    if (!this.#keep) return this.#read();
    if (this.#kept === undefined) {
      const read = this.#read();
      this.#kept = read;
      // A failed read is not kept: the next ask tries again.
      read.catch(() => {
        if (this.#kept === read) this.#kept = undefined;
      });
    }
    return this.#kept;
  }

  /** The turn is about to commit changes to the account's rows: from now on every ask reads them. */
  changing(): void {
    this.#keep = false;
    this.#kept = undefined;
  }
}

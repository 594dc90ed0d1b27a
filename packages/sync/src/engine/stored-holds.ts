/**
 * An account's stored holds as the turn's last diff read them, kept for its balance check.
 *
 * The check sums the account's stored holds (the pending total) after the turn's commits. When the
 * turn committed no change to the account's rows, and the run is the connection's only writer, they
 * are the rows the diff read moments before: the read is kept and the check takes it, one round trip
 * fewer an account (a routine re-sync of the sandbox's eight accounts into PostgreSQL under a lease:
 * 67 statements where there were 74).
 *
 * Kept only under a worker's lease on a store that enforces leases (`keep`). Without one, two runs of
 * the connection may commit at once (two servers without leases, or a "sync now" beside workers),
 * and every use reads the store. Neither the diff nor the read of how far back to ask takes a kept
 * read: holds read before the provider's answer came in, diffed after another process's commit,
 * stored wrong balance anchors and failed accounts in a review's test.
 */
import type { MirrorTransaction } from '../model.js';

export class StoredHolds {
  readonly #read: () => Promise<MirrorTransaction[]>;
  #keep: boolean;
  #kept: readonly MirrorTransaction[] | undefined;

  constructor(read: () => Promise<MirrorTransaction[]>, options: { keep: boolean }) {
    this.#read = read;
    this.#keep = options.keep;
  }

  /** Reads the holds from the store; the rows are kept while the turn has changed none. */
  async read(): Promise<MirrorTransaction[]> {
    const rows = await this.#read();
    // Judged when the read has come back: a commit that began meanwhile may be in it, or not.
    if (this.#keep) this.#kept = rows;
    return rows;
  }

  /** The holds as stored now: the last read while the turn has changed none, else a new read. */
  current(): Promise<readonly MirrorTransaction[]> {
    return this.#kept !== undefined ? Promise.resolve(this.#kept) : this.#read();
  }

  /** The turn is about to commit changes to the account's rows: nothing read is kept from now on. */
  changing(): void {
    this.#keep = false;
    this.#kept = undefined;
  }
}

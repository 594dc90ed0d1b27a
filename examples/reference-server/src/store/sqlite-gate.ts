/**
 * The gate of the SQLite store's one connection: while a unit of work holds it (across awaits), every
 * other call waits, so no statement from elsewhere runs inside the open transaction (sqlite.ts).
 */
import type { Awaitable } from './steps.js';

/** Makes SQLite calls wait while a unit of work holds the connection. */
export class Gate {
  #open: Promise<void> | undefined;

  /** Runs a synchronous database call once no unit of work is open. */
  async run<T>(work: () => T): Promise<Awaited<T>> {
    while (this.#open) await this.#open;
    return await work();
  }

  /** Whether a unit of work holds the connection now. */
  get busy(): boolean {
    return this.#open !== undefined;
  }

  /** Closes the gate at once; calls arriving until `release()` wait. */
  close(): () => void {
    let release!: () => void;
    this.#open = new Promise((resolve) => (release = resolve));
    return () => {
      this.#open = undefined;
      release();
    };
  }

  /** Holds the gate across async work; calls arriving meanwhile wait. */
  async hold<T>(work: () => Awaitable<T>): Promise<T> {
    while (this.#open) await this.#open;
    const release = this.close();
    try {
      return await work();
    } finally {
      release();
    }
  }
}

/**
 * One page read ahead: the next page is asked for as soon as the current one is handed out, so
 * fetching and parsing it (network, the provider's JSON, a spilled answer read back from disk) runs
 * while the current page waits on the store's reads and commit. With PostgreSQL that wait is the
 * server's work in another process; with a real provider it is a request's latency.
 *
 * Holds at most one page beyond the one being diffed, and none beside a page for which `aheadOf`
 * says no (the engine: one over a batch, big enough alone). Order, content and errors are the
 * source's: a failure while reading ahead is thrown where the consumer asks for that page, never
 * earlier.
 */
export interface ReadAheadOptions<T> {
  /** Whether to read ahead while this item is in use (default: always). */
  aheadOf?: ((item: T) => boolean) | undefined;
  /**
   * Called when the consumer stops early with a read in flight, before waiting for it: the place to
   * abort that read (its requests, retries and pauses), which nobody will use.
   */
  onAbandon?: (() => void) | undefined;
  /**
   * Called once the source has said it has no more items: while the last one is in use when it was
   * read ahead, else when the consumer asks past it.
   */
  onExhausted?: (() => void) | undefined;
}

export async function* readAhead<T>(
  source: AsyncIterable<T>,
  { aheadOf = () => true, onAbandon, onExhausted }: ReadAheadOptions<T> = {},
): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let pending: Promise<IteratorResult<T>> | undefined;
  /** Whether the source finished by itself (ran out or threw): then there is nothing to close. */
  let finished = false;
  const ask = () => {
    pending = iterator.next();
    // Seen here, so a page that fails while the consumer is busy is not an unhandled rejection.
    pending.then((result) => result.done && onExhausted?.()).catch(() => undefined);
  };
  try {
    for (;;) {
      if (pending === undefined) ask();
      const asked = pending!;
      pending = undefined;
      const result = await asked.catch((error: unknown) => {
        finished = true;
        throw error;
      });
      if (result.done) {
        finished = true;
        return;
      }
      if (aheadOf(result.value)) ask();
      yield result.value;
    }
  } finally {
    // The consumer stopped early or failed: abandon the read in flight and wait for it (its error is
    // not the one to report), then close the source, which releases its response and temporary files.
    if (pending !== undefined) {
      onAbandon?.();
      const last = await pending.catch(() => ({ done: true }) as IteratorResult<T>);
      if (last.done) finished = true;
    }
    if (!finished) await iterator.return?.();
  }
}

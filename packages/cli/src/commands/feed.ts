/**
 * `finsync feed`: the change feed as NDJSON on stdout, one `FeedEntry` per line, in `seq` order.
 * A consumer saves the last `seq` it applied and passes it as `--after` next time.
 */
import { SyncEngine } from '@finsync/sync';
import { CliError, ExitCode, type ExitCodeValue } from '../exit-codes.js';
import { LineWriter, OutputClosed, sleep } from '../io.js';
import { openStorage, resolveConnection, resolveDatabase, type DatabaseFlags } from '../options.js';

export interface FeedFlags extends DatabaseFlags {
  connection?: string;
  after: number;
  follow?: boolean;
  /** Seconds between polls with `--follow`. */
  poll: number;
}

const BATCH = 500;

export async function feedCommand(flags: FeedFlags): Promise<ExitCodeValue> {
  const storage = await openStorage(resolveDatabase(flags), 'read');
  const controller = new AbortController();
  // Ctrl-C ends --follow cleanly: the line being written is finished, nothing is cut in half.
  // Without --follow the feed was cut short: the exit code (130) says so. A reader that stopped
  // reading cannot be waited for: after a stop it has a second to take what is queued, else the
  // last line may be cut, and the exit code is 130 with --follow too. A slow reader that reads on
  // gets every line whole and, with --follow, 0.
  const stop = () => controller.abort();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const out = new LineWriter(process.stdout);
  try {
    // Only to reject a typo: an unknown connection would otherwise print nothing, for ever.
    const connectionId =
      flags.connection === undefined ? undefined : (await resolveConnection(storage, flags.connection)).id;
    // A cursor past the last entry was saved from another database, or this one was made again: read
    // on, it would skip every entry up to it in silence (with --follow, the new ones too).
    const last = await storage.lastSeq();
    if (flags.after > last)
      throw new CliError(
        `--after ${flags.after} is past the feed's last entry (${last}): a cursor saved from another database, or from one made again? Read from --after 0`,
      );
    const engine = new SyncEngine({ storage });
    let after = flags.after;
    while (!controller.signal.aborted) {
      const batch = await engine.readChanges({
        after,
        limit: BATCH,
        ...(connectionId === undefined ? {} : { connectionId }),
      });
      for (const entry of batch) {
        // A wait for room that a stop ended left this line queued, not cut: the flush below decides.
        await out.write(`${JSON.stringify(entry)}\n`, controller.signal);
        if (controller.signal.aborted) break;
        after = entry.seq;
      }
      if (batch.length === BATCH) continue;
      if (!flags.follow) break;
      await sleep(flags.poll * 1_000, controller.signal);
    }
    // Every line out before the exit (main ends the process soon after this returns). After a stop,
    // a reader that still reads has a second to take what is queued; else the output is cut.
    const patience = new AbortController();
    const losePatience = () => setTimeout(() => patience.abort(), 1_000).unref();
    if (controller.signal.aborted) losePatience();
    else controller.signal.addEventListener('abort', losePatience, { once: true });
    const cut = !(await out.flush(patience.signal));
    return cut || (controller.signal.aborted && !flags.follow) ? ExitCode.interrupted : ExitCode.ok;
  } catch (error) {
    if (error instanceof OutputClosed) return ExitCode.ok;
    throw error;
  } finally {
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    await storage.close();
  }
}

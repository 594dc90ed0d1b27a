/**
 * Accounts that continue one the engine no longer reads (the bank linked again under a new account
 * id, its history listed under both), as `GET /api/v1/sync/status` and the page name them. The engine
 * judges (`findAccountSuccessors`); this keeps the verdict until the feed moves, so a status polled
 * every few minutes does not read two histories each time.
 */
import type { MirrorAccount, SyncEngine } from '@finsync/sync';

/** One pair, by the provider's account ids, with what the judgement rests on. */
export interface SuccessorSummary {
  previous: string;
  successor: string;
  from: string;
  to: string;
  previousRows: number;
  sharedRows: number;
}

/** Users whose verdict is kept at most; past it the memory starts again. */
const MAX_USERS = 10_000;

export class AccountSuccessors {
  readonly #kept = new Map<string, { seq: number; found: Promise<SuccessorSummary[]> }>();

  constructor(private readonly engine: SyncEngine) {}

  /** The pairs of `userId`'s connection; none unless an account is no longer read. */
  async of(userId: string, accounts: readonly MirrorAccount[]): Promise<SuccessorSummary[]> {
    if (!accounts.some((a) => a.state !== 'active')) return [];
    const seq = await this.engine.storage.lastSeq();
    const kept = this.#kept.get(userId);
    if (kept?.seq === seq) return kept.found;
    const found = this.engine.findAccountSuccessors(userId).then(
      (pairs) =>
        pairs.map((p) => ({
          previous: p.previous.id,
          successor: p.successor.id,
          from: p.from,
          to: p.to,
          previousRows: p.previousRows,
          sharedRows: p.rows.length,
        })),
      (error: unknown) => {
        // A history past the engine's bound is left unjudged rather than read whole.
        if (error instanceof RangeError) return [];
        throw error;
      },
    );
    if (this.#kept.size >= MAX_USERS) this.#kept.clear();
    this.#kept.set(userId, { seq, found });
    // A failed judgement is not kept: the next status asks again.
    found.catch(() => this.#kept.delete(userId));
    return found;
  }
}

/**
 * DELETE /api/v1/transactions/{id} as the service answers it, and finsync's two extensions that the
 * reference server serves (not Sure): POST /api/v1/transactions/{id}/restore and the deleted list.
 */
import { validationFailed, type FakeResult } from './cast.js';
import { renderTransaction } from './render.js';
import type { FakeServiceStore, FakeTransaction } from './store.js';

export const DELETED: FakeResult = { status: 200, body: { message: 'Transaction deleted successfully' } };

/** Deletes `tx` (already found in scope): 200 with the service's message, 422 for a split child. */
export function applyDelete(store: FakeServiceStore, tx: FakeTransaction): FakeResult {
  if (tx.split === 'child') {
    return validationFailed('Split child transactions cannot be deleted individually.');
  }
  store.deleteTransaction(tx.id);
  return DELETED;
}

/**
 * Restores a deleted transaction (already found among the deleted rows): 200 with the full row.
 * If a live row of the same account took its idempotency key meanwhile (a POST with the same
 * `external_id` and `source`), 422: two rows cannot share it.
 */
export function applyRestore(store: FakeServiceStore, tx: FakeTransaction, locale: string): FakeResult {
  if (tx.external_id !== null && tx.source !== null) {
    const taken = store.findByExternalId(tx.account_id, tx.external_id, tx.source);
    if (taken) {
      // Rails' uniqueness message for `external_id` ("External" is its humanized attribute name).
      return validationFailed('Transaction could not be restored', ['External has already been taken']);
    }
  }
  store.restoreTransaction(tx.id);
  return { status: 200, body: renderTransaction(store, tx, locale) };
}

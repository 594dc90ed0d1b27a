/** The service's transaction JSON (Sure's `_transaction.json.jbuilder`), key for key. */
import { formatServiceMoney, toMinorUnits } from './money.js';
import type { FakeAccount, FakeServiceStore, FakeTransaction } from './store.js';

function accountRef(account: FakeAccount | undefined) {
  return account ? { id: account.id, name: account.name, account_type: account.account_type } : null;
}

/**
 * Every key present, in the service's order; optional values are `null`. `amount` is the localized
 * string with the internal sign, `amount_cents` its magnitude in minor units, `signed_amount_cents`
 * `+cents` for income and `-cents` otherwise; income iff the stored amount is below zero.
 */
export function renderTransaction(
  store: FakeServiceStore,
  tx: FakeTransaction,
  locale = 'en',
): Record<string, unknown> {
  const minor = toMinorUnits(tx.amount, tx.currency);
  const cents = Number(minor < 0n ? -minor : minor);
  const income = tx.amount.startsWith('-'); // canonical decimals never read "-0"
  const category = tx.category_id ? store.categories.get(tx.category_id) : undefined;
  const merchant = tx.merchant_id ? store.merchants.get(tx.merchant_id) : undefined;
  return {
    id: tx.id,
    date: tx.date,
    amount: formatServiceMoney(tx.amount, tx.currency, locale),
    amount_cents: cents,
    signed_amount_cents: income ? cents : -cents,
    currency: tx.currency,
    name: tx.name,
    notes: tx.notes,
    external_id: tx.external_id,
    source: tx.source,
    classification: income ? 'income' : 'expense',
    account: accountRef(store.accounts.get(tx.account_id)),
    category: category
      ? { id: category.id, name: category.name, color: category.color, icon: category.icon }
      : null,
    merchant: merchant ? { id: merchant.id, name: merchant.name } : null,
    tags: tx.tag_ids.flatMap((id) => {
      const tag = store.tags.get(id);
      return tag ? [{ id: tag.id, name: tag.name, color: tag.color }] : [];
    }),
    transfer: renderTransfer(store, tx, locale),
    created_at: tx.created_at,
    updated_at: tx.updated_at,
  };
}

function renderTransfer(
  store: FakeServiceStore,
  tx: FakeTransaction,
  locale: string,
): Record<string, unknown> | null {
  const transfer = store.transferOf(tx.id);
  if (!transfer) return null;
  const inflow = store.transactions.get(transfer.inflow_transaction_id);
  const otherId =
    transfer.inflow_transaction_id === tx.id
      ? transfer.outflow_transaction_id
      : transfer.inflow_transaction_id;
  const other = store.transactions.get(otherId);
  const rendered: Record<string, unknown> = {
    id: transfer.id,
    // The inflow side's money as an absolute value, always unsigned.
    amount: inflow ? formatServiceMoney(inflow.amount.replace(/^-/, ''), inflow.currency, locale) : null,
    currency: inflow?.currency ?? tx.currency,
  };
  const otherAccount = other ? accountRef(store.accounts.get(other.account_id)) : null;
  if (otherAccount) rendered.other_account = otherAccount;
  return rendered;
}

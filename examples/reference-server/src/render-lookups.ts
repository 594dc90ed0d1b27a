/**
 * The lookup lists as the service renders them, key for key: an account as Sure's
 * `_account.json.jbuilder`, a category as its categories index, a merchant and a tag as their
 * controllers' `render json:` (timestamps with milliseconds there, whole seconds in the jbuilder views).
 * What this server does not know is `null` (an account's subtype and bank domain, categories'
 * parents); `state` is this server's own, beside the service's `status`.
 */
import { negateDecimal, toAmountCents } from '@finsync/provider';
import { formatMoney } from './money-format.js';
import { isoSeconds } from './render.js';
import type { AccountRecord, Category, Dated, Merchant, Tag } from './store/types.js';

const ASSET_TYPES = new Set(['depository', 'investment', 'crypto', 'property', 'vehicle', 'other_asset']);
/** Accounts whose balance holds more than cash: the cash part is not something this server knows. */
const HOLDING_TYPES = new Set(['investment', 'crypto']);

/**
 * The balance as the service states it: an asset's as the bank gives it, a liability's as what is
 * owed (the provider lists an owed card at −412.07, the service at 412.07, as Sure's own importer
 * flips it). `null` until a sync has read a balance.
 */
function serviceBalance(account: AccountRecord, liability: boolean): { text: string; cents: number } | null {
  if (account.balance === null || account.currency === null) return null;
  const amount = liability ? negateDecimal(account.balance) : account.balance;
  return {
    text: formatMoney(amount, account.currency),
    cents: Number(toAmountCents(amount, account.currency)),
  };
}

/** `GET /api/v1/accounts`' account: every key of the service, in its order, then `state`. */
export function renderAccount(account: AccountRecord & Dated) {
  const liability = !ASSET_TYPES.has(account.account_type);
  const balance = serviceBalance(account, liability);
  const cash = HOLDING_TYPES.has(account.account_type) ? null : balance;
  return {
    id: account.id,
    name: account.name,
    balance: balance?.text ?? null,
    balance_cents: balance?.cents ?? null,
    cash_balance: cash?.text ?? null,
    cash_balance_cents: cash?.cents ?? null,
    currency: account.currency,
    classification: liability ? ('liability' as const) : ('asset' as const),
    account_type: account.account_type,
    subtype: null,
    // The service's `visible` accounts are `draft` or `active`; one this server no longer syncs
    // (inactive at the bank, or gone from the provider's list) is what the service calls disabled.
    status: account.state === 'active' ? ('active' as const) : ('disabled' as const),
    institution_name: account.institution_name,
    institution_domain: null,
    created_at: isoSeconds(account.created_at),
    updated_at: isoSeconds(account.updated_at),
    state: account.state,
  };
}

/** Whether `GET /api/v1/accounts` lists the account without `include_disabled`. */
export function isVisibleAccount(account: AccountRecord): boolean {
  return account.state === 'active';
}

/** The categories index's category: this server's categories have no parents. */
export function renderCategory(category: Category & Dated) {
  return {
    id: category.id,
    name: category.name,
    color: category.color,
    icon: category.icon,
    parent: null,
    subcategories_count: 0,
    created_at: isoSeconds(category.created_at),
    updated_at: isoSeconds(category.updated_at),
  };
}

/** The merchants index's merchant: every one here was named by the bank's rows. */
export function renderMerchant(merchant: Merchant & Dated) {
  return {
    id: merchant.id,
    name: merchant.name,
    type: 'ProviderMerchant' as const,
    created_at: merchant.created_at,
    updated_at: merchant.updated_at,
  };
}

/** A tag as the tags index and `POST /api/v1/tags` answer it. */
export function renderTag(tag: Tag & Dated) {
  return {
    id: tag.id,
    name: tag.name,
    color: tag.color,
    created_at: tag.created_at,
    updated_at: tag.updated_at,
  };
}

/**
 * The fake's lookup routes, as Sure's controllers answer them (we-promise/sure
 * app/controllers/api/v1/{accounts,categories,merchants,tags}_controller.rb and their jbuilder views):
 *
 * - `GET /api/v1/accounts` → `{ accounts, pagination }`, paged (per_page above 100 → 100);
 * - `GET /api/v1/categories` → `{ categories, pagination }`, paged (per_page above 100 → 25);
 * - `GET /api/v1/merchants` and `GET /api/v1/tags` → a bare JSON array, not paged;
 * - `POST /api/v1/tags` → 201 with the tag.
 *
 * Jbuilder renders timestamps with `iso8601` (whole seconds); the merchants and tags controllers use
 * `render json:`, which gives milliseconds (`2026-05-10T12:00:00.000Z`).
 */
import { castString, castUuid, isBlank, isPlainObject, isScalar, type FakeResult } from './cast.js';
import { paginate } from './list.js';
import { formatServiceMoney, toMinorUnits } from './money.js';
import type { FakeAccount, FakeApiKey, FakeCategory, FakeServiceStore, FakeTag } from './store.js';

const ASSET_TYPES = new Set(['depository', 'investment', 'crypto', 'property', 'vehicle', 'other_asset']);

/** `Tag::COLORS`: what `POST /api/v1/tags` picks from (at random) when `color` is sent as null. */
export const TAG_COLORS = [
  '#e99537',
  '#4da568',
  '#6471eb',
  '#db5a54',
  '#df4e92',
  '#c44fe9',
  '#eb5429',
  '#61c9ea',
  '#805dee',
  '#6ad28a',
] as const;

/** `ORDER BY name` (then id, so the fake's order is stable). */
const byName = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  a.name.localeCompare(b.name, 'en') || a.id.localeCompare(b.id);

/** A timestamp as `render json:` writes it: milliseconds, UTC. */
function jsonTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toISOString();
}

/** `ActiveModel::Type::Boolean` on a query value: blank is nil; `0`, `f`, `false`, `off` are false. */
function castBoolean(value: string | null): boolean | undefined {
  if (value === null || value === '') return undefined;
  return !['0', 'f', 'false', 'off'].includes(value.toLowerCase());
}

/** `_account.json.jbuilder`: every key, in order. */
export function renderAccount(account: FakeAccount, locale = 'en'): Record<string, unknown> {
  const cash = account.cash_balance ?? '0';
  return {
    id: account.id,
    name: account.name,
    balance: formatServiceMoney(account.balance, account.currency, locale),
    balance_cents: Number(toMinorUnits(account.balance, account.currency)),
    cash_balance: formatServiceMoney(cash, account.currency, locale),
    cash_balance_cents: Number(toMinorUnits(cash, account.currency)),
    currency: account.currency,
    classification: ASSET_TYPES.has(account.account_type) ? 'asset' : 'liability',
    account_type: account.account_type,
    subtype: account.subtype,
    status: account.status,
    institution_name: account.institution_name,
    institution_domain: account.institution_domain,
    created_at: account.created_at,
    updated_at: account.updated_at,
  };
}

/** Accessible accounts, `draft`/`active` only unless `include_disabled` (then every status). */
export function listAccounts(store: FakeServiceStore, key: FakeApiKey, url: URL, locale: string): FakeResult {
  const all = castBoolean(url.searchParams.get('include_disabled')) === true;
  const rows = [...store.accounts.values()]
    .filter((a) => store.canAccess(key, a.id) && (all || a.status === 'draft' || a.status === 'active'))
    .sort(byName);
  return paginate('accounts', rows, url, (a) => renderAccount(a, locale), {
    above100: 100,
  });
}

/** `_category.json.jbuilder`. */
export function renderCategory(store: FakeServiceStore, category: FakeCategory): Record<string, unknown> {
  const parent = category.parent_id ? store.categories.get(category.parent_id) : undefined;
  return {
    id: category.id,
    name: category.name,
    color: category.color,
    icon: category.icon,
    parent: parent ? { id: parent.id, name: parent.name } : null,
    subcategories_count: [...store.categories.values()].filter((c) => c.parent_id === category.id).length,
    created_at: category.created_at,
    updated_at: category.updated_at,
  };
}

/** The family's categories; `roots_only` and `parent_id` filters. */
export function listCategories(store: FakeServiceStore, url: URL): FakeResult {
  const query = url.searchParams;
  const rootsOnly = castBoolean(query.get('roots_only')) === true;
  const parentId = query.get('parent_id');
  const rows = [...store.categories.values()]
    .filter((c) => !rootsOnly || c.parent_id === null)
    // `where(parent_id: x)`: an id that is not a UUID casts to nil and matches nothing.
    .filter((c) => !parentId?.trim() || (c.parent_id !== null && c.parent_id === castUuid(parentId)))
    .sort(byName);
  return paginate('categories', rows, url, (c) => renderCategory(store, c));
}

/** The family's merchants, plus provider merchants on transactions in accessible accounts. */
export function listMerchants(store: FakeServiceStore, key: FakeApiKey): FakeResult {
  const used = new Set<string>();
  for (const tx of store.transactions.values()) {
    if (tx.merchant_id && store.canAccess(key, tx.account_id)) used.add(tx.merchant_id);
  }
  const rows = [...store.merchants.values()]
    .filter((m) => m.type === 'FamilyMerchant' || used.has(m.id))
    .sort(byName)
    .map((m) => ({
      id: m.id,
      name: m.name,
      type: m.type,
      created_at: jsonTime(m.created_at),
      updated_at: jsonTime(m.updated_at),
    }));
  return { status: 200, body: rows };
}

/** `tag_json`. */
export function renderTag(tag: FakeTag): Record<string, unknown> {
  return {
    id: tag.id,
    name: tag.name,
    color: tag.color,
    created_at: jsonTime(tag.created_at),
    updated_at: jsonTime(tag.updated_at),
  };
}

export function listTags(store: FakeServiceStore): FakeResult {
  return { status: 200, body: [...store.tags.values()].sort(byName).map(renderTag) };
}

const TAG_COLUMNS = ['id', 'name', 'color', 'family_id', 'created_at', 'updated_at'];
const FAILED_TO_CREATE: FakeResult = { status: 500, body: { error: 'Failed to create tag' } };

/**
 * `POST /api/v1/tags`: `params.require(:tag).permit(:name, :color)`, then the Tag validations.
 * Errors are `{ "error": "<messages joined by ', '>" }` — no `message`, no `errors` list.
 */
export function applyCreateTag(store: FakeServiceStore, body: unknown): FakeResult {
  let member: unknown;
  if (isPlainObject(body) && 'tag' in body) member = body.tag;
  else if (isPlainObject(body)) {
    // JSON params wrapping moves the Tag columns of an unwrapped body under `tag`.
    member = Object.fromEntries(Object.entries(body).filter(([name]) => TAG_COLUMNS.includes(name)));
  }
  // A missing or blank `tag` raises ParameterMissing, and a non-object has no #permit: the
  // action's `rescue StandardError` answers both with 500.
  if (!isPlainObject(member) || isBlank(member)) return FAILED_TO_CREATE;
  const permitted = (name: string) => (isScalar(member[name]) ? member[name] : undefined);
  const rawName = permitted('name');
  const name = rawName === undefined || rawName === null ? null : castString(rawName);
  const rawColor = permitted('color');
  // Absent: the column default. Null: `@tag.color ||= Tag::COLORS.sample`.
  const color =
    rawColor === undefined
      ? '#e99537'
      : rawColor === null
        ? TAG_COLORS[Math.floor(Math.random() * TAG_COLORS.length)]!
        : castString(rawColor);
  const errors: string[] = [];
  if (name === null || name.trim() === '') errors.push("Name can't be blank");
  else if ([...store.tags.values()].some((tag) => tag.name === name))
    errors.push('Name has already been taken');
  if (!/^#[0-9A-Fa-f]{6}$/.test(color)) errors.push('Color is invalid');
  if (errors.length > 0) return { status: 422, body: { error: errors.join(', ') } };
  return { status: 201, body: renderTag(store.addTag({ name: name!, color })) };
}

/**
 * Text that is not valid Unicode (an unpaired UTF-16 surrogate) is refused in every text member of
 * update and create bodies, in ids and in list parameters — and nothing reaches the server.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import {
  InvalidRequestError,
  TransactionCreateSchema,
  TransactionUpdateSchema,
  isWellFormedText,
  type TransactionCreate,
  type TransactionUpdate,
} from '../src/index.js';
import { settle } from './helpers.js';
import { clientFor, seedStore, useFakeService } from './fake-fixture.js';

const fake = useFakeService();
let world: ReturnType<typeof seedStore>;
let reached: string[];
const client = clientFor();

beforeEach(() => {
  world = seedStore();
  fake.use(world.store);
  reached = [];
  fake.server.events.removeAllListeners();
  fake.server.events.on('request:start', ({ request }) => reached.push(`${request.method} ${request.url}`));
});

const HIGH = '\ud800';
const LOW = '\udc00';

describe('isWellFormedText', () => {
  it.each([
    ['plain text', 'Corner Market', true],
    ['an empty string', '', true],
    ['a surrogate pair (emoji)', 'Café ☕ 😀', true],
    ['a lone high surrogate', `a${HIGH}b`, false],
    ['a lone low surrogate', `${LOW}b`, false],
    ['a high surrogate at the end', `ab${HIGH}`, false],
    ['a reversed pair', `${LOW}${HIGH}`, false],
    ['a pair then a lone half', `😀${HIGH}`, false],
  ])('%s', (_name, text, expected) => {
    expect(isWellFormedText(text)).toBe(expected);
  });
});

describe('update refuses an unpaired surrogate in any text member', () => {
  const cases: Array<[string, TransactionUpdate]> = [
    ['name', { name: `Coffee ${HIGH}` }],
    ['notes', { notes: `split ${LOW}` }],
    ['description', { description: `${HIGH}` }],
    ['currency', { currency: `US${HIGH}` }],
    ['nature', { amount: 1, nature: `income${HIGH}` }],
    ['date', { date: `2026-05-0${HIGH}` }],
    ['category_id', { category_id: `a1d2c3b4-2222-4c1e-9a57-2f0e8b1d3c4${HIGH}` }],
    ['tag_ids', { tag_ids: [`${HIGH}`] }],
  ];

  it.each(cases)('%s', async (member, body) => {
    const error = (await settle(client.transactions.update(world.market.id, body))) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe(member);
    expect(error.issues.some((issue) => /valid Unicode/.test(issue.message))).toBe(true);
    expect(reached).toEqual([]);
    expect(world.store.requests).toEqual([]);
    expect(world.store.transactions.get(world.market.id)!.name).toBe('CORNER MARKET #12');
  });

  it('a surrogate pair is fine and round-trips', async () => {
    const updated = await client.transactions.update(world.market.id, { name: 'Café ☕ 😀', notes: '𝄞' });
    expect(updated).toMatchObject({ name: 'Café ☕ 😀', notes: '𝄞' });
    expect(reached).toHaveLength(1);
  });
});

describe('create refuses an unpaired surrogate in any text member', () => {
  const base = () => ({
    account_id: world.checking.id,
    name: 'Coffee',
    date: '2026-05-02',
    amount: '4.50',
  });
  const cases: Array<[string, (b: ReturnType<typeof base>) => Record<string, unknown>]> = [
    ['name', (b) => ({ ...b, name: `Coffee${HIGH}` })],
    ['notes', (b) => ({ ...b, notes: `${LOW}` })],
    ['description', ({ name: _n, ...b }) => ({ ...b, description: `Coffee ${HIGH}` })],
    ['external_id', (b) => ({ ...b, external_id: `bank-${HIGH}` })],
    ['source', (b) => ({ ...b, external_id: 'bank-1', source: `imp${LOW}` })],
    ['account_id', (b) => ({ ...b, account_id: `${b.account_id}${HIGH}` })],
    ['amount', (b) => ({ ...b, amount: `4.5${HIGH}` })],
    ['merchant_id', (b) => ({ ...b, merchant_id: `${HIGH}` })],
  ];

  it.each(cases)('%s', async (member, make) => {
    const before = world.store.transactions.size;
    const error = (await settle(
      client.transactions.create(make(base()) as TransactionCreate),
    )) as InvalidRequestError;
    expect(error).toBeInstanceOf(InvalidRequestError);
    expect(error.member).toBe(member);
    expect(reached).toEqual([]);
    expect(world.store.requests).toEqual([]);
    expect(world.store.transactions.size).toBe(before);
  });
});

describe('ids and list parameters', () => {
  it('an id with an unpaired surrogate is refused (it cannot be URL-encoded)', async () => {
    const calls: Array<() => Promise<unknown>> = [
      () => client.transactions.get(`${world.market.id}${HIGH}`),
      () => client.transactions.delete(HIGH),
      () => client.transactions.restore(`x${LOW}`),
      () => client.transactions.update(HIGH, { notes: 'x' }),
    ];
    for (const call of calls) {
      const error = (await settle(call())) as InvalidRequestError;
      expect(error).toBeInstanceOf(InvalidRequestError);
      expect(error.member).toBe('id');
    }
    expect(reached).toEqual([]);
  });

  it('a search with an unpaired surrogate is refused (a query would carry U+FFFD instead)', () => {
    expect(() => client.transactions.list({ search: `Coffee${HIGH}` })).toThrow(InvalidRequestError);
    expect(() => client.transactions.list({ tag_ids: [HIGH] })).toThrow(/tag_ids\[0\]/);
    expect(reached).toEqual([]);
  });
});

describe('the shared schemas refuse it too (a server using them answers 422)', () => {
  it('update and create schemas carry the same message', () => {
    const update = TransactionUpdateSchema.safeParse({ name: HIGH });
    const create = TransactionCreateSchema.safeParse({
      account_id: world.checking.id,
      date: '2026-05-02',
      amount: 1,
      notes: LOW,
      name: 'ok',
    });
    expect(update.error?.issues[0]?.message).toMatch(/^Name must be valid Unicode text/);
    expect(create.error?.issues[0]).toMatchObject({ path: ['notes'] });
    expect(create.error?.issues[0]?.message).toMatch(/^Notes must be valid Unicode text/);
  });
});

/**
 * Size bounds on what is sent (README: "Size bounds"): refused with InvalidRequestError before
 * anything goes out, in messages that state the size without repeating the value.
 */
import { http, HttpResponse } from 'msw';
import { inspect } from 'node:util';
import { useMswServer } from '@finsync/test-utils';
import { beforeEach, describe, expect, it } from 'vitest';
import { InvalidRequestError, ServiceClient } from '../src/index.js';
import { API, BASE, KEY, TX_ID, settle, wireTransaction } from './helpers.js';

const server = useMswServer();
const client = () => new ServiceClient({ baseUrl: BASE, apiKey: KEY, maxRetries: 0 });
const ACCOUNT = '0b7e5d1c-1111-4c1e-9a57-2f0e8b1d3c44';
const page = { transactions: [], pagination: { page: 1, per_page: 25, total_count: 0, total_pages: 0 } };

let sent = 0;
beforeEach(() => {
  sent = 0;
  server.use(
    http.all(`${API}/*`, ({ request }) => {
      sent += 1;
      if (request.method === 'POST' && new URL(request.url).pathname.endsWith('/tags')) {
        return HttpResponse.json({ id: TX_ID, name: 'n', color: '#e99537' }, { status: 201 });
      }
      return HttpResponse.json(
        request.method === 'GET' && request.url.includes('?') ? page : wireTransaction(),
      );
    }),
  );
});

/** Refused, naming `member`, stating `size`, and never quoting a long run of the value. */
async function expectRefused(promise: Promise<unknown>, member: string, size: RegExp) {
  const error = (await settle(promise)) as InvalidRequestError;
  expect(error).toBeInstanceOf(InvalidRequestError);
  expect(error.member).toBe(member);
  expect(error.message).toMatch(size);
  for (const text of [error.message, JSON.stringify(error), inspect(error)]) {
    expect(text.length).toBeLessThan(2_000);
  }
  expect(sent).toBe(0);
}

const create = (extra: Record<string, unknown>) =>
  client().transactions.create({ account_id: ACCOUNT, date: '2026-05-01', amount: '1', name: 'n', ...extra });

describe('list(): the filters together at most 10,000 characters of query', () => {
  it('two full id filters together are refused, naming the larger; each alone is sent', async () => {
    const ids = (n: number) => Array<string>(n).fill(TX_ID);
    await expectRefused(
      (async () => client().transactions.list({ account_ids: ids(100), tag_ids: ids(99) }))(),
      'account_ids',
      /a query of 10,\d{3} characters, over 10,000 .*split account_ids/,
    );
    await client()
      .transactions.list({ account_ids: ids(100), search: 'x'.repeat(1_000) })
      .firstPage();
    expect(sent).toBe(1);
  });

  it('a list changed after the call does not change the pages still to come', async () => {
    const urls: string[] = [];
    server.use(
      http.get(`${API}/transactions`, ({ request }) => {
        urls.push(request.url);
        const page = Number(new URL(request.url).searchParams.get('page'));
        return HttpResponse.json({
          transactions: [wireTransaction()],
          pagination: { page, per_page: 1, total_count: 3, total_pages: 3 },
        });
      }),
    );
    const accountIds = [ACCOUNT];
    const list = client().transactions.list({ account_ids: accountIds });
    accountIds.length = 0;
    for await (const _ of list.pages());
    expect(urls).toHaveLength(3);
    for (const url of urls) expect(new URL(url).searchParams.getAll('account_ids[]')).toEqual([ACCOUNT]);
  });
});

describe('text members: at most 65,536 characters', () => {
  it.each(['notes', 'name', 'description', 'external_id'])(
    'create: %s of 65,537 is refused',
    async (member) => {
      await expectRefused(
        create({ [member]: 'n'.repeat(65_537) }),
        member,
        /at most 65,536 characters \(it has 65,537\)/,
      );
    },
  );

  it('create: 5 MB of notes is refused (the reviewer case)', async () => {
    await expectRefused(create({ notes: 'n'.repeat(5e6) }), 'notes', /it has 5,000,000/);
  });

  it('update: notes of 65,537 is refused; 65,536 is sent', async () => {
    await expectRefused(
      client().transactions.update(TX_ID, { notes: 'x'.repeat(65_537) }),
      'notes',
      /at most 65,536/,
    );
    await client().transactions.update(TX_ID, { notes: 'x'.repeat(65_536) });
    expect(sent).toBe(1);
  });

  it('tags.create: a name of 65,537 is refused', async () => {
    await expectRefused(client().tags.create({ name: 't'.repeat(65_537) }), 'name', /at most 65,536/);
  });
});

describe('tag_ids in a body: at most 1,000', () => {
  it('update with 100,000 tag ids is refused; 1,000 is sent', async () => {
    await expectRefused(
      client().transactions.update(TX_ID, { tag_ids: Array<string>(100_000).fill(TX_ID) }),
      'tag_ids',
      /at most 1,000 \(there are 100,000\)/,
    );
    await client().transactions.update(TX_ID, { tag_ids: Array<string>(1_000).fill(TX_ID) });
    expect(sent).toBe(1);
  });

  it('create with 1,001 tag ids is refused', async () => {
    await expectRefused(create({ tag_ids: Array<string>(1_001).fill(TX_ID) }), 'tag_ids', /at most 1,000/);
  });
});

describe('list(): search at most 1,000 characters, each id filter at most 100 ids', () => {
  it('a search of 1,000,000 characters is refused; 1,000 is sent', async () => {
    await expectRefused(
      (async () => client().transactions.list({ search: 'x'.repeat(1e6) }))(),
      'search',
      /at most 1,000 characters \(it has 1,000,000\)/,
    );
    await client()
      .transactions.list({ search: 'x'.repeat(1_000) })
      .firstPage();
    expect(sent).toBe(1);
  });

  it.each(['tag_ids', 'account_ids', 'category_ids', 'merchant_ids'])(
    '%s with 10,000 ids is refused; 100 is sent',
    async (name) => {
      await expectRefused(
        (async () => client().transactions.list({ [name]: Array<string>(10_000).fill(TX_ID) }))(),
        name,
        /at most 100 ids \(it has 10,000\)/,
      );
      await client()
        .transactions.list({ [name]: Array<string>(100).fill(TX_ID) })
        .firstPage();
      expect(sent).toBe(1);
    },
  );
});

describe('ids in paths: at most 256 characters', () => {
  const long = 'x'.repeat(1e6);
  it.each([
    ['get', () => client().transactions.get(long)],
    ['update', () => client().transactions.update(long, { notes: 'x' })],
    ['delete', () => client().transactions.delete(long)],
    ['restore', () => client().transactions.restore(long)],
  ])('%s with a 1,000,000-character id is refused', async (_, call) => {
    await expectRefused(call(), 'id', /at most 256 characters \(it has 1,000,000\)/);
  });

  it('an id of 256 characters is sent', async () => {
    await client().transactions.get('a'.repeat(256));
    expect(sent).toBe(1);
  });
});

describe('amounts: less than 10^15 in magnitude (the service stores decimal(19,4))', () => {
  // The service reads a string as a double too: 999999999999999.9999 is 10^15 there.
  it.each([1e30, -1e15, '1000000000000000', '-99999999999999999.5', '999999999999999.9999'])(
    '%s is refused',
    async (amount) => {
      await expectRefused(create({ amount }), 'amount', /less than 1,000,000,000,000,000 in magnitude/);
    },
  );

  it('the largest amount that fits is sent, by create and by update', async () => {
    await create({ amount: '999999999999999.9' });
    await client().transactions.update(TX_ID, { amount: -999_999_999_999_999 });
    expect(sent).toBe(2);
  });
});

describe('amounts: at most 4 decimal places (decimal(19,4) rounds the rest away)', () => {
  it.each(['0.00012345', '12.34567', 0.00004, -1.23456, 123456789.12345, 1000000000.00001])(
    '%s is refused by create and by update',
    async (amount) => {
      await expectRefused(create({ amount }), 'amount', /at most 4 decimal places/);
      await expectRefused(
        client().transactions.update(TX_ID, { amount }),
        'amount',
        /at most 4 decimal places/,
      );
      expect(sent).toBe(0);
    },
  );

  it('4 places, trailing zeros and a sum that is 4 places up to the double rounding are sent', async () => {
    await create({ amount: '0.0001' });
    await create({ amount: '12.34000000' });
    await client().transactions.update(TX_ID, { amount: 0.1 + 0.2 });
    await client().transactions.update(TX_ID, { amount: 123456789012.1234 });
    expect(sent).toBe(4);
  });
});

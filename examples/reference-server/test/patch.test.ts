import { randomUUID } from 'node:crypto';
import { TransactionSchema } from '@finsync/service';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RenderedTransactionSchema } from '../src/contract.js';
import { BACKENDS, holdUnitOfWork, startTestServer, type TestServer } from './helpers.js';

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(backend.title, () => {
    let t: TestServer;
    let txId: string;
    let categories: Array<{ id: string; name: string }>;
    let tags: Array<{ id: string }>;

    beforeAll(async () => {
      t = await startTestServer(backend);
      const list = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=50');
      txId = list.body.transactions.find(
        (x: { classification: string; currency: string }) =>
          x.classification === 'expense' && x.currency === 'GBP',
      ).id;
      categories = (await t.request(t.keys.alice, 'GET', '/api/v1/categories')).body.categories;
      tags = [];
      for (const name of ['Household', 'Work', 'Holiday'])
        tags.push((await t.request(t.keys.alice, 'POST', '/api/v1/tags', { tag: { name } })).body);
    });

    afterAll(async () => {
      await t?.close();
    });

    const get = async (id = txId) =>
      (await t.request(t.keys.alice, 'GET', `/api/v1/transactions/${id}`)).body;
    const patch = (transaction: unknown, id = txId) =>
      t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${id}`, { transaction });

    /** Asserts a rejected PATCH left the row exactly as it was. */
    async function expectRejectedUnchanged(body: unknown, status: number, error: string | RegExp) {
      const before = await get();
      const response = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${txId}`, body);
      expect(response.status).toBe(status);
      expect(response.body.error).toBe(status === 400 ? 'bad_request' : 'validation_failed');
      expect(JSON.stringify(response.body)).toMatch(error);
      expect(await get()).toEqual(before);
    }

    describe('PATCH /api/v1/transactions/:id', () => {
      it('answers 200 with the full transaction, in the service JSON, parsable by the client schema', async () => {
        const response = await patch({ name: 'Corner shop' });
        expect(response.status).toBe(200);
        expect(RenderedTransactionSchema.parse(response.body).name).toBe('Corner shop');
        expect(TransactionSchema.parse(response.body).amount_decimal).not.toBeNull();
      });

      it('changes only the members sent; omitted and null members stay as they were', async () => {
        await patch({ notes: 'weekly shop', category_id: categories[0]!.id, tag_ids: [tags[0]!.id] });
        const before = await get();
        const response = await patch({
          name: 'Renamed',
          notes: null,
          category_id: null,
          merchant_id: null,
          date: null,
          amount: null,
        });
        expect(response.status).toBe(200);
        const { name, updated_at, ...rest } = response.body;
        const { name: _n, updated_at: _u, ...restBefore } = before;
        expect(name).toBe('Renamed');
        expect(rest).toEqual(restBefore);
      });

      it('notes: a string sets them, "" clears them', async () => {
        expect((await patch({ notes: 'hello' })).body.notes).toBe('hello');
        expect((await patch({ notes: '' })).body.notes).toBe('');
      });

      it('category and merchant: set by id, never cleared by null or ""', async () => {
        const merchants = (await t.request(t.keys.alice, 'GET', '/api/v1/merchants')).body;
        const set = await patch({ category_id: categories[1]!.id, merchant_id: merchants[0].id });
        expect(set.body.category).toMatchObject({ id: categories[1]!.id, name: categories[1]!.name });
        expect(set.body.merchant).toEqual({ id: merchants[0].id, name: merchants[0].name });
        const kept = await patch({ category_id: '', merchant_id: null });
        expect(kept.body.category.id).toBe(categories[1]!.id);
        expect(kept.body.merchant.id).toBe(merchants[0].id);
      });

      it('tag_ids: absent keeps, a list replaces exactly (in order), [] and null clear', async () => {
        expect(
          (await patch({ tag_ids: [tags[1]!.id, tags[0]!.id] })).body.tags.map((x: { id: string }) => x.id),
        ).toEqual([tags[1]!.id, tags[0]!.id]);
        expect((await patch({ name: 'Still tagged' })).body.tags).toHaveLength(2);
        expect((await patch({ tag_ids: [tags[2]!.id] })).body.tags.map((x: { id: string }) => x.id)).toEqual([
          tags[2]!.id,
        ]);
        expect((await patch({ tag_ids: [] })).body.tags).toEqual([]);
        await patch({ tag_ids: [tags[0]!.id] });
        expect((await patch({ tag_ids: null })).body.tags).toEqual([]);
      });

      it('tag_ids the row has already is no change (updated_at stays); tags are locked only when some are set, as by the service', async () => {
        const list = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=50');
        const other = (list.body.transactions as Array<{ id: string; tags: unknown[] }>).find(
          (x) => x.id !== txId && x.tags.length === 0,
        )!.id;
        const stored = async () => (await t.server.runtime.store.getTransaction(t.users.alice, other))!;
        const lockedOf = async () => (await stored()).locked;
        // As stored (to the millisecond; the answer shows whole seconds).
        const stamp = async (transaction: unknown) => {
          expect((await patch(transaction, other)).status).toBe(200);
          return (await stored()).updated_at;
        };
        const untouched = (await stored()).updated_at;
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(await stamp({ tag_ids: [] })).toBe(untouched);
        expect(await stamp({ tag_ids: null })).toBe(untouched);
        expect(await lockedOf()).not.toContain('tag_ids');
        const tagged = await stamp({ tag_ids: [tags[0]!.id, tags[1]!.id] });
        expect(tagged).not.toBe(untouched);
        expect(await lockedOf()).toContain('tag_ids');
        await new Promise((resolve) => setTimeout(resolve, 5));
        expect(await stamp({ tag_ids: [tags[0]!.id, tags[1]!.id] })).toBe(tagged);
        // The same tags in another order are a change: the order is kept.
        expect(await stamp({ tag_ids: [tags[1]!.id, tags[0]!.id] })).not.toBe(tagged);
      });

      it('amount and nature: the sign follows nature; without nature positive is an expense', async () => {
        const income = (await patch({ amount: 50, nature: 'income' })).body;
        expect(income).toMatchObject({
          amount: '-£50.00',
          classification: 'income',
          amount_cents: 5000,
          signed_amount_cents: 5000,
        });
        const expense = (await patch({ amount: '-50', nature: 'Expense' })).body;
        expect(expense).toMatchObject({
          amount: '£50.00',
          classification: 'expense',
          amount_cents: 5000,
          signed_amount_cents: -5000,
        });
        const plain = (await patch({ amount: '12.5' })).body;
        expect(plain).toMatchObject({ amount: '£12.50', classification: 'expense', amount_cents: 1250 });
        const negative = (await patch({ amount: -1000 })).body;
        expect(negative).toMatchObject({ amount: '-£1,000.00', classification: 'income' });
        // nature without amount changes nothing
        const before = await get();
        const { updated_at: _a, ...after } = (await patch({ nature: 'expense' })).body;
        const { updated_at: _b, ...was } = before;
        expect(after).toEqual(was);
      });

      it('formats amounts as the service does for USD, JPY and other currencies', async () => {
        const { formatMoney } = await import('../src/money-format.js');
        expect(formatMoney('42.1', 'USD')).toBe('$42.10');
        expect(formatMoney('-1000', 'USD')).toBe('-$1,000.00');
        expect(formatMoney('1234.5', 'JPY')).toBe('¥1,235');
        expect(formatMoney('12', 'CAD')).toBe('CA$12.00');
        expect(formatMoney('-0.001', 'USD')).toBe('$0.00');
      });

      it('date: YYYY-MM-DD sets it, and so do the other forms the service reads', async () => {
        expect((await patch({ date: '2026-01-15' })).body.date).toBe('2026-01-15');
        expect((await patch({ date: '2026/01/16' })).body.date).toBe('2026-01-16');
        // A timestamp names the day it is written on, whatever its zone.
        expect((await patch({ date: '2026-01-17T23:30:00-05:00' })).body.date).toBe('2026-01-17');
        expect((await patch({ date: '2026-01-18T10:00:00Z' })).body.date).toBe('2026-01-18');
      });

      it('description is the name when name is absent; name wins when both are sent', async () => {
        expect((await patch({ description: 'From description' })).body.name).toBe('From description');
        expect((await patch({ description: 'ignored', name: 'From name' })).body.name).toBe('From name');
        // When name is sent, description is not read at all: not even blank or of another type.
        for (const description of ['', 5, { x: 1 }]) {
          const response = await patch({ name: 'Name wins', description });
          expect(response.status, JSON.stringify(description)).toBe(200);
          expect(response.body.name).toBe('Name wins');
        }
      });

      it('ignores unknown members and currency, as the service does', async () => {
        const before = await get();
        const response = await patch({
          account_id: 'elsewhere',
          classification: 'income',
          excluded: true,
          currency: 'EUR',
        });
        expect(response.status).toBe(200);
        // Whatever currency holds: it is never read.
        for (const currency of [5, null, { code: 'EUR' }, ''])
          expect((await patch({ currency })).status, JSON.stringify(currency)).toBe(200);
        expect(response.body.currency).toBe(before.currency);
        expect(response.body.account).toEqual(before.account);
        // Names an object has from its prototype are not members either, even sent as the body's own.
        const own = JSON.parse(
          '{"__proto__": {"notes": "from the prototype"}, "constructor": "x", "toString": 1, "hasOwnProperty": null, "notes": "kept"}',
        ) as unknown;
        const withProtoNames = await patch(own);
        expect(withProtoNames.status).toBe(200);
        expect(withProtoNames.body.notes).toBe('kept');
      });

      it('PUT behaves as PATCH', async () => {
        const response = await t.request(t.keys.alice, 'PUT', `/api/v1/transactions/${txId}`, {
          transaction: { name: 'Via PUT' },
        });
        expect(response.status).toBe(200);
        expect(response.body.name).toBe('Via PUT');
      });

      describe('rejected requests change nothing', () => {
        it('a blank name → 422', () =>
          expectRejectedUnchanged({ transaction: { name: '' } }, 422, /Name can't be blank/));
        it('an impossible date → 422', () =>
          expectRejectedUnchanged({ transaction: { date: '2024-02-30', name: 'x' } }, 422, /Date/));
        it('a date that is not a date → 422', () =>
          expectRejectedUnchanged({ transaction: { date: 'not-a-date' } }, 422, /Date can't be blank/));
        it('a date 30 years back → 422', () =>
          expectRejectedUnchanged({ transaction: { date: '1990-01-01' } }, 422, /Date must be greater than/));
        it('an amount that is not a number → 422 (the service would store 0)', () =>
          expectRejectedUnchanged({ transaction: { amount: 'abc', notes: 'x' } }, 422, /Amount/));
        it('a grouped amount → 422 (the service would store 1.0)', () =>
          expectRejectedUnchanged({ transaction: { amount: '1,234.56' } }, 422, /Amount/));
        it('an unknown nature → 422', () =>
          expectRejectedUnchanged({ transaction: { amount: 5, nature: 'gift' } }, 422, /Nature/));
        it('an unknown category → 422 (the service would answer 500)', () =>
          expectRejectedUnchanged(
            { transaction: { category_id: '00000000-0000-4000-8000-000000000000', name: 'x' } },
            422,
            /Category .* not found/,
          ));
        it('an unknown merchant → 422', () =>
          expectRejectedUnchanged(
            { transaction: { merchant_id: '00000000-0000-4000-8000-000000000000' } },
            422,
            /Merchant .* not found/,
          ));
        it('an unknown tag id, even beside a good one → 422 and the tags stay', async () => {
          await patch({ tag_ids: [tags[0]!.id] });
          await expectRejectedUnchanged(
            { transaction: { tag_ids: [tags[1]!.id, 'nope'] } },
            422,
            /Tag nope not found/,
          );
        });
        it("another user's category → 422", async () => {
          const bobs = (await t.request(t.keys.bob, 'GET', '/api/v1/categories')).body.categories;
          await expectRejectedUnchanged({ transaction: { category_id: bobs[0].id } }, 422, /not found/);
        });
        it('tag_ids that is not a list → 422', () =>
          expectRejectedUnchanged({ transaction: { tag_ids: 'a' } }, 422, /tag_ids/));
        it('no `transaction` member → 400 (the service would answer 500)', () =>
          expectRejectedUnchanged({ name: 'x' }, 400, /transaction/));
        it('an empty `transaction` member → 400', () =>
          expectRejectedUnchanged({ transaction: {} }, 400, /transaction/));
        it('malformed JSON → 400', () => expectRejectedUnchanged('{"transaction": {', 400, /JSON/));
        for (const contentType of ['text/plain', undefined]) {
          it(`a body sent as ${contentType ?? 'no content type'} → 415`, async () => {
            const before = await get();
            const response = await fetch(`${t.server.url}/api/v1/transactions/${txId}`, {
              method: 'PATCH',
              headers: {
                'X-Api-Key': t.keys.alice,
                ...(contentType === undefined ? {} : { 'Content-Type': contentType }),
              },
              // A Blob without a type makes fetch send no Content-Type at all.
              body: new Blob([JSON.stringify({ transaction: { name: 'Not JSON' } })]),
            });
            expect(response.status).toBe(415);
            expect(((await response.json()) as { error: string }).error).toBe('unsupported_media_type');
            expect(await get()).toEqual(before);
          });
        }
      });
    });

    describe('what a 200 answers is what was stored', () => {
      // "\ud800" is valid JSON but not valid Unicode: a database would keep U+FFFD (or refuse), so
      // the answer and a later GET would differ. Sent raw, as a client that does not check would.
      const raw = (member: string) => `{"transaction":{"${member}":"Caf\\ud800 latte"}}`;
      for (const member of ['name', 'notes', 'description']) {
        it(`refuses an unpaired surrogate in ${member} with a 422 naming it, and changes nothing`, () =>
          expectRejectedUnchanged(raw(member), 422, new RegExp(`transaction\\.${member}`)));
      }

      it('refuses a NUL character, which PostgreSQL text cannot hold', () =>
        expectRejectedUnchanged('{"transaction":{"name":"a\\u0000b"}}', 422, /transaction\.name/));

      it('names the first ten malformed members, cut short, and counts the rest: a small body cannot make a huge answer', async () => {
        // A long member name over many NULs: naming every path in full made a 1 MB body a 470 MB answer.
        const key = 'k'.repeat(20_000);
        const body = `{"transaction":{"notes":"ok"},"${key}":[${Array(20_000).fill('"\\u0000"').join(',')}]}`;
        const before = await get();
        const response = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${txId}`, body);
        expect(response.status).toBe(422);
        const errors = (response.body as { errors: string[] }).errors;
        expect(errors).toHaveLength(11);
        expect(errors[10]).toBe('and 19990 more members like these');
        for (const error of errors.slice(0, 10)) {
          expect(error).toMatch(/^k+… contains an unpaired UTF-16 surrogate or a NUL character$/);
          expect(error.length).toBeLessThan(200);
        }
        expect(await get()).toEqual(before);
        // Cut between characters, never inside a surrogate pair: the refusal is itself valid text.
        const emoji = await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${txId}`, {
          ['😀'.repeat(100)]: 'a\u0000b',
        });
        const [named] = (emoji.body as { errors: string[] }).errors;
        expect(named).toMatch(/^(😀)+… contains/);
        expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(named!)).toBe(
          false,
        );
      });

      it('a name of any valid text, astral characters included, is answered and read back alike', async () => {
        const name = 'Café ☕ 🍰 \u{1F600} Łódź';
        const response = await patch({ name });
        expect(response.status).toBe(200);
        expect(response.body.name).toBe(name);
        expect(await get()).toEqual(response.body);
      });

      it('refuses an amount with more decimals than its currency, and amounts past a trillion', async () => {
        await expectRejectedUnchanged(
          { transaction: { amount: '12.345' } },
          422,
          /at most 2 decimal places in GBP/,
        );
        await expectRejectedUnchanged({ transaction: { amount: '1'.repeat(13) } }, 422, /less than 10\^12/);
        await expectRejectedUnchanged(
          { transaction: { amount: '9'.repeat(5_000) } },
          422,
          /Amount is too long/,
        );
        const ok = await patch({ amount: '999999999999.99' });
        expect(ok.status).toBe(200);
        expect(ok.body.amount_cents).toBe(99_999_999_999_999);
        expect(await get()).toEqual(ok.body);
      });

      it('a PATCH that changes no reference answers the category, merchant and tags it had, in their order', async () => {
        // An order unlike the ids' own, so only the assigned positions can give it back.
        const ordered = [...tags].sort((a, b) => b.id.localeCompare(a.id)).map((tag) => tag.id);
        const set = await patch({ category_id: categories[1]!.id, tag_ids: ordered });
        expect(set.status).toBe(200);
        expect(set.body.merchant).not.toBeNull(); // the row came with one, from the provider

        const response = await patch({ notes: 'only the notes' });
        expect(response.status).toBe(200);
        expect(response.body.category).toEqual(set.body.category);
        expect(response.body.merchant).toEqual(set.body.merchant);
        expect(response.body.tags.map((tag: { id: string }) => tag.id)).toEqual(ordered);
        expect(response.body.account).toEqual(set.body.account);
        expect(await get()).toEqual(response.body);
      });

      it('a PATCH that waited for the row answers what the write it waited for committed', async () => {
        const tag = (await t.request(t.keys.alice, 'POST', '/api/v1/tags', { tag: { name: 'Waited for' } }))
          .body;
        // Another writer (a feed batch, say) holds the row while it creates a merchant, sets it and
        // changes the tags: none of it exists for a read that began before the lock was granted.
        let merchantId = '';
        const holder = await holdUnitOfWork(t.server.runtime.store, async (unit) => {
          await unit.lockTransaction(t.users.alice, txId);
          merchantId = await unit.ensureMerchant(t.users.alice, 'Committed meanwhile', randomUUID());
          await unit.updateTransaction(txId, { merchant_id: merchantId });
          await unit.replaceTransactionTags(txId, [tag.id]);
        });
        const waiting = patch({ notes: 'after the wait' });
        await new Promise((resolve) => setTimeout(resolve, 200)); // the PATCH is waiting for the row
        await holder.release();
        const response = await waiting;
        expect(response.status).toBe(200);
        expect(response.body.tags.map((t: { id: string }) => t.id)).toEqual([tag.id]);
        expect(response.body.merchant).toMatchObject({ id: merchantId, name: 'Committed meanwhile' });
        expect(await get()).toEqual(response.body);
      });

      it('refuses an amount of 10^12 or more, however it is written, with the row unchanged', async () => {
        const before = await get();
        for (const amount of ['1000000000000', 1e13, '12345678901234567890', -1e21]) {
          const response = await patch({ amount });
          expect(response.status, String(amount)).toBe(422);
          expect(response.body.errors).toEqual(['Amount must be less than 10^12 in absolute value']);
        }
        expect(await get()).toEqual(before);
      });

      it('refuses an amount whose amount_cents a client would read rounded (bitcoin, 8 decimals), on create and update', async () => {
        const accountId = (await get()).account.id;
        const create = (amount: string, currency: string) =>
          t.request(t.keys.alice, 'POST', '/api/v1/transactions', {
            transaction: { account_id: accountId, name: 'coin', amount, currency, date: '2026-11-01' },
          });
        const before = (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=1')).body
          .pagination;
        // 2^53 + 1 satoshis: a double reads 12345678912345680 for 12345678912345679.
        const refused = await create('123456789.12345679', 'BTC');
        expect(refused.status).toBe(422);
        expect(refused.body.errors).toEqual([
          'Amount must be at most 90071992.54740991 BTC in absolute value',
        ]);
        expect((await create('999999999999.9999', 'CLF')).body.errors).toEqual([
          'Amount must be at most 900719925474.0991 CLF in absolute value',
        ]);
        const after = (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=1')).body
          .pagination;
        expect(after.total_count).toBe(before.total_count);

        // The largest exact amount is taken, and reads back to the satoshi.
        const largest = await create('-90071992.54740991', 'BTC');
        expect(largest.status).toBe(201);
        expect(largest.body.amount_cents).toBe(Number.MAX_SAFE_INTEGER);
        const coin = largest.body.id as string;
        const over = await patch({ amount: '90071992.54740993' }, coin);
        expect(over.status).toBe(422);
        expect(over.body.errors).toEqual(['Amount must be at most 90071992.54740991 BTC in absolute value']);
        expect(await get(coin)).toEqual(largest.body);
      });

      it('refuses decimals on a currency without them (a yen row)', async () => {
        const list = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=100');
        const yen = list.body.transactions.find((x: { currency: string }) => x.currency === 'JPY');
        expect(yen).toBeDefined();
        const response = await patch({ amount: '12.34' }, yen.id);
        expect(response.status).toBe(422);
        expect(response.body.errors).toEqual(['Amount must be a whole number in JPY']);
        expect(await get(yen.id)).toEqual(yen);
      });
    });

    describe('auth and scoping', () => {
      it('needs a key: none or a wrong one → 401', async () => {
        expect((await t.request(undefined, 'GET', '/api/v1/transactions')).status).toBe(401);
        const wrong = await t.request('f'.repeat(64), 'GET', '/api/v1/transactions');
        expect(wrong).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
        expect(
          (
            await t.request(undefined, 'PATCH', `/api/v1/transactions/${txId}`, {
              transaction: { name: 'x' },
            })
          ).status,
        ).toBe(401);
      });

      it("another user's transaction is a 404, for reading and for writing", async () => {
        expect((await t.request(t.keys.bob, 'GET', `/api/v1/transactions/${txId}`)).body).toEqual({
          error: 'not_found',
          message: 'Transaction not found',
          request_id: expect.any(String),
        });
        const before = await get();
        expect(
          (
            await t.request(t.keys.bob, 'PATCH', `/api/v1/transactions/${txId}`, {
              transaction: { name: 'mine' },
            })
          ).status,
        ).toBe(404);
        expect(await get()).toEqual(before);
        const bobsList = (await t.request(t.keys.bob, 'GET', '/api/v1/transactions?per_page=100')).body
          .transactions;
        expect(bobsList.map((x: { id: string }) => x.id)).not.toContain(txId);
      });

      it('a read-only key reads, and gets 403 on PATCH before any lookup', async () => {
        expect((await t.request(t.keys.aliceReadOnly, 'GET', `/api/v1/transactions/${txId}`)).status).toBe(
          200,
        );
        expect(
          (
            await t.request(t.keys.aliceReadOnly, 'PATCH', `/api/v1/transactions/${txId}`, {
              transaction: { name: 'x' },
            })
          ).body,
        ).toEqual({
          error: 'insufficient_scope',
          message: "This action requires the 'write' scope",
          request_id: expect.any(String),
        });
        expect(
          (
            await t.request(t.keys.aliceReadOnly, 'PATCH', '/api/v1/transactions/999999', {
              transaction: { name: 'x' },
            })
          ).status,
        ).toBe(403);
      });

      it('an id that is not a UUID, or unknown, is a 404', async () => {
        expect((await t.request(t.keys.alice, 'GET', '/api/v1/transactions/999999')).status).toBe(404);
        expect(
          (
            await t.request(
              t.keys.alice,
              'PATCH',
              '/api/v1/transactions/00000000-0000-4000-8000-000000000000',
              {
                transaction: { name: 'x' },
              },
            )
          ).status,
        ).toBe(404);
      });
    });
  });
}

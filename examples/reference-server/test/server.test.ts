import { createApp } from '../src/app.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TransactionCollectionSchema } from '../src/contract.js';
import { SyncStatusSchema } from '../src/http/routes/sync.js';
import { SANDBOX } from '../src/server.js';
import { BACKENDS, startTestServer, type TestServer } from './helpers.js';

const PROVIDER_SECRET = 'lf-sandbox-7Q2xZpT9uWc4';

for (const backend of BACKENDS) {
  describe.skipIf(backend.skip)(backend.title, () => {
    let t: TestServer;

    beforeAll(async () => {
      t = await startTestServer(backend, { apiKey: PROVIDER_SECRET });
    });

    afterAll(async () => {
      await t?.close();
    });

    describe('listing', () => {
      it('pages through every transaction of the user, newest first, in the collection format', async () => {
        const first = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=7');
        expect(first.status).toBe(200);
        TransactionCollectionSchema.parse(first.body);
        const { total_count, total_pages, per_page, page } = first.body.pagination;
        expect([page, per_page]).toEqual([1, 7]);
        expect(total_pages).toBe(Math.ceil(total_count / 7));
        const seen = new Set<string>();
        for (let p = 1; p <= total_pages; p += 1) {
          const response = await t.request(t.keys.alice, 'GET', `/api/v1/transactions?per_page=7&page=${p}`);
          for (const tx of response.body.transactions) seen.add(tx.id);
        }
        expect(seen.size).toBe(total_count);
        const dates = first.body.transactions.map((x: { date: string }) => x.date);
        expect([...dates].sort().reverse()).toEqual(dates);
      });

      it("answers a page past the end with the last page, and an empty list as one page, as the service's Pagy", async () => {
        const first = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=7');
        const { total_pages } = first.body.pagination;
        const last = await t.request(
          t.keys.alice,
          'GET',
          `/api/v1/transactions?per_page=7&page=${total_pages}`,
        );
        const past = await t.request(
          t.keys.alice,
          'GET',
          `/api/v1/transactions?per_page=7&page=${total_pages + 5}`,
        );
        expect(past.status).toBe(200);
        expect(past.body.pagination).toEqual({ ...last.body.pagination, page: total_pages });
        expect(past.body.transactions).toEqual(last.body.transactions);
        const none = await t.request(
          t.keys.alice,
          'GET',
          '/api/v1/transactions?start_date=1990-01-01&end_date=1990-01-02',
        );
        expect(none.body).toMatchObject({
          transactions: [],
          pagination: { page: 1, total_count: 0, total_pages: 1 },
        });
        const deleted = await t.request(t.keys.alice, 'GET', '/api/v1/transactions/deleted?page=3');
        expect(deleted.body.pagination).toMatchObject({ page: 1, total_pages: 1 });
      });

      it('takes filter dates of the years 0 to 99 as the dates they are, and refuses a bad one with errors listed', async () => {
        for (const date of ['0001-01-01', '0099-12-31', '0000-02-29']) {
          const response = await t.request(t.keys.alice, 'GET', `/api/v1/transactions?start_date=${date}`);
          expect(response.status, date).toBe(200);
        }
        const bad = await t.request(t.keys.alice, 'GET', '/api/v1/transactions?start_date=0001-02-29');
        expect(bad.status).toBe(400);
        expect(bad.body).toMatchObject({
          error: 'bad_request',
          errors: ['start_date must be a date (YYYY-MM-DD)'],
        });
      });

      it('filters by account and by an inclusive date range', async () => {
        const accounts = (await t.request(t.keys.alice, 'GET', '/api/v1/accounts')).body.accounts;
        const card = accounts.find((a: { account_type: string }) => a.account_type === 'credit_card');
        expect(card).toBeDefined();
        const byAccount = await t.request(
          t.keys.alice,
          'GET',
          `/api/v1/transactions?per_page=100&account_id=${card.id}`,
        );
        expect(byAccount.body.transactions.length).toBeGreaterThan(0);
        expect(
          byAccount.body.transactions.every((x: { account: { id: string } }) => x.account.id === card.id),
        ).toBe(true);

        const day = byAccount.body.transactions[0].date;
        const range = await t.request(
          t.keys.alice,
          'GET',
          `/api/v1/transactions?per_page=100&start_date=${day}&end_date=${day}`,
        );
        expect(range.body.transactions.length).toBeGreaterThan(0);
        expect(range.body.transactions.every((x: { date: string }) => x.date === day)).toBe(true);
        expect(
          (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?start_date=yesterday')).status,
        ).toBe(400);
      });

      it('converts the provider sign: money out is a positive expense', async () => {
        const all = (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=100')).body
          .transactions;
        const salary = all.find((x: { classification: string }) => x.classification === 'income');
        const spend = all.find((x: { classification: string }) => x.classification === 'expense');
        expect(salary.signed_amount_cents).toBeGreaterThan(0);
        expect(salary.amount.startsWith('-')).toBe(true);
        expect(spend.signed_amount_cents).toBeLessThan(0);
        expect(spend.external_id).toMatch(/^lunchflow_/);
        expect(spend.source).toBe('lunchflow');
      });
    });

    describe('sync', () => {
      it('reports status per account', async () => {
        const status = await t.request(t.keys.alice, 'GET', '/api/v1/sync/status');
        expect(status.body.provider_configured).toBe(true);
        expect(status.body.connection.status).toBe('active');
        expect(status.body.accounts.length).toBeGreaterThan(3);
        expect(status.body.accounts.some((a: { state: string }) => a.state === 'inactive')).toBe(true);
        expect(status.body.last_sync.ok).toBe(true);
        // Every member it answers is in the OpenAPI document, down to each account's balance check.
        expect(SyncStatusSchema.parse(status.body)).toEqual(status.body);
        const doc = (await (await fetch(`${t.server.url}/api/v1/openapi.json`)).json()) as any;
        const documented = (schema: any): string[] => {
          const resolved = schema.$ref ? doc.components.schemas[schema.$ref.split('/').pop()] : schema;
          return Object.keys(
            (resolved.anyOf?.find((s: any) => s.type !== 'null') ?? resolved).properties ?? {},
          ).sort();
        };
        const shape = doc.components.schemas.SyncStatus.properties;
        const summary = doc.components.schemas.SyncSummary.properties;
        expect(documented(shape.connection)).toEqual(Object.keys(status.body.connection).sort());
        expect(documented(shape.accounts.items)).toEqual(Object.keys(status.body.accounts[0]).sort());
        expect(documented(summary.accounts.items)).toEqual(
          Object.keys(status.body.last_sync.accounts[0]).sort(),
        );
        expect(documented(shape.accounts.items.properties.balance_check)).toContain('difference');
        expect(status.body.last_sync.accounts.some((a: { balance_check: unknown }) => a.balance_check)).toBe(
          true,
        );
      });

      it("keeps the user's edits on every later sync, and a pending row posts under the same id", async () => {
        const list = (await t.request(t.keys.alice, 'GET', '/api/v1/transactions?per_page=100')).body
          .transactions;
        const gbp = list.filter((x: { currency: string }) => x.currency === 'GBP');
        const pending = gbp.filter((x: { external_id: string }) =>
          x.external_id.startsWith('lunchflow_pending_'),
        );
        const posted = gbp.find(
          (x: { external_id: string }) => !x.external_id.startsWith('lunchflow_pending_'),
        );
        expect(pending.length).toBeGreaterThan(0);
        const categories = (await t.request(t.keys.alice, 'GET', '/api/v1/categories')).body.categories;
        const tag = (await t.request(t.keys.alice, 'POST', '/api/v1/tags', { tag: { name: 'Kept' } })).body;
        const edit = {
          name: 'My name',
          notes: 'my notes',
          category_id: categories[2].id,
          tag_ids: [tag.id],
          amount: '99.99',
          date: '2026-01-02',
        };
        for (const tx of [posted, ...pending]) {
          expect(
            (await t.request(t.keys.alice, 'PATCH', `/api/v1/transactions/${tx.id}`, { transaction: edit }))
              .status,
          ).toBe(200);
        }

        for (let day = 0; day < 5; day += 1) {
          t.server.runtime.sandbox!.advanceDays(1);
          const summary = (await t.request(t.keys.alice, 'POST', '/api/v1/sync?wait=true')).body;
          expect(summary.ok).toBe(true);
        }

        for (const tx of [posted, ...pending]) {
          const now = await t.request(t.keys.alice, 'GET', `/api/v1/transactions/${tx.id}`);
          if (now.status === 404) continue; // a hold that lapsed without posting is gone upstream
          expect(now.body).toMatchObject({
            name: 'My name',
            notes: 'my notes',
            amount: '£99.99',
            date: '2026-01-02',
          });
          expect(now.body.category.id).toBe(categories[2].id);
          expect(now.body.tags.map((x: { id: string }) => x.id)).toEqual([tag.id]);
        }
        const postedNow = [];
        for (const tx of pending) {
          const now = await t.request(t.keys.alice, 'GET', `/api/v1/transactions/${tx.id}`);
          if (now.status === 200 && !now.body.external_id.startsWith('lunchflow_pending_'))
            postedNow.push(now.body);
        }
        expect(postedNow.length).toBeGreaterThan(0);
      });
    });

    describe('provider key', () => {
      it('refuses a provider URL that is not the provider (no SSRF)', async () => {
        const response = await t.request(t.keys.alice, 'PUT', '/api/v1/provider', {
          api_key: 'x',
          base_url: 'http://169.254.169.254/',
        });
        expect(response.status).toBe(422);
      });

      it('checks a new provider key with the provider first: a refused key is a 422 and the old key stays', async () => {
        const bad = await t.request(t.keys.bob, 'PUT', '/api/v1/provider', {
          api_key: 'wrong-key',
          base_url: SANDBOX,
        });
        expect(bad.status).toBe(422);
        expect(bad.body.message).toMatch(/refused this key/);
        expect((await t.request(t.keys.bob, 'POST', '/api/v1/sync?wait=true')).body.ok).toBe(true);
      });

      it('a good key starts a sync at once; POST /sync answers 202 with the run, and the status shows it', async () => {
        const put = await t.request(t.keys.bob, 'PUT', '/api/v1/provider', {
          api_key: PROVIDER_SECRET,
          base_url: SANDBOX,
        });
        expect(put.status).toBe(200);
        expect(put.body.running).toMatchObject({ run_id: expect.any(String) });
        const started = await t.request(t.keys.bob, 'POST', '/api/v1/sync');
        expect(started.status).toBe(202);
        // The run started by the PUT is still going (or this is a new one): either way one id.
        expect(started.body).toMatchObject({ run_id: expect.any(String), progress: expect.any(Object) });
        let status = (await t.request(t.keys.bob, 'GET', '/api/v1/sync/status')).body;
        for (let i = 0; i < 100 && status.running; i += 1) {
          await new Promise((r) => setTimeout(r, 50));
          status = (await t.request(t.keys.bob, 'GET', '/api/v1/sync/status')).body;
        }
        expect(status.running).toBeNull();
        expect(status.last_sync).toMatchObject({ run_id: started.body.run_id, ok: true });
      });

      it('keeps no plaintext API key or provider key in the database', async () => {
        const dump = await t.dump();
        for (const place of t.dumpMustInclude) expect([...dump.keys()]).toContain(place);
        // The check can see what is stored: the sealed provider keys are there, as ciphertext.
        expect([...dump.values()].some((bytes) => bytes.includes('v2.'))).toBe(true);
        for (const [place, bytes] of dump) {
          for (const secret of [PROVIDER_SECRET, t.keys.alice, t.keys.bob, t.keys.aliceReadOnly]) {
            for (const form of [secret, Buffer.from(secret).toString('hex')]) {
              expect(bytes.includes(form), `${secret.slice(0, 6)}… in ${place}`).toBe(false);
            }
          }
        }
      });
    });

    describe('OpenAPI', () => {
      it('documents every route it answers, from the schemas the routes validate with', async () => {
        const response = await fetch(`${t.server.url}/api/v1/openapi.json`);
        const doc = (await response.json()) as any;
        expect(doc.openapi).toBe('3.1.0');
        const served = createApp(t.server.runtime)
          .routes.filter((r) => r.method !== 'ALL' && r.path.startsWith('/api/'))
          .filter((r) => r.path !== '/api/v1/openapi.json')
          .map((r) => `${r.method.toLowerCase()} ${r.path.replace(/:(\w+)/g, '{$1}')}`);
        const documented = Object.entries(doc.paths as Record<string, object>).flatMap(([path, operations]) =>
          Object.keys(operations).map((method) => `${method} ${path}`),
        );
        expect(served.length).toBeGreaterThan(12);
        expect([...new Set(served)].sort()).toEqual([...new Set(documented)].sort());
        for (const [path, operations] of Object.entries(doc.paths as Record<string, Record<string, any>>))
          for (const [method, operation] of Object.entries(operations)) {
            expect(operation.summary, `${method} ${path} has a summary`).toBeTruthy();
            expect(Object.keys(operation.responses), `${method} ${path} documents its errors`).toContain(
              path.startsWith('/api/v1/') ? '401' : '200',
            );
            // What any keyed route may answer: a query value that is not UTF-8, a body over the limit, a failure.
            if ('401' in operation.responses)
              expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
                expect.arrayContaining(['400', '413', '500']),
              );
          }
        expect(doc.components.schemas.Transaction.properties.signed_amount_cents.type).toBe('integer');
        const update = doc.components.schemas.TransactionUpdateRequest.properties.transaction.properties;
        expect(update).toHaveProperty('tag_ids');
        expect(update.description).toMatchObject({ type: ['string', 'null'], maxLength: 500 });
      });

      it('documents patterns a client can use: plain regular expressions that take what the server takes', async () => {
        const doc = (await (await fetch(`${t.server.url}/api/v1/openapi.json`)).json()) as any;
        const patterns: string[] = [];
        const walk = (node: unknown): void => {
          if (Array.isArray(node)) return node.forEach(walk);
          if (node === null || typeof node !== 'object') return;
          for (const [key, value] of Object.entries(node)) {
            if (key === 'pattern' && typeof value === 'string') patterns.push(value);
            else walk(value);
          }
        };
        walk(doc);
        expect(patterns.length).toBeGreaterThan(0);
        for (const pattern of patterns) {
          expect(() => new RegExp(pattern, 'u'), pattern).not.toThrow();
          // A JavaScript literal's flags (`/i`) do not survive into a document's pattern.
          expect(pattern, 'no stray flags').not.toMatch(/\/[dgimsuvy]+$/);
        }
        const type = doc.paths['/api/v1/transactions'].get.parameters.find((p: any) => p.name === 'type');
        for (const value of ['income', 'expense', 'INCOME', 'Expense']) {
          expect(new RegExp(type.schema.pattern, 'u').test(value), value).toBe(true);
          const listed = await t.request(
            t.keys.alice,
            'GET',
            `/api/v1/transactions?type=${value}&per_page=1`,
          );
          expect(listed.status, value).toBe(200);
        }
      });

      it('shows each error status with an example of its own answer, not one example for all', async () => {
        const doc = (await (await fetch(`${t.server.url}/api/v1/openapi.json`)).json()) as any;
        const example = (path: string, method: string, status: number) =>
          doc.paths[path][method].responses[status].content['application/json'].example;
        expect(example('/api/v1/accounts', 'get', 401).error).toBe('unauthorized');
        expect(example('/api/v1/transactions/{id}', 'patch', 422).error).toBe('validation_failed');
        expect(example('/api/v1/transactions/{id}', 'patch', 404).error).toBe('not_found');
        expect(example('/api/v1/transactions', 'post', 429).error).toBe('rate_limit_exceeded');
        // And each is what the server answers: a wrong key, word for word.
        const refused = await fetch(`${t.server.url}/api/v1/accounts`, { headers: { 'x-api-key': 'wrong' } });
        expect(await refused.json()).toMatchObject(example('/api/v1/accounts', 'get', 401));
      });

      it('documents the answers a user meets: a bad `wait` on a sync, and the 429 details', async () => {
        const doc = (await (await fetch(`${t.server.url}/api/v1/openapi.json`)).json()) as any;
        const badWait = await t.request(t.keys.alice, 'POST', '/api/v1/sync?wait=maybe');
        expect(badWait.status).toBe(400);
        expect(Object.keys(doc.paths['/api/v1/sync'].post.responses)).toContain('400');
        expect(doc.components.schemas.ErrorResponse.properties.details.properties).toHaveProperty(
          'reset_in_seconds',
        );
      });

      it('documents a 415 only where a JSON body is read, and a route that reads none takes any body', async () => {
        const doc = (await (await fetch(`${t.server.url}/api/v1/openapi.json`)).json()) as any;
        const codes = (path: string, method: string) => Object.keys(doc.paths[path][method].responses);
        expect(codes('/api/v1/transactions', 'post')).toContain('415');
        expect(codes('/api/v1/transactions/{id}', 'patch')).toContain('415');
        expect(codes('/api/v1/transactions/{id}', 'delete')).not.toContain('415');
        expect(codes('/api/v1/sync', 'post')).not.toContain('415');
        const plain = { 'content-type': 'text/plain' };
        const created = await fetch(`${t.server.url}/api/v1/transactions`, {
          method: 'POST',
          headers: { ...plain, 'x-api-key': t.keys.alice },
          body: 'not json',
        });
        expect(created.status).toBe(415);
        const synced = await fetch(`${t.server.url}/api/v1/sync`, {
          method: 'POST',
          headers: { ...plain, 'x-api-key': t.keys.alice },
          body: 'not json',
        });
        expect(synced.status).toBe(202);
      });
    });
  });
}

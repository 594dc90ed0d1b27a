import { describe, expect, it } from 'vitest';
import { SandboxProvider } from '../../src/sandbox/provider.js';
import type { SandboxAccountSpec } from '../../src/sandbox/index.js';
import { ALL_IDS, call, decimalsOf, toMinor } from './helpers.js';

describe('determinism', () => {
  const paths = [
    '/accounts',
    ...ALL_IDS.map((id) => `/accounts/${id}/balance`),
    ...ALL_IDS.map((id) => `/accounts/${id}/transactions?include_pending=true`),
    '/accounts/5001/holdings',
  ];

  it('gives byte-identical bodies for the same seed and different ones for another seed', async () => {
    const a = new SandboxProvider({ seed: 7 });
    const b = new SandboxProvider({ seed: 7 });
    const c = new SandboxProvider({ seed: 8 });
    for (const path of paths) {
      const [ra, rb, rc] = await Promise.all([call(a, path), call(b, path), call(c, path)]);
      expect(ra.status).toBe(200);
      expect(rb.text).toBe(ra.text);
      if (path !== '/accounts') expect(rc.text, path).not.toBe(ra.text);
    }
  });

  it('uses seed 1 by default', async () => {
    const path = '/accounts/4711/transactions?from=2026-06-01';
    expect((await call(new SandboxProvider(), path)).text).toBe(
      (await call(new SandboxProvider({ seed: 1 }), path)).text,
    );
  });
});

describe('auth and routing', () => {
  const provider = new SandboxProvider();

  it('answers 401 without a key and 403 with a wrong one, with the real bodies', async () => {
    const missing = await call(provider, '/accounts', { key: null });
    expect(missing.status).toBe(401);
    expect(missing.json).toEqual({
      error: 'Unauthorized',
      message: 'Authentication required. Provide x-api-key header or Authorization: Bearer token.',
    });
    const wrong = await call(provider, '/accounts/4711/transactions', { key: 'nope' });
    expect(wrong.status).toBe(403);
    expect(wrong.json).toEqual({ error: 'Forbidden', message: 'Invalid API key.' });
  });

  it('accepts any header-name casing and a Bearer token', async () => {
    const upper = await provider.handle(
      new Request('https://x.test/api/v1/accounts', { headers: { 'X-API-KEY': 'sandbox-key' } }),
    );
    expect(upper.status).toBe(200);
    const bearer = await provider.handle(
      new Request('https://x.test/api/v1/accounts', { headers: { Authorization: 'Bearer sandbox-key' } }),
    );
    expect(bearer.status).toBe(200);
  });

  it('rejects the old key after setApiKey', async () => {
    const p = new SandboxProvider({ apiKey: 'first' });
    expect((await call(p, '/accounts', { key: 'first' })).status).toBe(200);
    p.setApiKey('second');
    expect((await call(p, '/accounts', { key: 'first' })).status).toBe(403);
    expect((await call(p, '/accounts', { key: 'second' })).status).toBe(200);
  });

  it('matches on the pathname suffix, whatever the prefix', async () => {
    const r = await call(provider, '/accounts/4711/balance', { base: 'http://localhost:1/some/prefix' });
    expect(r.status).toBe(200);
    expect(r.json.balance.currency).toBe('GBP');
  });

  it('answers JSON 404 for unknown routes and accounts, 405 for other methods', async () => {
    const route = await call(provider, '/accounts/4711/statements');
    expect(route.status).toBe(404);
    expect(route.json).toMatchObject({ error: 'Not Found' });
    const account = await call(provider, '/accounts/999/balance');
    expect(account.status).toBe(404);
    expect(account.json).toEqual({ error: 'Not Found', message: 'Account not found.' });
    const post = await call(provider, '/accounts', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.json).toEqual({ error: 'Method Not Allowed', message: expect.any(String) });
    expect(post.headers.get('allow')).toBe('GET');
  });

  it('sends JSON content types and a Vercel-style request id', async () => {
    const r = await call(provider, '/accounts');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('x-vercel-id')).toMatch(/^\w+::\w+::[0-9a-f]{5}-\d+-[0-9a-f]{12}$/);
  });
});

describe('/accounts', () => {
  it('lists the default accounts with the real field names and gaps', async () => {
    const provider = new SandboxProvider();
    const { json } = await call(provider, '/accounts');
    expect(json.total).toBe(json.accounts.length);
    const byId = new Map<number, Record<string, unknown>>(
      json.accounts.map((a: { id: number }) => [a.id, a]),
    );
    expect([...byId.keys()]).toEqual([4711, 4712, 4713, 5001, 5002, 6001, 7001, 8001]);
    expect(byId.get(4711)).toEqual({
      id: 4711,
      connection_id: 88,
      name: 'Current Account',
      institution_name: 'Example Bank',
      institution_logo: expect.stringMatching(/^https:\/\//),
      provider: 'gocardless',
      currency: 'GBP',
      status: 'ACTIVE',
    });
    expect(byId.get(4712)).not.toHaveProperty('currency');
    expect(byId.get(4713)).not.toHaveProperty('institution_logo');
    expect(byId.get(5001)).toMatchObject({ provider: 'snaptrade', currency: 'USD', connection_id: 91 });
    expect(byId.get(6001)).toMatchObject({ status: 'DISCONNECTED', currency: 'EUR' });
    expect((await call(provider, '/accounts/4712/balance')).json.balance.currency).toBe('EUR');
    expect(provider.listAccounts().find((a) => a.id === '4712')).toMatchObject({
      currency: 'EUR',
      listedCurrency: null,
    });
  });
});

describe('balances', () => {
  function postedSum(p: SandboxProvider, id: string, decimals: number): bigint {
    let sum = 0n;
    for (const t of p.transactionsOf(id)) sum += toMinor(t.amount, decimals);
    return sum;
  }

  it('equal opening + every posted row, exactly, on several days', async () => {
    const p = new SandboxProvider();
    for (const days of [0, 1, 2, 17]) {
      p.advanceDays(days);
      for (const account of p.listAccounts()) {
        const d = decimalsOf(account.currency);
        const truth = p.balanceOf(account.id);
        expect(truth.amount).toMatch(d === 0 ? /^-?\d+$/ : new RegExp(`^-?\\d+\\.\\d{${d}}$`));
        expect(toMinor(truth.amount, d)).toBe(
          toMinor(account.openingBalance, d) + postedSum(p, account.id, d),
        );
        const wire = await call(p, `/accounts/${account.id}/balance`);
        expect(wire.json).toEqual({ balance: { amount: Number(truth.amount), currency: account.currency } });
      }
    }
  });

  it('keeps credit cards negative (owed)', () => {
    const p = new SandboxProvider();
    for (let i = 0; i < 40; i++) {
      expect(toMinor(p.balanceOf('4713').amount, 2)).toBeLessThan(0n);
      expect(toMinor(p.balanceOf('7001').amount, 0)).toBeLessThan(0n);
      p.advanceDays(9);
    }
  });

  it('honours custom accounts, opening balances and three-decimal currencies', async () => {
    const accounts: SandboxAccountSpec[] = [
      {
        id: 1,
        name: 'Dinar',
        institutionName: 'Gulf Bank',
        provider: 'finverse',
        currency: 'BHD',
        openingBalance: '10.125',
      },
    ];
    const p = new SandboxProvider({ accounts, historyDays: 60 });
    expect(p.listAccounts()).toEqual([
      expect.objectContaining({ id: '1', currency: 'BHD', openingBalance: '10.125', connectionId: null }),
    ]);
    expect(p.balanceOf(1).amount).toMatch(/^-?\d+\.\d{3}$/);
    expect(toMinor(p.balanceOf(1).amount, 3)).toBe(10125n + postedSum(p, '1', 3));
    const r = await call(p, '/accounts');
    expect(r.json.accounts[0]).not.toHaveProperty('connection_id');
    expect(() => new SandboxProvider({ accounts: [...accounts, ...accounts] })).toThrow(/Duplicate/);
  });

  it.each([
    [{ profile: 'checking' }, /profile must be one of current, .*isa/],
    [{ profile: 'toString' }, /profile must be one of/],
    [{ status: 'active' }, /status must be one of ACTIVE, DISCONNECTED, ERROR/],
    [{ currency: 'gbp' }, /currency must be an ISO 4217 code/],
    [{ currency: '' }, /currency must be an ISO 4217 code/],
  ])('refuses an account spec with %o, saying what it takes', (odd, message) => {
    const spec = { id: 1, name: 'A', institutionName: 'B', provider: 'gocardless', currency: 'GBP', ...odd };
    expect(() => new SandboxProvider({ accounts: [spec as SandboxAccountSpec] })).toThrow(message);
  });
});

describe('sandbox options', () => {
  it('refuses a history no calendar holds and a key no header can carry', () => {
    expect(() => new SandboxProvider({ historyDays: 1e9 })).toThrow(
      'historyDays must be a whole number from 0 to 36525, got 1000000000',
    );
    expect(() => new SandboxProvider({ historyDays: 36_525, transactionsPerDay: 0 })).not.toThrow();
    for (const apiKey of ['', '   ', 'a\nb'])
      expect(() => new SandboxProvider({ apiKey }), JSON.stringify(apiKey)).toThrow(TypeError);
    const p = new SandboxProvider();
    expect(() => p.setApiKey('')).toThrow(/non-empty string without control characters/);
  });
});

describe('holdings', () => {
  const p = new SandboxProvider();

  it('serves the brokerage positions with the documented shape', async () => {
    const r = await call(p, '/accounts/5001/holdings');
    expect(r.status).toBe(200);
    const truth = p.holdingsOf(5001)!;
    expect(r.json.currency).toBe('USD');
    expect(r.json.holdings.length).toBeGreaterThanOrEqual(3);
    expect(r.json.holdings.length).toBeLessThanOrEqual(5);
    expect(
      r.json.holdings.some((h: { security: { tickerSymbol: unknown } }) => h.security.tickerSymbol === null),
    ).toBe(true);
    expect(r.json.holdings.some((h: { costBasis: unknown }) => h.costBasis === null)).toBe(true);
    r.json.holdings.forEach((h: Record<string, any>, i: number) => {
      const t = truth.holdings[i]!;
      expect(Object.keys(h.security).sort()).toEqual([
        'currency',
        'cusp',
        'figi',
        'isin',
        'name',
        'tickerSymbol',
      ]);
      expect(h.raw).toEqual({ snaptrade: { id: t.id } });
      expect(t.id).toMatch(/^hld_[0-9a-f]{12}$/);
      expect(h.quantity).toBe(Number(t.quantity));
      expect(h.price).toBe(Number(t.price));
      expect(h.value).toBe(Number(t.value));
      expect(h.costBasis).toBe(t.costBasis === null ? null : Number(t.costBasis));
      // value is quantity × price rounded half-up to cents, computed exactly.
      const exact =
        toMinor(t.quantity.includes('.') ? t.quantity : `${t.quantity}.000`, 3) * toMinor(t.price, 2);
      expect(toMinor(t.value, 2)).toBe((exact + 500n) / 1000n);
    });
    const total = truth.holdings.reduce((sum, h) => sum + toMinor(h.value, 2), 0n);
    expect(toMinor(truth.totalValue, 2)).toBe(total);
    expect(r.json.totalValue).toBe(Number(truth.totalValue));
  });

  it('answers 501 for accounts without holdings support', async () => {
    for (const id of ['5002', '4711', '6001']) {
      const r = await call(p, `/accounts/${id}/holdings`);
      expect(r.status).toBe(501);
      expect(r.json).toEqual({
        error: 'Not Implemented',
        message: 'Holdings are not supported for this account.',
      });
      expect(p.holdingsOf(id)).toBeNull();
    }
  });
});

describe('request log', () => {
  it('records requests, caps the list and never caps the count', async () => {
    const p = new SandboxProvider({ logLimit: 3 });
    await call(p, '/accounts?x=1');
    await call(p, '/accounts/4711/balance', { key: null });
    await call(p, '/accounts/4711/transactions?from=2026-06-01&include_pending=true');
    await call(p, '/accounts/5002/holdings');
    await call(p, '/nowhere');
    expect(p.requestCount).toBe(5);
    expect(p.requests).toEqual([
      {
        method: 'GET',
        path: '/api/v1/accounts/4711/transactions',
        query: { from: '2026-06-01', include_pending: 'true' },
        status: 200,
      },
      { method: 'GET', path: '/api/v1/accounts/5002/holdings', query: {}, status: 501 },
      { method: 'GET', path: '/api/v1/nowhere', query: {}, status: 404 },
    ]);
    for (let i = 0; i < 10; i++) await call(p, '/accounts');
    expect(p.requests).toHaveLength(3);
    p.resetRequestLog();
    expect(p.requests).toEqual([]);
    expect(p.requestCount).toBe(0);
  });
});

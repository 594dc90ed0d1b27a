import { http, HttpResponse } from 'msw';
import { inspect } from 'node:util';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { InvalidResponseError, ProviderClient } from '../src/index.js';
import { BASE, KEY } from './helpers.js';

const server = useMswServer();
const client = () => new ProviderClient({ apiKey: KEY, rateLimit: false });

describe('listAccounts', () => {
  it('sends the key as x-api-key and normalizes the documented shape', async () => {
    let seenKey: string | null = null;
    server.use(
      http.get(`${BASE}/accounts`, ({ request }) => {
        seenKey = request.headers.get('x-api-key');
        return HttpResponse.json({
          accounts: [
            {
              id: 4711,
              connection_id: 88,
              name: 'Current Account',
              institution_name: 'Example Bank',
              institution_logo: 'https://cdn.example/eb.png',
              provider: 'gocardless',
              currency: 'GBP',
              status: 'ACTIVE',
            },
            {
              id: '4712',
              name: ' Credit Card ',
              institution_name: 'Example Bank',
              provider: 'GoCardless',
              status: 'disconnected',
            },
          ],
          total: 2,
        });
      }),
    );
    const accounts = await client().listAccounts();
    expect(seenKey).toBe(KEY);
    expect(accounts).toEqual([
      {
        id: '4711',
        connectionId: '88',
        name: 'Current Account',
        institutionName: 'Example Bank',
        institutionLogo: 'https://cdn.example/eb.png',
        provider: 'gocardless',
        currency: 'GBP',
        status: 'ACTIVE',
      },
      {
        id: '4712',
        connectionId: null,
        name: 'Credit Card',
        institutionName: 'Example Bank',
        institutionLogo: null,
        provider: 'gocardless',
        currency: null,
        status: 'DISCONNECTED',
      },
    ]);
  });

  it('names the bad field of a payload it cannot understand, and not the key', async () => {
    server.use(
      http.get(`${BASE}/accounts`, () =>
        HttpResponse.json({ accounts: [{ id: 1, name: 'ok' }, { name: 'no id' }], total: 2 }),
      ),
    );
    const error = await client()
      .listAccounts()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidResponseError);
    const invalid = error as InvalidResponseError;
    expect(invalid.issues[0]?.path).toBe('accounts[1].id');
    expect(invalid.message).toContain('accounts[1].id');
    expect(invalid.path).toBe('/accounts');
    expect(JSON.stringify(invalid) + inspect(invalid) + invalid.stack).not.toContain(KEY);
  });

  it('refuses a body that is not JSON with a typed error', async () => {
    server.use(
      http.get(
        `${BASE}/accounts`,
        () => new HttpResponse('{"accounts": [', { headers: { 'content-type': 'application/json' } }),
      ),
    );
    await expect(client().listAccounts()).rejects.toBeInstanceOf(InvalidResponseError);
  });
});

describe('getBalance', () => {
  it.each([
    [
      { balance: { amount: -412.07, currency: 'GBP' } },
      { amount: '-412.07', available: null, currency: 'GBP' },
    ],
    [
      { balance: { amount: '-412.070', currency: 'gbp' } },
      { amount: '-412.07', available: null, currency: 'GBP' },
    ],
    [
      { balance: { current: 100.5, available: 90, currency: 'EUR' } },
      { amount: '100.5', available: '90', currency: 'EUR' },
    ],
    [
      { balance: 100.0, currency: 'USD' },
      { amount: '100', available: null, currency: 'USD' },
    ],
  ])('normalizes %j', async (body, expected) => {
    server.use(http.get(`${BASE}/accounts/4711/balance`, () => HttpResponse.json(body)));
    await expect(client().getBalance(4711)).resolves.toEqual(expected);
  });

  it('requires an amount', async () => {
    server.use(
      http.get(`${BASE}/accounts/4711/balance`, () => HttpResponse.json({ balance: { currency: 'GBP' } })),
    );
    const error = (await client()
      .getBalance('4711')
      .catch((e: unknown) => e)) as InvalidResponseError;
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error.issues[0]?.path).toBe('balance.amount');
  });
});

describe('getHoldings', () => {
  it('normalizes holdings, reading the `cusp` spelling and the aggregator id', async () => {
    server.use(
      http.get(`${BASE}/accounts/5001/holdings`, () =>
        HttpResponse.json({
          holdings: [
            {
              security: {
                name: 'World Index ETF',
                tickerSymbol: 'WIDX',
                currency: 'USD',
                figi: null,
                cusp: '123456789',
                isin: null,
              },
              quantity: '12.5',
              price: 101.5,
              value: 1268.75,
              costBasis: null,
              currency: 'USD',
              raw: { quiltt: { id: 'hld_ab12' } },
            },
            { security: { name: 'Cash', tickerSymbol: null, currency: 'USD' }, quantity: 0 },
          ],
          totalValue: 1268.75,
          currency: 'USD',
        }),
      ),
    );
    const result = await client().getHoldings(5001);
    expect(result).toMatchObject({ supported: true, totalValue: '1268.75', currency: 'USD' });
    if (!result.supported) throw new Error('expected holdings');
    expect(result.holdings[0]).toMatchObject({
      providerId: 'hld_ab12',
      quantity: '12.5',
      price: '101.5',
      costBasis: null,
      security: { tickerSymbol: 'WIDX', cusip: '123456789' },
    });
    expect(result.holdings[1]).toMatchObject({
      providerId: null,
      quantity: '0',
      price: null,
      currency: 'USD',
    });
  });

  it('gives a position without a currency of its own or its security the envelope currency', async () => {
    server.use(
      http.get(`${BASE}/accounts/5003/holdings`, () =>
        HttpResponse.json({
          holdings: [
            { security: { name: 'Fund A', tickerSymbol: 'FNDA' }, quantity: 3, value: 30 },
            { security: { name: 'Fund B', currency: 'usd' }, quantity: 1, value: 10 },
            { security: null, quantity: 2, value: 20, currency: 'chf' },
          ],
          totalValue: 60,
          currency: 'eur',
        }),
      ),
    );
    const result = await client().getHoldings(5003);
    if (!result.supported) throw new Error('expected holdings');
    expect(result.holdings.map((h) => h.currency)).toEqual(['EUR', 'USD', 'CHF']);
  });

  it('reads a blank aggregator id as none, as a blank transaction id is', async () => {
    server.use(
      http.get(`${BASE}/accounts/5005/holdings`, () =>
        HttpResponse.json({
          holdings: [
            { security: { name: 'A' }, quantity: 1, raw: { snaptrade: { id: '' } } },
            { security: { name: 'B' }, quantity: 1, raw: { snaptrade: { id: '   ' } } },
            { security: { name: 'C' }, quantity: 1, raw: { snaptrade: { id: 'h_3' } } },
          ],
        }),
      ),
    );
    const result = await client().getHoldings(5005);
    if (!result.supported) throw new Error('expected holdings');
    // Blank, they keyed every such holding `id:`, and keys passed between securities.
    expect(result.holdings.map((h) => h.providerId)).toEqual([null, null, 'h_3']);
  });

  it('leaves the currency null when neither the position, its security nor the envelope names one', async () => {
    server.use(
      http.get(`${BASE}/accounts/5004/holdings`, () =>
        HttpResponse.json({ holdings: [{ security: { name: 'Fund A' }, quantity: 3 }] }),
      ),
    );
    const result = await client().getHoldings(5004);
    if (!result.supported) throw new Error('expected holdings');
    expect(result).toMatchObject({ currency: null, totalValue: null });
    expect(result.holdings[0]?.currency).toBeNull();
  });

  it.each([501, 404])('answers %i with supported: false instead of throwing', async (status) => {
    server.use(
      http.get(`${BASE}/accounts/5002/holdings`, () =>
        HttpResponse.json({ error: 'Not Implemented', message: 'Holdings not supported' }, { status }),
      ),
    );
    await expect(client().getHoldings(5002)).resolves.toMatchObject({ supported: false, status });
  });
});

describe('the key stays private', () => {
  it('is absent from inspect and JSON of the client', () => {
    const c = client();
    expect(inspect(c, { showHidden: true, depth: 10 })).not.toContain(KEY);
    expect(JSON.stringify(c)).not.toContain(KEY);
  });

  it('refuses an empty key', () => {
    expect(() => new ProviderClient({ apiKey: ' ' })).toThrow(TypeError);
  });

  it('refuses a key no HTTP header can carry at once, without quoting it', () => {
    const make = () => new ProviderClient({ apiKey: `${KEY}\nx` });
    expect(make).toThrow(TypeError);
    expect(make).toThrow(/control character/);
    expect(make).not.toThrow(KEY);
    // Past U+00FF: each request failed as a connection error, retried, with fetch's message.
    const euro = () => new ProviderClient({ apiKey: `${KEY}€` });
    expect(euro).toThrow(/no HTTP header can carry/);
    expect(euro).not.toThrow(KEY);
    expect(() => new ProviderClient({ apiKey: `${KEY}é` })).not.toThrow();
  });
});

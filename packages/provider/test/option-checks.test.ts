import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it } from 'vitest';
import { ProviderClient, type ProviderClientOptions } from '../src/index.js';
import { BASE, KEY } from './helpers.js';

const server = useMswServer();
const make = (options: Record<string, unknown>) => () =>
  new ProviderClient({ apiKey: KEY, rateLimit: false, ...(options as Partial<ProviderClientOptions>) });

/** Answers every request with no rows, and keeps the query of each. */
function serveEmpty(): Array<{ from: string | null; to: string | null }> {
  const asked: Array<{ from: string | null; to: string | null }> = [];
  server.use(
    http.get(`${BASE}/accounts/:id/*`, ({ request }) => {
      const url = new URL(request.url);
      asked.push({ from: url.searchParams.get('from'), to: url.searchParams.get('to') });
      return HttpResponse.json({ transactions: [], total: 0, balance: { amount: 1, currency: 'EUR' } });
    }),
  );
  return asked;
}

describe('windowDays given to one call', () => {
  // 0 and -3 walked the same day for ever; "7" was added to a date as text and skipped days.
  it.each([0, -3, '7', 1.5, NaN, 36_526, 1e9])(
    'refuses %o at once, as the constructor does',
    (windowDays) => {
      const asked = serveEmpty();
      const list = () =>
        make({})().listTransactions(4711, {
          from: '2026-01-01',
          to: '2026-01-10',
          windowDays: windowDays as number,
        });
      expect(list).toThrow(RangeError);
      const got = typeof windowDays === 'string' ? JSON.stringify(windowDays) : String(windowDays);
      expect(list).toThrow(`windowDays must be a whole number of days from 1 to 36525, got ${got}`);
      expect(make({ windowDays })).toThrow(RangeError);
      expect(asked).toHaveLength(0);
    },
  );

  it('takes a century in one window', async () => {
    const asked = serveEmpty();
    const list = make({})().listTransactions(4711, {
      from: '1950-01-01',
      to: '2026-01-10',
      windowDays: 36_525,
    });
    await list.toArray({ limit: 1 });
    expect(asked).toEqual([{ from: '1950-01-01', to: '2026-01-10' }]);
  });

  it('walks a range up to 9999-12-31 without making a date past it', async () => {
    const asked = serveEmpty();
    await make({})().listTransactions(4711, { from: '9999-10-01', to: '9999-12-31' }).toArray({ limit: 1 });
    expect(asked).toEqual([
      { from: '9999-10-01', to: '9999-10-02' },
      { from: '9999-10-03', to: '9999-12-31' },
    ]);
  });

  it('widens a window for a time zone only as far as the calendar goes', async () => {
    const asked = serveEmpty();
    await make({ timeZone: 'Europe/London' })()
      .listTransactions(4711, { from: '9999-12-01', to: '9999-12-31' })
      .toArray({ limit: 1 });
    expect(asked).toEqual([{ from: '9999-11-29', to: '9999-12-31' }]);
  });
});

describe('constructor options', () => {
  it.each([
    ['timeoutMs', -1, /timeoutMs must be a positive number of milliseconds up to 2147483647.*got -1$/],
    ['timeoutMs', 0, /got 0$/],
    ['timeoutMs', NaN, /got NaN$/],
    ['timeoutMs', 'abc', /got "abc"$/],
    ['timeoutMs', Infinity, /got Infinity$/],
    ['timeoutMs', 1e12, /got 1000000000000$/],
    ['maxRetries', -1, /^maxRetries must be a whole number from 0 to 10, got -1$/],
    ['maxRetries', 11, /got 11$/],
    ['maxRetries', 1e9, /got 1000000000$/],
    ['maxRetries', 1.5, /got 1.5$/],
    ['maxRetries', '2', /got "2"$/],
    ['maxRetries', Infinity, /got Infinity$/],
    [
      'maxRetryAfterMs',
      -1,
      /^maxRetryAfterMs must be a number of milliseconds from 0 up to 2147483647.*got -1$/,
    ],
    ['maxRetryAfterMs', Infinity, /got Infinity$/],
    [
      'rateLimit',
      { limit: 0, intervalMs: 1000 },
      /^rateLimit.limit must be a whole number of calls of at least 1, got 0$/,
    ],
    ['rateLimit', { limit: -1, intervalMs: 1000 }, /got -1$/],
    ['rateLimit', { limit: '5', intervalMs: 1000 }, /got "5"$/],
    [
      'rateLimit',
      { limit: 5 },
      /^rateLimit.intervalMs must be a positive number of milliseconds.*got undefined$/,
    ],
    ['rateLimit', { limit: 5, intervalMs: 0 }, /got 0$/],
    ['rateLimit', { limit: 5, intervalMs: 2 ** 31 }, /got 2147483648$/],
    [
      'timeZone',
      'Not/AZone',
      /^timeZone must be an IANA time zone name such as Europe\/London, got "Not\/AZone"$/,
    ],
    ['timeZone', '', /got ""$/],
  ])('refuses %s: %o with a RangeError naming it and the value', (name, value, message) => {
    expect(make({ [name]: value })).toThrow(RangeError);
    expect(make({ [name]: value })).toThrow(message);
  });

  it.each([
    ['rateLimit', true, /^rateLimit must be \{ limit, intervalMs \} or false, got true$/],
    ['rateLimit', 90, /got 90$/],
    ['timeZone', 60, /^timeZone must be an IANA time zone name such as Europe\/London, got 60$/],
    [
      'baseUrl',
      '',
      /^baseUrl must be an absolute http\(s\) URL such as https:\/\/www.lunchflow.app\/api\/v1, got ""$/,
    ],
    ['baseUrl', 'not a url', /got "not a url"$/],
    ['baseUrl', 'ftp://example.com/api', /got "ftp:\/\/example.com\/api"$/],
    ['baseUrl', 'file:///etc/passwd', /got "file:\/\/\/etc\/passwd"$/],
    ['baseUrl', 42, /got 42$/],
    // A password in the URL is refused without being repeated (fetch would quote it in every error).
    [
      'baseUrl',
      'http://bob:pw0rdSECRET@127.0.0.1:9/api/v1',
      /^baseUrl must not hold a user name or password \(http:\/\/127\.0\.0\.1:9\); the provider is authenticated by apiKey$/,
    ],
    ['baseUrl', 'ftp://bob:pw0rdSECRET@example.com/api', /got "ftp:\/\/example\.com\/api"$/],
    // Nor when the rest does not parse (a port out of range, a space in the host).
    [
      'baseUrl',
      'https://bob:pw0rdSECRET@api.example.com:99999/v1',
      /got "https:\/\/api\.example\.com:99999\/v1"$/,
    ],
    ['baseUrl', 'https://bob:pw0rd@SECRET@exa mple.com/', /got "https:\/\/exa mple\.com\/"$/],
    // Paths are appended to it: a query or a fragment would swallow them. Refused without the query,
    // which may hold a token.
    [
      'baseUrl',
      'http://127.0.0.1:9/api/v1?token=SECRETabc',
      /^baseUrl must not hold a query or a fragment \(http:\/\/127\.0\.0\.1:9\/api\/v1\); request paths are appended to it$/,
    ],
    ['baseUrl', 'http://127.0.0.1:9/api/v1#frag', /must not hold a query or a fragment/],
    ['baseUrl', 'http://127.0.0.1:9/api/v1?', /must not hold a query or a fragment/],
  ])('refuses %s: %o with a TypeError naming it and the value', (name, value, message) => {
    expect(make({ [name]: value })).toThrow(TypeError);
    expect(make({ [name]: value })).toThrow(message);
  });

  it('never repeats the key, even when it is given as another option', () => {
    const make2 = make({ baseUrl: `x${KEY}` });
    expect(make2).toThrow(TypeError);
    expect(make2).not.toThrow(KEY);
  });

  it('takes the bounds themselves and the documented values', () => {
    for (const options of [
      { timeoutMs: 2 ** 31 - 1, maxRetries: 0, maxRetryAfterMs: 0, windowDays: 1 },
      { timeoutMs: 0.5, maxRetries: 10, maxRetryAfterMs: 2 ** 31 - 1, windowDays: 36_525 },
      { rateLimit: { limit: 1, intervalMs: 1 }, timeZone: 'UTC', baseUrl: 'http://127.0.0.1:9/api/v1/' },
      { rateLimit: false, timeZone: 'Pacific/Kiritimati' },
    ]) {
      expect(make(options)).not.toThrow();
    }
    expect(make({ baseUrl: 'http://127.0.0.1:9/api/v1/' })().baseUrl).toBe('http://127.0.0.1:9/api/v1');
  });
});

/** What `call` threw or rejected with, or `undefined`. */
async function thrownBy(call: () => unknown): Promise<unknown> {
  try {
    await call();
    return undefined;
  } catch (error) {
    return error;
  }
}

describe('account ids', () => {
  const calls = (id: unknown): Array<() => unknown> => {
    const client = make({})();
    return [
      () => client.getBalance(id as string),
      () => client.getHoldings(id as string),
      () => client.listTransactions(id as string, { from: '2026-01-01', to: '2026-01-02' }),
      () => client.listTransactions(id as string),
    ];
  };

  it.each([
    ['', TypeError, /^accountId must be a non-empty string, got ""$/],
    ['  ', TypeError, /got " {2}"$/],
    [undefined, TypeError, /^accountId must be a non-empty string or a whole number, got undefined$/],
    [null, TypeError, /got null$/],
    [{}, TypeError, /got an object$/],
    [['4711'], TypeError, /got an array$/],
    [-1, RangeError, /^accountId must be a whole number of at least 0 or a non-empty string, got -1$/],
    [1.5, RangeError, /got 1.5$/],
    [NaN, RangeError, /got NaN$/],
    ['\uD800', TypeError, /^accountId must be valid Unicode text \(it holds an unpaired UTF-16 surrogate\)/],
    ['ab\uDC00', TypeError, /unpaired UTF-16 surrogate/],
  ])('refuses %o before any request', async (id, type, message) => {
    const asked = serveEmpty();
    for (const call of calls(id)) {
      const error = await thrownBy(call);
      expect(error).toBeInstanceOf(type);
      expect((error as Error).message).toMatch(message);
    }
    expect(asked).toHaveLength(0);
  });

  it('refuses an id over 256 characters, and names only its start', async () => {
    const asked = serveEmpty();
    const id = `${'x'.repeat(300)}END`;
    for (const call of calls(id)) {
      const error = (await thrownBy(call)) as Error;
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toBe(
        `accountId must be at most 256 characters, got 303 starting "${'x'.repeat(40)}…"`,
      );
    }
    expect(asked).toHaveLength(0);
  });

  it('sends the ids it takes: 256 characters, a pair of surrogates, a whole number', async () => {
    serveEmpty();
    const client = make({})();
    for (const id of ['y'.repeat(256), 'café 😀', 4711, 0])
      await expect(client.getBalance(id)).resolves.toBeDefined();
  });
});

describe('fetch and logger', () => {
  it.each([
    ['fetch', 42, /^fetch must be a function \(a fetch implementation\), got 42$/],
    ['fetch', 'fetch', /got "fetch"$/],
    ['fetch', {}, /got an object$/],
    [
      'logger',
      'yes',
      /^logger must be an object with some of the methods debug, info, warn and error \(console works\), got "yes"$/,
    ],
    ['logger', true, /got true$/],
    ['logger', console.log, /got a function$/],
    ['logger', [], /got an array$/],
    ['logger', { warn: 'loud' }, /^logger.warn must be a function, got "loud"$/],
    ['logger', { debug: () => {}, error: 1 }, /^logger.error must be a function, got 1$/],
  ])('refuses %s: %o with a TypeError naming it and the value', (name, value, message) => {
    expect(make({ [name]: value })).toThrow(TypeError);
    expect(make({ [name]: value })).toThrow(message);
  });

  it('never repeats the key given as fetch or logger', () => {
    for (const name of ['fetch', 'logger']) {
      expect(make({ [name]: KEY })).toThrow(TypeError);
      expect(make({ [name]: KEY })).not.toThrow(KEY);
    }
  });

  it('takes a fetch function and loggers with some or all of the methods', async () => {
    serveEmpty();
    const lines: string[] = [];
    const logger = { debug: (message: string) => lines.push(message) };
    const fetches: string[] = [];
    const client = make({
      logger,
      fetch: (input: RequestInfo | URL, init?: RequestInit) => {
        fetches.push(input instanceof Request ? input.url : String(input));
        return globalThis.fetch(input, init);
      },
    })();
    await expect(client.getBalance(4711)).resolves.toBeDefined();
    expect(fetches).toHaveLength(1);
    expect(lines.length).toBeGreaterThan(0);
    for (const options of [
      { logger: console },
      { logger: {} },
      { logger: { info: undefined } },
      { fetch: undefined },
    ])
      expect(make(options)).not.toThrow();
  });
});

describe("a call's signal", () => {
  const calls = (signal: unknown): Array<() => unknown> => {
    const client = make({})();
    const options = { signal: signal as AbortSignal };
    return [
      () => client.listAccounts(options),
      () => client.getBalance(4711, options),
      () => client.getHoldings(4711, options),
      () => client.listTransactions(4711, { from: '2026-01-01', to: '2026-01-02', ...options }),
      () => client.listTransactions(4711, options),
    ];
  };

  it.each([
    ['nope', /^signal must be an AbortSignal, got "nope"$/],
    [42, /got 42$/],
    [{ aborted: false }, /got an object$/],
    [new AbortController(), /got an object$/],
  ])('refuses %o with a TypeError before any request', async (signal, message) => {
    const asked = serveEmpty();
    for (const call of calls(signal)) {
      const error = await thrownBy(call);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(message);
    }
    expect(asked).toHaveLength(0);
  });

  it('refuses it when the list is made, not when it is walked', () => {
    serveEmpty();
    const list = () => make({})().listTransactions(4711, { signal: 'nope' as unknown as AbortSignal });
    expect(list).toThrow(TypeError);
  });

  it('takes an AbortSignal, or none', async () => {
    serveEmpty();
    server.use(http.get(`${BASE}/accounts`, () => HttpResponse.json({ accounts: [], total: 0 })));
    const client = make({})();
    for (const signal of [new AbortController().signal, AbortSignal.timeout(60_000), undefined, null]) {
      const options = { signal: signal as AbortSignal };
      await expect(client.listAccounts(options)).resolves.toBeDefined();
      await expect(client.getBalance(4711, options)).resolves.toBeDefined();
      await expect(
        client
          .listTransactions(4711, { from: '2026-01-01', to: '2026-01-02', ...options })
          .toArray({ limit: 1 }),
      ).resolves.toEqual([]);
    }
  });
});

describe('toArray({ limit })', () => {
  const list = () => make({})().listTransactions(4711, { from: '2026-01-01', to: '2026-01-10' });
  const toArray = (options: unknown) => list().toArray(options as { limit: number });

  it.each([undefined, null, 5, 'all'])(
    'without options (%o) is a TypeError naming limit',
    async (options) => {
      const asked = serveEmpty();
      const error = await thrownBy(() => toArray(options));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(
        /^toArray needs options \{ limit \}, a non-negative integer; got /,
      );
      expect(asked).toHaveLength(0);
    },
  );

  it.each([
    [{}, 'undefined'],
    [{ limit: -1 }, '-1'],
    [{ limit: 1.5 }, '1.5'],
    [{ limit: NaN }, 'NaN'],
    [{ limit: Infinity }, 'Infinity'],
    [{ limit: '10' }, '"10"'],
  ])('%o is a RangeError naming the value, before any request', async (options, got) => {
    const asked = serveEmpty();
    const error = await thrownBy(() => toArray(options));
    expect(error).toBeInstanceOf(RangeError);
    expect((error as Error).message).toBe(`toArray needs a limit: a non-negative integer; got ${got}`);
    expect(asked).toHaveLength(0);
  });

  it('takes a limit of 0 for a list with no rows', async () => {
    serveEmpty();
    await expect(toArray({ limit: 0 })).resolves.toEqual([]);
  });
});

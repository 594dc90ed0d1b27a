/**
 * What the constructor refuses: credentials in baseUrl, a timeout no timer can hold, retries without
 * bound, a fetch or logger of the wrong kind; and what a call refuses: a signal that is not one.
 */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ServiceClient, type ServiceClientOptions } from '../src/index.js';
import { BASE, KEY, TX_ID, settle } from './helpers.js';

const make = (options: Partial<ServiceClientOptions>) =>
  new ServiceClient({ baseUrl: BASE, apiKey: KEY, ...options } as ServiceClientOptions);

function thrown(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('did not throw');
}

describe('baseUrl', () => {
  it.each([
    ['a user and a password', 'http://user:s3cret-pw@localhost:3000'],
    ['a password only', 'http://:s3cret-pw@localhost:3000'],
    ['a user only', 'https://s3cret-pw@service.example/api/v1'],
  ])('with %s is a TypeError that does not echo them', (_, baseUrl) => {
    const error = thrown(() => make({ baseUrl }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/baseUrl must not hold a user name or password/);
    for (const text of [error.message, String(error.stack), JSON.stringify(error), inspect(error)]) {
      expect(text).not.toContain('s3cret-pw');
    }
  });

  it('without credentials is kept as given (no "@" anywhere)', () => {
    const client = make({ baseUrl: 'http://localhost:3000/api/v1' });
    expect(client.baseUrl).toBe('http://localhost:3000');
    expect(inspect(client)).not.toContain('@');
  });
});

describe('timeoutMs', () => {
  it.each([Infinity, -Infinity, 1e12, 2 ** 31, 0, 0.5, -1, Number.NaN])(
    '%s is a RangeError naming the option and the value',
    (timeoutMs) => {
      const error = thrown(() => make({ timeoutMs }));
      expect(error).toBeInstanceOf(RangeError);
      expect(error.message).toContain('timeoutMs');
      expect(error.message).toContain(String(timeoutMs));
      expect(error.message).toContain('2147483647');
    },
  );

  it.each(['5000', true, {}])('%j (not a number) is a TypeError naming the option', (timeoutMs) => {
    const error = thrown(() => make({ timeoutMs: timeoutMs as never }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(/timeoutMs must be a number of milliseconds, got /);
  });

  it('accepts 1 ms up to 2^31 − 1 ms', () => {
    for (const timeoutMs of [1, 1.5, 30_000, 2 ** 31 - 1]) expect(() => make({ timeoutMs })).not.toThrow();
  });
});

describe('maxRetries and maxRetryAfterMs', () => {
  it.each([
    ['maxRetries', -1, /^maxRetries must be a whole number from 0 to 10, got -1$/],
    ['maxRetries', 11, /got 11$/],
    ['maxRetries', 1e9, /got 1000000000$/],
    ['maxRetries', 1.5, /got 1.5$/],
    ['maxRetries', Infinity, /got Infinity$/],
    ['maxRetries', '2', /got "2"$/],
    [
      'maxRetryAfterMs',
      Infinity,
      /^maxRetryAfterMs must be a number of milliseconds from 0 up to 2147483647 \(what a timer can wait\), got Infinity$/,
    ],
    ['maxRetryAfterMs', 2 ** 31, /got 2147483648$/],
    ['maxRetryAfterMs', -1, /got -1$/],
    ['maxRetryAfterMs', NaN, /got NaN$/],
    ['maxRetryAfterMs', '5', /got "5"$/],
  ])('%s: %o is a RangeError naming the option and the value', (name, value, message) => {
    const error = thrown(() => make({ [name]: value }));
    expect(error).toBeInstanceOf(RangeError);
    expect(error.message).toMatch(message);
  });

  it('names an option given the key by mistake without repeating the key', () => {
    for (const name of ['maxRetries', 'maxRetryAfterMs', 'timeoutMs']) {
      const error = thrown(() => make({ [name]: KEY }));
      expect(error.message, name).toContain(`${name} must be`);
      expect(error.message, name).toContain('[REDACTED]');
      expect(error.message, name).not.toContain(KEY.slice(0, 12));
    }
  });

  it('accepts the bounds themselves', () => {
    for (const options of [
      { maxRetries: 0, maxRetryAfterMs: 0 },
      { maxRetries: 10, maxRetryAfterMs: 2 ** 31 - 1 },
    ]) {
      expect(() => make(options)).not.toThrow();
    }
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
  ])('%s: %o is a TypeError naming the option and the value', (name, value, message) => {
    const error = thrown(() => make({ [name]: value }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error.message).toMatch(message);
  });

  it('never repeats the key given as fetch or logger, nor more than 40 characters', () => {
    for (const name of ['fetch', 'logger']) {
      const error = thrown(() => make({ [name]: KEY }));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).not.toContain(KEY);
      expect(thrown(() => make({ [name]: 'x'.repeat(100) })).message).toContain(`"${'x'.repeat(40)}…"`);
    }
  });

  it('takes a fetch function and loggers with some or all of the methods', async () => {
    const lines: string[] = [];
    const fetches: string[] = [];
    const client = make({
      logger: { debug: (message: string) => void lines.push(message) },
      fetch: async (input: RequestInfo | URL) => {
        fetches.push(input instanceof Request ? input.url : String(input));
        return Response.json({ tags: [] });
      },
    });
    await expect(client.tags.list()).resolves.toEqual([]);
    expect(fetches).toEqual([`${BASE}/api/v1/tags`]);
    expect(lines.length).toBeGreaterThan(0);
    for (const options of [
      { logger: console },
      { logger: {} },
      { logger: { info: undefined } },
      { fetch: undefined },
    ])
      expect(() => make(options)).not.toThrow();
  });
});

describe("a call's signal", () => {
  /** A client whose every request is recorded (and answered with an empty list or a row). */
  function recording() {
    const sent: string[] = [];
    const client = make({
      maxRetries: 0,
      fetch: async (input: RequestInfo | URL) => {
        const url = input instanceof Request ? input.url : String(input);
        sent.push(url);
        const pagination = { page: 1, per_page: 25, total_count: 0, total_pages: 1 };
        return Response.json({
          transactions: [],
          accounts: [],
          categories: [],
          tags: [],
          merchants: [],
          pagination,
        });
      },
    });
    return { client, sent };
  }

  const calls = (client: ServiceClient, signal: unknown): Array<() => unknown> => {
    const options = { signal: signal as AbortSignal };
    const tx = client.transactions;
    return [
      () => tx.get(TX_ID, options),
      () => tx.create({ account_id: TX_ID, date: '2026-01-01', amount: '1', name: 'x' }, options),
      () => tx.update(TX_ID, { notes: 'x' }, options),
      () => tx.delete(TX_ID, options),
      () => tx.restore(TX_ID, options),
      () => tx.list({}, options),
      () => tx.listDeleted({}, options),
      () => client.accounts.list({}, options),
      () => client.categories.list({}, options),
      () => client.merchants.list(options),
      () => client.tags.list(options),
      () => client.tags.create({ name: 'x' }, options),
      () => client.request({ method: 'GET', path: 'tags', ...options }),
    ];
  };

  it.each([
    ['nope', /^signal must be an AbortSignal, got "nope"$/],
    [42, /got 42$/],
    [{ aborted: false }, /got an object$/],
    [new AbortController(), /got an object$/],
  ])('%o is a TypeError on every call, before anything is sent', async (signal, message) => {
    const { client, sent } = recording();
    for (const call of calls(client, signal)) {
      const error = (await settle(Promise.resolve().then(call))) as Error;
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message).toMatch(message);
    }
    expect(sent).toEqual([]);
  });

  it('is checked when a list is made, as its params are', () => {
    const { client } = recording();
    const nope = { signal: 'nope' as unknown as AbortSignal };
    expect(() => client.transactions.list({}, nope)).toThrow(TypeError);
    expect(() => client.transactions.listDeleted({}, nope)).toThrow(TypeError);
    expect(() => client.accounts.list({}, nope)).toThrow(TypeError);
    expect(() => client.categories.list({}, nope)).toThrow(TypeError);
  });

  it('takes an AbortSignal, or none', async () => {
    const { client, sent } = recording();
    for (const signal of [new AbortController().signal, AbortSignal.timeout(60_000), undefined, null]) {
      const options = { signal: signal as AbortSignal };
      await expect(client.tags.list(options)).resolves.toEqual([]);
      await expect(client.transactions.list({}, options).toArray({ limit: 1 })).resolves.toEqual([]);
    }
    expect(sent).toHaveLength(8);
  });
});

/** What the constructor refuses: credentials in baseUrl, a timeout no timer can hold. */
import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ServiceClient, type ServiceClientOptions } from '../src/index.js';
import { BASE, KEY } from './helpers.js';

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

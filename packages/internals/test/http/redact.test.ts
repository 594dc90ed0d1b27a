import { describe, expect, it } from 'vitest';
import { excerpt, quotesSecret, redact, safeCause } from '../../src/http/redact.js';
import { errorOptions, requestErrorJSON } from '../../src/http/error-base.js';

const KEY = 'sk_live_0123456789';

describe('redact and excerpt', () => {
  it('masks every occurrence of the key, but not a key too short to be one', () => {
    expect(redact(`a ${KEY} b ${KEY}`, KEY)).toBe('a [REDACTED] b [REDACTED]');
    expect(redact('abc', 'ab')).toBe('abc');
  });

  it('masks the key in every form a server may echo it in: JSON-escaped, percent-encoded, in a URL', () => {
    const key = 'lf_AbC/dEf+"q"\\x é';
    const echoes = [
      JSON.stringify({ key }),
      JSON.stringify({ key }).replaceAll('/', '\\/'),
      `?api_key=${encodeURIComponent(key)}`,
      `?api_key=${encodeURIComponent(key).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase())}`,
      new URL(`http://evil.example/steal?api_key=${key}`).toString(),
      new URL(`http://evil.example/moved/${key}/accounts`).toString(),
    ];
    for (const echo of echoes) {
      const masked = redact(echo, key);
      expect(masked, echo).toContain('[REDACTED]');
      // Nothing of the key is left to decode back to it.
      expect(masked, echo).not.toContain('AbC');
      expect(quotesSecret(new Error(echo), key), echo).toBe(true);
    }
  });

  it('masks before cutting, so a cut never leaves part of the key', () => {
    const text = `${'x'.repeat(8)}${KEY}`;
    expect(excerpt(text, KEY, 12)).toBe('xxxxxxxx[RED…');
  });
});

describe('what an error keeps as its cause', () => {
  it('drops an error that carries the request, its options or headers', () => {
    const kyLike = Object.assign(new Error('boom'), { request: new Request('https://x.test/') });
    expect(safeCause(kyLike)).toBeUndefined();
    expect(safeCause(Object.assign(new Error('boom'), { options: {} }))).toBeUndefined();
    expect(safeCause(Object.assign(new Error('boom'), { headers: {} }))).toBeUndefined();
    expect(errorOptions({ cause: kyLike })).toBeUndefined();
  });

  it('drops an error with such an error anywhere among its causes, or too many causes to search', () => {
    const kyLike = Object.assign(new Error('boom'), { request: new Request('https://x.test/') });
    const wrapped = new Error('a', { cause: new Error('b', { cause: kyLike }) });
    expect(safeCause(wrapped)).toBeUndefined();
    let long = new Error('bottom');
    for (let depth = 0; depth < 7; depth++) long = new Error(`level ${depth}`, { cause: long });
    expect(safeCause(long)).toBe(long);
    const longer = new Error('top', { cause: long });
    expect(safeCause(longer)).toBeUndefined();
  });

  it('keeps any other cause', () => {
    const plain = new TypeError('fetch failed');
    expect(errorOptions({ cause: plain })).toEqual({ cause: plain });
    expect(errorOptions({ cause: 'a reason' })).toEqual({ cause: 'a reason' });
    expect(errorOptions({})).toBeUndefined();
  });

  it('counts the key as quoted wherever a logger would print it, and keeps an ordinary cause', () => {
    const holding = [
      Object.assign(new Error('x'), { [Symbol('sent')]: { 'x-api-key': KEY } }),
      Object.assign(new Error('x'), {
        req: new Request('https://example.test/', { headers: { 'x-api-key': KEY } }),
      }),
      Object.assign(new Error('x'), { target: new URL(`https://example.test/?key=${KEY}`) }),
      Object.assign(new Error('x'), { body: Buffer.from(`{"key":"${KEY}"}`) }),
      new Error('outer', {
        cause: Object.assign(new Error('inner'), { sent: new Map([['x-api-key', KEY]]) }),
      }),
    ];
    for (const error of holding) expect(quotesSecret(error, KEY)).toBe(true);
    let chain = new Error('link 0');
    for (let i = 1; i < 8; i += 1) chain = new Error(`link ${i}`, { cause: chain });
    const ordinary = [
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
        errno: -111,
        code: 'ECONNREFUSED',
        syscall: 'connect',
        address: '127.0.0.1',
        port: 1,
      }),
      Object.assign(new Error('x'), { body: Buffer.alloc(3_000, 'a') }),
      chain,
    ];
    for (const error of ordinary) expect(quotesSecret(error, KEY)).toBe(false);
  });

  it('serializes the request fields and nothing else', () => {
    const error = Object.assign(new Error('m', { cause: new Error('c') }), {
      method: 'GET',
      path: '/x',
      retries: 2,
    });
    expect(requestErrorJSON(error)).toEqual({
      name: 'Error',
      message: 'm',
      method: 'GET',
      path: '/x',
      retries: 2,
    });
  });
});

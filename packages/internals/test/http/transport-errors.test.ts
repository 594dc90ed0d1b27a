import { TimeoutError as KyTimeoutError } from 'ky';
import { describe, expect, it } from 'vitest';
import { errorOptions, type RequestErrorContext } from '../../src/http/error-base.js';
import { toTransportError } from '../../src/http/transport-errors.js';

class BaseError extends Error {
  readonly context: RequestErrorContext;
  constructor(message: string, context: RequestErrorContext = {}) {
    super(message, errorOptions(context));
    this.context = context;
  }
}
class Aborted extends BaseError {}
class Connection extends BaseError {}
class Timeout extends Connection {}

const KEY = 'sk_live_0123456789';
const settings = (signal?: AbortSignal) => ({
  signal,
  timeoutMs: 1000,
  apiKey: KEY,
  errors: { base: BaseError, aborted: Aborted, timeout: Timeout, connection: Connection },
});
const request = { method: 'GET', path: '/accounts' };

describe('toTransportError', () => {
  it('passes the client’s own errors through', () => {
    const own = new BaseError('judged already');
    expect(toTransportError(own, request, settings())).toBe(own);
  });

  it('reports an abort as the caller’s, with the reason as cause', () => {
    const controller = new AbortController();
    controller.abort(new Error('user gave up'));
    const error = toTransportError(new Error('AbortError'), request, settings(controller.signal));
    expect(error).toBeInstanceOf(Aborted);
    expect((error.cause as Error).message).toBe('user gave up');
  });

  it('turns ky’s timeout into the client’s', () => {
    const kyTimeout = new KyTimeoutError(
      new Request('https://x.test/accounts', { headers: { 'x-api-key': KEY } }),
    );
    const error = toTransportError(kyTimeout, request, settings());
    expect(error).toBeInstanceOf(Timeout);
    expect(error.message).toBe('GET /accounts got no response within 1000 ms');
    expect(error.cause).toBeUndefined();
  });

  it('names the network reason (fetch puts it in the cause) and keeps a cause that holds no request', () => {
    const refused = new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:9') });
    const error = toTransportError(refused, request, settings());
    expect(error).toBeInstanceOf(Connection);
    expect(error.message).toBe('GET /accounts failed to connect: connect ECONNREFUSED 127.0.0.1:9');
    expect(error.cause).toBe(refused);
  });

  it('masks the key in the reason, and drops a cause that holds the request', () => {
    const carrying = Object.assign(new Error(`bad header ${KEY}`), { request: {} });
    const error = toTransportError(carrying, request, settings());
    expect(error.message).toBe('GET /accounts failed to connect: bad header [REDACTED]');
    expect(error.cause).toBeUndefined();
  });
});

describe('toTransportError and a reason that quotes the key', () => {
  it('masks the key in the message and drops the cause that holds it', () => {
    // What fetch throws for a key no header can carry.
    const refused = new TypeError(`Headers.set: "${KEY}\nx" is an invalid header value.`);
    const error = toTransportError(refused, request, settings());
    expect(error).toBeInstanceOf(Connection);
    expect(error.message).not.toContain(KEY);
    expect(error.cause).toBeUndefined();
    expect(JSON.stringify(error)).not.toContain(KEY);
  });

  it('drops a cause that quotes the key anywhere down its chain', () => {
    const deep = new Error('outer', { cause: new Error('mid', { cause: new Error(`inner ${KEY}`) }) });
    const error = toTransportError(deep, request, settings());
    expect(error.message).toBe('GET /accounts failed to connect: mid');
    expect(error.cause).toBeUndefined();
  });

  it('keeps a chain that holds no key, cycles included, and drops one too long to search', () => {
    const looped = new Error('fetch failed', { cause: new Error('connect ECONNRESET') });
    (looped.cause as Error).cause = looped;
    expect(toTransportError(looped, request, settings()).cause).toBe(looped);
    let long = new Error('bottom');
    for (let depth = 0; depth < 8; depth++) long = new Error(`level ${depth}`, { cause: long });
    expect(toTransportError(long, request, settings()).cause).toBeUndefined();
  });
});

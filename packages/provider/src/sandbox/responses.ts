import type { SandboxEndpoint } from './faults.js';

// Error bodies copy the real provider's `{ error, message }` texts where they are known.

export interface ErrorBody {
  error: string;
  message: string;
}

export const UNAUTHORIZED: ErrorBody = {
  error: 'Unauthorized',
  message: 'Authentication required. Provide x-api-key header or Authorization: Bearer token.',
};
export const FORBIDDEN: ErrorBody = { error: 'Forbidden', message: 'Invalid API key.' };
export const ACCOUNT_NOT_FOUND: ErrorBody = { error: 'Not Found', message: 'Account not found.' };
export const HOLDINGS_UNSUPPORTED: ErrorBody = {
  error: 'Not Implemented',
  message: 'Holdings are not supported for this account.',
};

const CONTEXT: Record<SandboxEndpoint, string> = {
  accounts: 'fetching accounts',
  balance: 'fetching account balance',
  transactions: 'fetching transactions',
  holdings: 'fetching holdings',
};

export function internalError(endpoint: SandboxEndpoint | undefined): ErrorBody {
  return {
    error: 'Internal Server Error',
    message: `An unexpected error occurred while ${CONTEXT[endpoint ?? 'transactions']}.`,
  };
}

/** What the provider wraps an upstream 429 into (Sure #1796): a 500 whose text carries the wait. */
export function wrappedRateLimit(accountId: string, seconds: number): ErrorBody {
  return {
    error: 'Internal Server Error',
    message:
      `API request failed for account ${accountId} (429 - Rate limit exceeded): ` +
      `The rate limit for this resource is 100/minute. Please try again in ${seconds} seconds`,
  };
}

export function rateLimited(seconds: number): ErrorBody {
  return {
    error: 'Too Many Requests',
    message: `Rate limit exceeded. The rate limit for this resource is 100/minute. Please try again in ${seconds} seconds`,
  };
}

const STATUS_BODIES: Record<number, ErrorBody> = {
  400: { error: 'Bad Request', message: 'Invalid request.' },
  401: UNAUTHORIZED,
  402: { error: 'Payment Required', message: 'An active subscription is required.' },
  403: FORBIDDEN,
  404: ACCOUNT_NOT_FOUND,
  405: { error: 'Method Not Allowed', message: 'Method not allowed.' },
  429: rateLimited(60),
  501: HOLDINGS_UNSUPPORTED,
  502: { error: 'Bad Gateway', message: 'The upstream provider returned an invalid response.' },
  503: { error: 'Service Unavailable', message: 'The service is temporarily unavailable.' },
  504: { error: 'Gateway Timeout', message: 'The upstream provider did not respond in time.' },
};

export function defaultErrorBody(status: number, endpoint: SandboxEndpoint | undefined): ErrorBody {
  if (status === 500) return internalError(endpoint);
  return STATUS_BODIES[status] ?? { error: 'Error', message: `Request failed with status ${status}.` };
}

export const JSON_TYPE = 'application/json; charset=utf-8';

export function jsonResponse(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return new Response(text, { status, headers: { 'content-type': JSON_TYPE, ...headers } });
}

/** Rejects with the signal's reason (like fetch does) if the caller gives up while we wait. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    // An endless delay waits for the abort alone.
    const timer =
      ms === Number.POSITIVE_INFINITY
        ? undefined
        : setTimeout(() => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A strict prefix of a JSON object is never valid JSON, which is exactly a cut-off response. */
export async function truncatedCopy(response: Response): Promise<Response> {
  const limit = 64 * 1024;
  const parts: Uint8Array[] = [];
  let size = 0;
  if (response.body) {
    const reader = response.body.getReader();
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      size += value.byteLength;
    }
    await reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  const text = new TextDecoder().decode(bytes);
  const cut = text.length < 2 ? '{"' : text.slice(0, Math.floor(text.length / 2));
  return new Response(cut, { status: 200, headers: { 'content-type': JSON_TYPE } });
}

const encoder = new TextEncoder();

/**
 * Streams `{"transactions":[…],"total":N}` without holding the window in memory. `total` comes
 * last, so rows past the cap are still counted. Rows are batched into ~64 KB chunks.
 */
export function transactionStream<T>(
  rows: Generator<T, void, undefined>,
  encode: (row: T) => string,
  cap: number | undefined,
): ReadableStream<Uint8Array> {
  let total = 0;
  let emitted = 0;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode('{"transactions":['));
    },
    pull(controller) {
      let chunk = '';
      while (chunk.length < 65_536) {
        const next = rows.next();
        if (next.done) {
          controller.enqueue(encoder.encode(`${chunk}],"total":${total}}`));
          controller.close();
          return;
        }
        total++;
        if (cap === undefined || emitted < cap) {
          chunk += (emitted === 0 ? '' : ',') + encode(next.value);
          emitted++;
        }
      }
      controller.enqueue(encoder.encode(chunk));
    },
    cancel() {
      rows.return();
    },
  });
}

export interface Route {
  endpoint: SandboxEndpoint;
  accountId: string | undefined;
}

const ROUTES: ReadonlyArray<[RegExp, SandboxEndpoint]> = [
  [/\/accounts\/?$/, 'accounts'],
  [/\/accounts\/([^/]+)\/balance\/?$/, 'balance'],
  [/\/accounts\/([^/]+)\/transactions\/?$/, 'transactions'],
  [/\/accounts\/([^/]+)\/holdings\/?$/, 'holdings'],
];

export function matchRoute(pathname: string): Route | undefined {
  for (const [pattern, endpoint] of ROUTES) {
    const match = pattern.exec(pathname);
    if (!match) continue;
    const raw = match[1];
    let accountId: string | undefined;
    try {
      accountId = raw === undefined ? undefined : decodeURIComponent(raw);
    } catch {
      accountId = raw;
    }
    return { endpoint, accountId };
  }
  return undefined;
}

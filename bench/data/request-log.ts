/** Counting the requests a measured client sends, by endpoint and by account. */

export type Endpoint = 'accounts' | 'transactions' | 'balance' | 'holdings' | 'other';

export interface RequestLog {
  /** Every request's URL, in order. */
  urls: string[];
  count(endpoint?: Endpoint): number;
  /** Requests to `endpoint` per account id. */
  perAccount(endpoint: Endpoint): Map<string, number>;
  reset(): void;
}

/** A URL's path and query: how the sandbox's answers rendered ahead are keyed. */
export function pathOf(url: string): string {
  const { pathname, search } = new URL(url);
  return pathname + search;
}

export function endpointOf(url: string): { endpoint: Endpoint; accountId: string | null } {
  const path = new URL(url).pathname;
  const match = /\/accounts\/([^/]+)\/(transactions|balance|holdings)\/?$/.exec(path);
  if (match) return { endpoint: match[2] as Endpoint, accountId: decodeURIComponent(match[1]!) };
  return { endpoint: /\/accounts\/?$/.test(path) ? 'accounts' : 'other', accountId: null };
}

/** A `fetch` for ProviderClient that records every request it is asked to send (retries included). */
export function countingFetch(): { fetch: typeof fetch; log: RequestLog } {
  const urls: string[] = [];
  const log: RequestLog = {
    urls,
    count: (endpoint) =>
      endpoint === undefined ? urls.length : urls.filter((u) => endpointOf(u).endpoint === endpoint).length,
    perAccount(endpoint) {
      const counts = new Map<string, number>();
      for (const url of urls) {
        const { endpoint: e, accountId } = endpointOf(url);
        if (e === endpoint && accountId !== null) counts.set(accountId, (counts.get(accountId) ?? 0) + 1);
      }
      return counts;
    },
    reset: () => void urls.splice(0),
  };
  const counting: typeof fetch = (input, init) => {
    // ky hands fetch a Request; plain callers pass a string or URL.
    urls.push(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    return fetch(input, init);
  };
  return { fetch: counting, log };
}

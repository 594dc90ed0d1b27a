/**
 * One whole pull in a child process of its own, for the side-by-side comparison (peers.ts): every
 * account's whole history, either through `ProviderClient` (every row validated and normalized) or
 * as a plain `fetch` + `JSON.parse` of the same URLs. Its own process, so its peak RSS is its own.
 */
import { ProviderClient } from '@finsync/provider';
import { API_KEY, TODAY } from '../data/data-set.js';
import { fetchJson } from '../data/fetch-json.js';
import { countingFetch } from '../data/request-log.js';

export type Puller = 'client' | 'plain';

export interface PullConfig {
  baseUrl: string;
  which: Puller;
  /** The URLs the plain pull asks: the ones a client pull asked, in its order (accounts first). */
  urls?: string[];
}

export interface PullResult {
  /** The timed pull, after an untimed one that warms both sides up. */
  ms: number;
  rows: number;
  /** Every URL the timed pull asked, in order. */
  urls: string[];
  /** The process's peak RSS when both pulls are done, MiB. */
  peakRssMiB: number;
}

export async function pull(config: PullConfig): Promise<PullResult> {
  const once = config.which === 'client' ? clientPull(config.baseUrl) : plainPull(config.urls ?? []);
  await once();
  const started = performance.now();
  const { rows, urls } = await once();
  const ms = performance.now() - started;
  return { ms, rows, urls, peakRssMiB: process.resourceUsage().maxRSS / 1024 };
}

/** What the engine asks on a whole-history first sync: no `from`, `to` = today, pending rows too. */
function clientPull(baseUrl: string) {
  const { fetch, log } = countingFetch();
  const client = new ProviderClient({ apiKey: API_KEY, baseUrl, rateLimit: false, fetch });
  return async () => {
    log.reset();
    let rows = 0;
    for (const account of await client.listAccounts()) {
      const list = client.listTransactions(account.id, { to: TODAY, includePending: true });
      for await (const page of list.pages()) rows += page.transactions.length;
    }
    return { rows, urls: [...log.urls] };
  };
}

function plainPull(urls: readonly string[]) {
  if (urls.length < 2) throw new Error('a plain pull needs the URLs of a client pull');
  return async () => {
    const [accountsUrl, ...transactionUrls] = urls;
    await fetchJson<{ accounts: unknown[] }>(accountsUrl!);
    let rows = 0;
    for (const url of transactionUrls)
      rows += (await fetchJson<{ transactions: unknown[] }>(url)).transactions.length;
    return { rows, urls: [...urls] };
  };
}

/**
 * The raw HTTP limit and the provider client's overhead, against one sandbox server:
 * `ProviderClient.listTransactions(…).pages()` (throttle off) versus plain `fetch` + `JSON.parse`
 * of exactly the URLs the client asked, in both sync modes. The two alternate, repetition by
 * repetition, so drift on the shared cores hits both alike.
 */
import { ProviderClient, createTransactionListSchema } from '@finsync/provider';
import { API_KEY, MODES, TODAY, sandboxOptions, windowedStartDate, type SyncMode } from '../data/data-set.js';
import { fetchJson } from '../data/fetch-json.js';
import { countingFetch } from '../data/request-log.js';
import { startSandboxProcess } from '../data/sandbox-process.js';

export interface HttpConfig {
  rows: number;
  reps: number;
}

export interface HttpModeResult {
  /** Provider responses (one per window) and the transactions they carried, per pass. */
  pages: number;
  rows: number;
  /** Milliseconds per pass. */
  plainMs: number[];
  clientMs: number[];
}

/**
 * Where the client's extra time goes: the whole-history bodies, already in memory, through
 * `JSON.parse` and through the client's own response schema (`createTransactionListSchema`, zod:
 * validation plus normalization of ids, amounts, dates and flags). Milliseconds per pass.
 */
export interface ValidationResult {
  rows: number;
  jsonParseMs: number[];
  schemaParseMs: number[];
}

export type HttpResult = Record<SyncMode, HttpModeResult> & { validation: ValidationResult };

export async function http(config: HttpConfig): Promise<HttpResult> {
  const sandbox = await startSandboxProcess(sandboxOptions(config.rows));
  try {
    const { fetch, log } = countingFetch();
    const client = new ProviderClient({ apiKey: API_KEY, baseUrl: sandbox.baseUrl, rateLimit: false, fetch });
    const accountIds = (await client.listAccounts()).map((a) => a.id);

    // What the engine asks on a first sync, per mode (see engine/run-engine.ts): `to` = today, pending rows
    // included, and `from` = the start date in the windowed mode (90-day windows, the default).
    const clientPass = async (mode: SyncMode) => {
      let pages = 0;
      let rows = 0;
      for (const id of accountIds) {
        const list = client.listTransactions(id, {
          ...(mode === 'windowed' ? { from: windowedStartDate() } : {}),
          to: TODAY,
          includePending: true,
        });
        for await (const page of list.pages()) {
          pages += 1;
          rows += page.transactions.length;
        }
      }
      return { pages, rows };
    };
    const plainPass = async (urls: readonly string[]) => {
      let rows = 0;
      for (const url of urls) rows += (await fetchJson<{ transactions: unknown[] }>(url)).transactions.length;
      return { pages: urls.length, rows };
    };

    const result = {} as HttpResult;
    let wholeUrls: string[] = [];
    for (const mode of MODES) {
      // A first client pass records the URLs (and warms both sides up); it is not timed.
      log.reset();
      const expected = await clientPass(mode);
      const urls = [...log.urls];
      if (mode === 'whole') wholeUrls = urls;
      await plainPass(urls);
      const modeResult: HttpModeResult = { ...expected, plainMs: [], clientMs: [] };
      for (let rep = 0; rep < config.reps; rep++) {
        const order = rep % 2 === 0 ? (['plain', 'client'] as const) : (['client', 'plain'] as const);
        for (const which of order) {
          const started = performance.now();
          const got = which === 'plain' ? await plainPass(urls) : await clientPass(mode);
          (which === 'plain' ? modeResult.plainMs : modeResult.clientMs).push(performance.now() - started);
          // The client drops nothing here (every row is inside its window), so the counts must agree.
          if (which === 'client' && got.rows !== expected.rows)
            throw new Error('client pass row count changed');
        }
      }
      result[mode] = modeResult;
    }
    result.validation = await timeValidation(wholeUrls, config.reps);
    return result;
  } finally {
    await sandbox.stop();
  }
}

async function timeValidation(urls: readonly string[], reps: number): Promise<ValidationResult> {
  const texts: string[] = [];
  for (const url of urls) {
    texts.push(await (await fetch(url, { headers: { 'x-api-key': API_KEY } })).text());
  }
  const schema = createTransactionListSchema();
  const result: ValidationResult = { rows: 0, jsonParseMs: [], schemaParseMs: [] };
  for (let rep = 0; rep < reps; rep++) {
    let started = performance.now();
    const bodies = texts.map((text) => JSON.parse(text) as unknown);
    result.jsonParseMs.push(performance.now() - started);
    started = performance.now();
    let rows = 0;
    for (const body of bodies) rows += schema.parse(body).transactions.length;
    result.schemaParseMs.push(performance.now() - started);
    result.rows = rows;
  }
  return result;
}

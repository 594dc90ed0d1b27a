import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it, vi } from 'vitest';
import {
  InvalidResponseError,
  ProviderClient,
  RequestAbortedError,
  addDays,
  type TransactionPage,
} from '../src/index.js';
import { BASE, KEY, type WireRow } from './helpers.js';

const server = useMswServer();

/** Four 30-day windows, 2026-01-01 to 2026-04-30. */
const FROM = '2026-01-01';
const TO = '2026-04-30';

function rowsOf(from: string, to: string, perDay: number): WireRow[] {
  const rows: WireRow[] = [];
  for (let day = from, n = 0; day <= to; day = addDays(day, 1)) {
    for (let i = 0; i < perDay; i++, n++) {
      rows.push({
        id: `tx_${day}_${i}`,
        accountId: 4711,
        amount: -(n + 0.5),
        currency: 'GBP',
        date: day,
        merchant: 'Shop',
        description: `CARD PAYMENT ${n}`,
        isPending: false,
      });
    }
  }
  return rows;
}

interface Asked {
  from: string;
  aborted: () => boolean;
}

/**
 * Answers each window with its rows; `answer` may replace the answer of one window, and `cap` cuts
 * every answer to its first rows, with the window's full count as `total` (so the walk splits it).
 */
function serve(
  perDay: number,
  answer?: (from: string, signal: AbortSignal) => Promise<Response> | undefined,
  cap = Infinity,
) {
  const asked: Asked[] = [];
  server.use(
    http.get(`${BASE}/accounts/4711/transactions`, ({ request }) => {
      const url = new URL(request.url);
      const from = url.searchParams.get('from')!;
      const to = url.searchParams.get('to')!;
      asked.push({ from, aborted: () => request.signal.aborted });
      const replaced = answer?.(from, request.signal);
      if (replaced) return replaced;
      const rows = rowsOf(from, to, perDay);
      return HttpResponse.json({ transactions: rows.slice(0, cap), total: rows.length });
    }),
  );
  return asked;
}

function walk(client: ProviderClient, signal?: AbortSignal): AsyncIterator<TransactionPage> {
  return client
    .listTransactions(4711, { from: FROM, to: TO, ...(signal ? { signal } : {}) })
    .pages()
    [Symbol.asyncIterator]();
}

const client = (pageRows?: number) =>
  new ProviderClient({
    apiKey: KEY,
    rateLimit: false,
    windowDays: 30,
    ...(pageRows ? { spill: { pageRows } } : {}),
  });

describe('a walk over a date range asks for the next window before it is needed', () => {
  it('has the next window asked for while the current one is in use, one ahead at most', async () => {
    const asked = serve(2);
    const pages = walk(client());
    const first = await pages.next();
    expect(first.value?.from).toBe(FROM);
    expect(first.value?.transactions).toHaveLength(60);
    // Nobody has asked for the second page yet, and its request is out.
    await vi.waitFor(() => expect(asked.map((a) => a.from)).toEqual([FROM, '2026-01-31']));
    const rest: TransactionPage[] = [];
    for (let next = await pages.next(); !next.done; next = await pages.next()) rest.push(next.value);
    expect(rest.map((p) => p.from)).toEqual(['2026-01-31', '2026-03-02', '2026-04-01']);
    expect(asked.map((a) => a.from)).toEqual([FROM, '2026-01-31', '2026-03-02', '2026-04-01']);
  });

  it('aborts the window it asked for ahead when the walk is closed early, and asks for no other', async () => {
    // The second window answers only once its request is aborted (an answer nobody reads).
    const asked = serve(1, (from, signal) =>
      from === '2026-01-31'
        ? new Promise<Response>((resolve) =>
            signal.addEventListener('abort', () =>
              resolve(HttpResponse.json({ transactions: [], total: 0 })),
            ),
          )
        : undefined,
    );
    const pages = walk(client());
    await pages.next();
    await vi.waitFor(() => expect(asked).toHaveLength(2));
    await pages.return?.();
    expect(asked[1]!.aborted()).toBe(true);
    expect(asked).toHaveLength(2);
  });

  it('throws the error of a window asked for ahead in its own turn, after the pages before it', async () => {
    serve(1, (from) =>
      from === '2026-03-02'
        ? Promise.resolve(new HttpResponse('<html>maintenance</html>', { status: 200 }))
        : undefined,
    );
    const pages = walk(client());
    const seen: string[] = [];
    const error = await (async () => {
      try {
        for (let next = await pages.next(); !next.done; next = await pages.next())
          seen.push(next.value.from!);
      } catch (caught) {
        return caught;
      }
    })();
    expect(seen).toEqual([FROM, '2026-01-31']);
    expect(error).toBeInstanceOf(InvalidResponseError);
  });

  it('does not ask ahead while the answers are dense (more rows than a page)', async () => {
    // 3 rows a day: 90 rows a window, handed out in pages of at most 40.
    const asked = serve(3);
    const pages = walk(client(40));
    const first = await pages.next();
    let rows = first.value!.transactions.length;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(asked).toHaveLength(1);
    for (let next = await pages.next(); !next.done; next = await pages.next())
      rows += next.value.transactions.length;
    // 120 days of 3 rows, every row once.
    expect(rows).toBe(360);
    expect(asked).toHaveLength(4);
  });

  it('hands out no window after the caller aborts, though its answer came in before', async () => {
    const asked = serve(1);
    const caller = new AbortController();
    const pages = walk(client(), caller.signal);
    await pages.next();
    await vi.waitFor(() => expect(asked).toHaveLength(2));
    // Time for the answer asked for ahead to come in, before the caller gives up.
    await new Promise((resolve) => setTimeout(resolve, 100));
    caller.abort();
    await expect(pages.next()).rejects.toBeInstanceOf(RequestAbortedError);
  });

  it("asks for the halves of a window cut short without tying them to the caller's signal", async () => {
    // Every answer holds at most 10 rows: each 30-day window of one row a day is asked again in
    // halves, down to windows of 10 days or fewer.
    const asked = serve(1, undefined, 10);
    const caller = new AbortController();
    // AbortSignal.any on Node 20 leaves an entry on each signal it is given for as long as that
    // signal lives, so a long-lived caller's signal would grow by one for every request.
    const any = vi.spyOn(AbortSignal, 'any');
    try {
      const pages = walk(client(), caller.signal);
      let rows = 0;
      for (let next = await pages.next(); !next.done; next = await pages.next()) {
        expect(next.value.shortfall).toBe(0);
        rows += next.value.transactions.length;
      }
      expect(rows).toBe(120);
      expect(asked.length).toBeGreaterThan(4);
      expect(any.mock.calls.filter(([signals]) => [...signals].includes(caller.signal))).toEqual([]);
    } finally {
      any.mockRestore();
    }
  });
});

describe('a dense window handed out in pages', () => {
  it("lets the rows of a page it handed out go before the window's last page", async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    // 3 rows a day: 90 rows a window, in pages of whole weeks of at most 40 rows.
    serve(3);
    const pages = walk(client(40));
    const firstRow = await (async () => {
      const first = await pages.next();
      expect(first.value!.to! < '2026-01-30').toBe(true);
      return new WeakRef(first.value!.transactions[0]!);
    })();
    const second = await pages.next();
    expect(second.value!.from! > FROM && second.value!.to! <= '2026-01-30').toBe(true);
    // A WeakRef keeps its target until the task that made it ends.
    await new Promise((resolve) => setTimeout(resolve, 0));
    gc();
    expect(firstRow.deref()).toBeUndefined();
    await pages.return?.();
  });

  it('hands out none of its pages once the caller aborts', async () => {
    serve(3);
    const caller = new AbortController();
    const pages = walk(client(40), caller.signal);
    const first = await pages.next();
    expect(first.value!.from).toBe(FROM);
    // The window's other pages are in memory already.
    caller.abort();
    await expect(pages.next()).rejects.toBeInstanceOf(RequestAbortedError);
  });
});

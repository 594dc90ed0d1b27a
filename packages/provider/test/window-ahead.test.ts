import { http, HttpResponse } from 'msw';
import { useMswServer } from '@finsync/test-utils';
import { describe, expect, it, vi } from 'vitest';
import { InvalidResponseError, ProviderClient, addDays, type TransactionPage } from '../src/index.js';
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

/** Answers each window with its rows; `answer` may replace the answer of one window. */
function serve(
  perDay: number,
  answer?: (from: string, signal: AbortSignal) => Promise<Response> | undefined,
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
      return HttpResponse.json({ transactions: rows, total: rows.length });
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
});

/** The hand-written reader for documented rows answers exactly what the full schema answers. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { documentedDatesOfText } from '../src/wire/documented-text.js';
import {
  DOCUMENTED_FIELDS,
  readDocumentedDates,
  readDocumentedTransactionList,
  readTransactionRows,
} from '../src/wire/fast-transactions.js';
import { JsonListScanner, type ListRun } from '../src/wire/list-scanner.js';
import { createTransactionListSchema, createTransactionSchema } from '../src/wire/schemas.js';

const schema = createTransactionListSchema();

/** A row exactly as the provider's docs show one. */
const DOCUMENTED_ROW = {
  id: 'tx_1',
  accountId: 4711,
  amount: -23.4,
  currency: 'GBP',
  date: '2026-03-14',
  merchant: 'Corner Cafe',
  description: 'CARD',
  isPending: false,
};

/** Rows of the documented shape, with the awkward values real payloads carry. */
const documentedRow = fc.record(
  {
    id: fc.oneof(
      fc.stringMatching(/^tx_[a-z0-9]{4,12}$/),
      fc.constant(null),
      fc.constant(''),
      fc.constant('  '),
    ),
    accountId: fc.oneof(fc.integer({ min: 1, max: 1e7 }), fc.stringMatching(/^\d{1,7}$/)),
    amount: fc.oneof(
      fc.integer({ min: -1e9, max: 1e9 }).map((c) => c / 100),
      // Any double of an amount's size. Below 0.1 its shortest digits can run past 18 decimals,
      // which are refused (a test below): left out here, so that most rows stay documented.
      fc.double({ min: -1e7, max: 1e7, noNaN: true }).filter((n) => n === 0 || Math.abs(n) >= 0.1),
      fc.constant(0),
      fc.constant(-0),
      // Decimal strings, which clients of the provider tolerate, good and bad.
      fc.integer({ min: -1e9, max: 1e9 }).map((c) => (c / 100).toFixed(2)),
      fc.constantFrom('+5', '1e3', ' -12.30 ', '1,234.56', '', 'abc', '-0.00'),
    ),
    currency: fc.constantFrom('GBP', 'EUR', 'JPY', 'gbp', ' GBP', null, undefined),
    date: fc.oneof(
      fc
        .date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10)),
      fc.constantFrom('2026-02-30', '2026-13-01', '2026-06-30T12:00:00Z', ' 2026-06-30'),
    ),
    merchant: fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(null, '', '  ', ' Corner Cafe ')),
    description: fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)),
    isPending: fc.oneof(fc.boolean(), fc.constantFrom('true', 1, null)),
  },
  // `isPending` may be absent: older answers, and answers without pending rows, have none.
  { requiredKeys: ['amount', 'date'] },
);

const extraKey = fc.record({ merchant_name: fc.string({ maxLength: 8 }) }, { requiredKeys: [] });

/** Members the schema does not read, as a provider adding a field would send them. */
const unknownKeys = fc.dictionary(
  fc.constantFrom('category', 'status', 'bookingDate', 'reference', 'toString', 'amount_minor'),
  fc.jsonValue({ maxDepth: 1 }),
  { maxKeys: 3 },
);

describe('the fast path for transaction lists', () => {
  it('for any list, gives what the full schema gives, or hands the list to it', () => {
    let taken = 0;
    fc.assert(
      fc.property(
        fc.array(
          fc
            .tuple(documentedRow, extraKey, unknownKeys)
            .map(([row, extra, unknown]) => ({ ...unknown, ...row, ...extra })),
          { maxLength: 8 },
        ),
        fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined }),
        (rows, total) => {
          const body = { transactions: rows, ...(total === undefined ? {} : { total }) };
          const fast = readDocumentedTransactionList(body);
          const full = schema.safeParse(body);
          if (fast === undefined) return; // the client reads it with the full schema
          taken += 1;
          expect(full.success).toBe(true);
          // Strictly: rows made by the fast path are plain objects, as the schema's are (fast-transactions.ts).
          expect(fast).toStrictEqual(full.data);
        },
      ),
      { numRuns: 2_000 },
    );
    // The comparison means something only if the fast path took a good share of the lists.
    expect(taken).toBeGreaterThan(200);
  });

  it('takes the documented shape itself', () => {
    const body = {
      transactions: [
        DOCUMENTED_ROW,
        {
          id: null,
          accountId: 4711,
          amount: -6.15,
          currency: 'GBP',
          date: '2026-03-15',
          merchant: null,
          description: '  ',
          isPending: true,
        },
      ],
      total: 2,
    };
    expect(readDocumentedTransactionList(body)).toStrictEqual(schema.parse(body));
    // An unusual row anywhere sends the whole list to the full schema.
    expect(
      readDocumentedTransactionList({
        transactions: [...body.transactions, { ...body.transactions[0], date: '2026-03-14T09:30:00Z' }],
      }),
    ).toBeUndefined();
  });

  it('sends an amount past the bounds to the full schema, which refuses the list', () => {
    // 15 integer digits and 18 decimals at most; an exponent is refused without writing out its zeros.
    for (const amount of [1e15, -1e21, 1e-19, '1234567890123456', '-1e25', '1e999999999']) {
      const body = { transactions: [{ ...DOCUMENTED_ROW, amount }] };
      expect(readDocumentedTransactionList(body), String(amount)).toBeUndefined();
      expect(schema.safeParse(body).success, String(amount)).toBe(false);
    }
    for (const amount of [999_999_999_999_999, -1e-7, '0.000000000000000001']) {
      const body = { transactions: [{ ...DOCUMENTED_ROW, amount }] };
      expect(readDocumentedTransactionList(body), String(amount)).toStrictEqual(schema.parse(body));
    }
  });

  it('passes over a member the schema does not read, as the schema drops it', () => {
    const added = {
      transactions: [{ ...DOCUMENTED_ROW, category: { name: 'Eating out' }, bookingDate: '2026-03-13' }],
    };
    const read = readDocumentedTransactionList(added);
    expect(read).toStrictEqual(schema.parse(added));
    expect(read?.transactions[0]).not.toHaveProperty('category');
    // An older name the schema reads is for the schema to weigh against the documented one.
    const older = { transactions: [{ ...added.transactions[0], merchant_name: 'Other' }] };
    expect(readDocumentedTransactionList(older)).toBeUndefined();
  });

  it('row by row: each row as the full list schema reads it, or nothing when it refuses one', () => {
    const rowSchema = createTransactionSchema();
    const oddRow = fc
      .tuple(documentedRow, fc.constantFrom(...DOCUMENTED_FIELDS), fc.jsonValue({ maxDepth: 1 }))
      .map(([documented, key, value]) => ({ ...documented, [key]: value }));
    const row = fc.oneof(
      documentedRow,
      fc
        .tuple(documentedRow, extraKey, unknownKeys)
        .map(([r, extra, unknown]) => ({ ...unknown, ...r, ...extra })),
      oddRow,
    );
    const seen = { read: 0, refused: 0, mixed: 0 };
    fc.assert(
      fc.property(fc.array(row, { maxLength: 6 }), (rows) => {
        const read = readTransactionRows(rows, rowSchema);
        const full = schema.safeParse({ transactions: rows });
        if (!full.success) {
          expect(read).toBeUndefined();
          seen.refused += 1;
          return;
        }
        // Strictly: rows read by the schema are made again as the fast path's (transaction-row.ts).
        expect(read?.rows).toStrictEqual(full.data.transactions);
        seen.read += 1;
        // `documented` says whether the fast path would have read the whole list.
        const whole = readDocumentedTransactionList({ transactions: rows });
        expect(read?.documented).toBe(whole !== undefined);
        if (whole === undefined && rows.length > 1) seen.mixed += 1;
      }),
      { numRuns: 2_000 },
    );
    // Both outcomes, and lists the fast path would not take whole, were really compared.
    expect(seen.read).toBeGreaterThan(200);
    expect(seen.refused).toBeGreaterThan(200);
    expect(seen.mixed).toBeGreaterThan(100);
  });

  it('takes no list the full schema reads otherwise, whatever odd value a field holds', () => {
    // Any value where a documented row has a typed one (NaN and Infinity too: not JSON, but a body
    // handed to the client by a custom fetch or a test double can hold them).
    const oddValue = fc.oneof(
      fc.jsonValue({ maxDepth: 1 }),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 1e21, 1e-7, -0, undefined),
    );
    const goodRow = fc.record({
      id: fc.stringMatching(/^tx_[a-z0-9]{4,12}$/),
      accountId: fc.integer({ min: 1, max: 1e7 }),
      amount: fc.integer({ min: -1e9, max: 1e9 }).map((c) => c / 100),
      currency: fc.constant('GBP'),
      date: fc
        .date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10)),
      merchant: fc.string({ maxLength: 12 }),
      description: fc.oneof(fc.string({ maxLength: 12 }), fc.constant(null)),
      isPending: fc.boolean(),
    });
    const oddRow = fc
      .tuple(documentedRow, fc.constantFrom(...DOCUMENTED_FIELDS), oddValue)
      .map(([documented, key, value]) => ({ ...documented, [key]: value }));
    const row = fc.oneof(
      { weight: 4, arbitrary: goodRow },
      { weight: 1, arbitrary: documentedRow },
      { weight: 1, arbitrary: oddRow },
    );
    let checked = 0;
    fc.assert(
      fc.property(fc.array(row, { maxLength: 4 }), (rows) => {
        const read = readDocumentedTransactionList({ transactions: rows });
        if (read === undefined) return; // the client reads it with the full schema
        expect(read).toEqual(schema.parse({ transactions: rows }));
        if (rows.length > 0) checked += 1;
      }),
      { numRuns: 2_000 },
    );
    // The comparison means something only if the fast path took a good share of the lists.
    expect(checked).toBeGreaterThan(300);
  });
});

/** The run a scanner hands out for a list whose rows are these texts, as they came over the wire. */
function runOf(rowTexts: readonly string[]): ListRun {
  const scanner = new JsonListScanner({ listKey: 'transactions' });
  const run = scanner.write(`{"transactions":[${rowTexts.join(',')}]}`);
  scanner.end();
  return run;
}

/** Strings with what JSON must escape (quotes, backslashes, controls, lone surrogates) and other scripts. */
const awkwardText = fc.oneof(
  fc.string({ maxLength: 12, unit: 'binary' }),
  fc.constantFrom('', '  ', 'Caf\u00e9 "Le Coin"', 'line\nbreak\ttab', '\u0000', '\ud800', '€ £ ¥', '/'),
);

/** Documented rows as the provider writes them: its key order, typed values, any strings. */
const asWritten = fc.record({
  id: fc.oneof(fc.stringMatching(/^tx_[a-z0-9]{4,12}$/), fc.constant(null), awkwardText),
  accountId: fc.oneof(fc.integer({ min: 1, max: 1e7 }), fc.stringMatching(/^\d{1,7}$/)),
  amount: fc.oneof(
    fc.integer({ min: -1e9, max: 1e9 }).map((c) => c / 100),
    fc.constantFrom(0, -0, -23.4, 0.001),
  ),
  currency: fc.constantFrom('GBP', 'EUR', null),
  date: fc
    .date({ min: new Date('2000-01-01'), max: new Date('2030-12-31'), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10)),
  merchant: fc.oneof(awkwardText, fc.constant(null)),
  description: fc.oneof(awkwardText, fc.constant(null)),
  isPending: fc.boolean(),
});

/** Values a documented row's members must not hold, or hold only after the schema's reading. */
const nearMiss = fc.oneof(
  fc.jsonValue({ maxDepth: 1 }),
  fc.constantFrom('gbp', ' GBP', '2026-02-30', '2026-06-30T12:00:00Z', 'false', '-23.40', 1e21, 1e-7, ''),
  // Numbers written plainly but past the money bounds: 20 decimals, 16 integer digits.
  fc.constantFrom(-0.00003974552074365297, 0.0012345678901234567, 1234567890123456, -9999999999999999),
);

describe('documented rows checked on their text (rows going to disk)', () => {
  it('takes a run only when the parsed path takes it too, with the same dates', () => {
    // Every serialisation a provider might send: its compact one, keys in other orders, spaces.
    const serialised = fc
      .tuple(
        fc.oneof(
          { weight: 3, arbitrary: asWritten },
          // One member off, in its place: each check of the pattern has a row that needs it.
          {
            weight: 2,
            arbitrary: fc
              .tuple(asWritten, fc.constantFrom(...DOCUMENTED_FIELDS), nearMiss)
              .map(([row, key, value]) => ({ ...row, [key]: value })),
          },
          {
            weight: 1,
            arbitrary: fc
              .tuple(documentedRow, extraKey, unknownKeys)
              .map(([row, extra, unknown]) => ({ ...row, ...extra, ...unknown })),
          },
        ),
        fc.constantFrom('compact', 'compact', 'compact', 'shuffled', 'spaced'),
      )
      .map(([all, how]) => {
        if (how === 'spaced') return JSON.stringify(all, null, 1);
        if (how === 'shuffled') return JSON.stringify(Object.fromEntries(Object.entries(all).reverse()));
        return JSON.stringify(all);
      });
    let taken = 0;
    fc.assert(
      fc.property(fc.array(serialised, { maxLength: 6 }), (texts) => {
        const run = runOf(texts);
        const dates = documentedDatesOfText(run);
        if (dates === undefined) return; // the run is parsed and read row by row
        if (texts.length > 0) taken += 1;
        expect(dates).toEqual(readDocumentedDates(JSON.parse(`[${run.text}]`) as unknown[]));
      }),
      { numRuns: 3_000 },
    );
    expect(taken).toBeGreaterThan(100);
  });

  it('takes every documented row as the provider writes it, whatever its strings hold but a NUL or a lone surrogate', () => {
    // Both are rewritten by the schema (`storableText`), so their rows go that way.
    const isWellFormed = (text: string) => (text as unknown as { isWellFormed(): boolean }).isWellFormed();
    const holdsNul = (row: object) =>
      Object.values(row).some(
        (value) => typeof value === 'string' && (value.includes('\u0000') || !isWellFormed(value)),
      );
    fc.assert(
      fc.property(
        fc.array(
          asWritten.filter((row) => !holdsNul(row)),
          { minLength: 1, maxLength: 6 },
        ),
        (rows) => {
          const run = runOf(rows.map((row) => JSON.stringify(row)));
          expect(documentedDatesOfText(run)).toEqual(rows.map((row) => row.date));
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it.each([
    ['an amount with an exponent', '"amount":1e400'],
    ['an amount as a string', '"amount":"-23.40"'],
    ['a date off the calendar', '"date":"2026-02-30"'],
    ['a timestamp as the date', '"date":"2026-03-14T09:30:00Z"'],
    ['a currency in lower case', '"currency":"gbp"'],
    ['isPending as a string', '"isPending":"false"'],
    ['a space after a colon', '"merchant": "Corner Cafe"'],
    ['a raw control character in a string', '"description":"CARD\u0001"'],
    ['a NUL in a string, which the schema rewrites', '"merchant":"ACME\\u0000"'],
    ['a lone surrogate, which the schema rewrites', '"merchant":"CAFE \\ud83d"'],
    ['a lone low surrogate, which the schema rewrites', '"merchant":"CAFE \\ude00 \\ud83d"'],
  ])('leaves a run to the parsed path for %s', (_, member) => {
    const text = JSON.stringify(DOCUMENTED_ROW);
    const key = member.slice(0, member.indexOf(':'));
    const odd = text.replace(new RegExp(`${key}:(?:"[^"]*"|[^,}]*)`), member);
    expect(odd).not.toBe(text);
    expect(documentedDatesOfText(runOf([text]))).toEqual([DOCUMENTED_ROW.date]);
    expect(documentedDatesOfText(runOf([text, odd]))).toBeUndefined();
  });

  it('takes a surrogate pair written as two escapes, as ensure_ascii serializers write an emoji', () => {
    const text = JSON.stringify(DOCUMENTED_ROW).replace(
      /"merchant":"[^"]*"/,
      '"merchant":"CAFE \\ud83d\\ude00"',
    );
    expect(text).toContain('\\ud83d\\ude00');
    expect(documentedDatesOfText(runOf([text]))).toEqual([DOCUMENTED_ROW.date]);
  });
});

/** The PATCH's answer written by hand: byte for byte what `JSON.stringify` writes for the rendered row. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  renderRows,
  type RelatedRows,
  type RenderedTransaction,
  type TransactionRow,
} from '../src/render.js';
import { transactionJson } from '../src/transaction-json.js';

/** Text JSON writes as it is, mixed with the units it escapes or must keep apart (lone surrogates). */
const text = fc
  .array(
    fc.oneof(
      { weight: 4, arbitrary: fc.string({ maxLength: 8 }) },
      fc.constantFrom(
        '"',
        '\\',
        '\u0000',
        '\u001f',
        '\n',
        '\u007f',
        '\u2028',
        '\ud800',
        '\udfff',
        '😀',
        '€',
        '/',
      ),
    ),
    { maxLength: 4 },
  )
  .map((parts) => parts.join(''));
/** Mostly plain, so the text written by hand is what is compared, not only `JSON.stringify`'s. */
const mostlyPlain = fc.oneof({ weight: 3, arbitrary: fc.stringMatching(/^[\w .,'€-]{0,12}$/) }, text);
const cents = fc.oneof(
  { weight: 5, arbitrary: fc.integer({ min: -1e12, max: 1e12 }) },
  fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY, Number.MAX_SAFE_INTEGER, 1e21),
);

const rendered: fc.Arbitrary<RenderedTransaction> = fc.record({
  id: mostlyPlain,
  date: mostlyPlain,
  amount: mostlyPlain,
  amount_cents: cents,
  signed_amount_cents: cents,
  currency: mostlyPlain,
  name: mostlyPlain,
  notes: fc.option(mostlyPlain),
  external_id: fc.option(mostlyPlain),
  source: fc.option(mostlyPlain),
  classification: fc.constantFrom('income' as const, 'expense' as const),
  account: fc.record({ id: mostlyPlain, name: mostlyPlain, account_type: mostlyPlain }),
  category: fc.option(
    fc.record({ id: mostlyPlain, name: mostlyPlain, color: mostlyPlain, icon: mostlyPlain }),
  ),
  merchant: fc.option(fc.record({ id: mostlyPlain, name: mostlyPlain })),
  tags: fc.array(fc.record({ id: mostlyPlain, name: mostlyPlain, color: mostlyPlain }), { maxLength: 3 }),
  transfer: fc.constant(null),
  created_at: mostlyPlain,
  updated_at: mostlyPlain,
});

describe('transactionJson', () => {
  it('writes the text JSON.stringify writes, whatever the strings and numbers hold', () => {
    fc.assert(
      fc.property(rendered, (transaction) => {
        const { text, ascii } = transactionJson(transaction);
        expect(text).toBe(JSON.stringify(transaction));
        // Said to be ASCII only when it is: such text is sent as Latin-1, byte for character.
        if (ascii) expect(text).toMatch(/^[\x00-\x7f]*$/);
      }),
      { numRuns: 2_000 },
    );
  });

  it('follows renderRows: its keys, their order and its nulls', () => {
    const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
    fc.assert(
      fc.property(
        mostlyPlain,
        fc.option(mostlyPlain),
        fc.constantFrom('', 'api-1'),
        fc.boolean(),
        fc.boolean(),
        fc.array(mostlyPlain, { maxLength: 3 }),
        fc.constantFrom('12.34', '-0.5', '1000000.00', '7'),
        fc.constantFrom('EUR', 'USD', 'PLN'),
        (name, notes, externalId, withCategory, withMerchant, tagNames, amount, currency) => {
          const row: TransactionRow = {
            id: id(1),
            account_id: id(2),
            external_id: externalId,
            source: externalId && 'api',
            date: '2026-12-03',
            amount,
            currency,
            name,
            notes,
            category_id: withCategory ? id(3) : null,
            merchant_id: withMerchant ? id(4) : null,
            created_at: '2026-12-01T10:00:00.000Z',
            updated_at: '2026-12-03T17:00:00.123Z',
          };
          const related: RelatedRows = {
            accounts: [{ id: id(2), name: `${name} account`, account_type: 'depository' }],
            categories: [{ id: id(3), name: `${name} category`, color: '#e99537', icon: 'utensils' }],
            merchants: [{ id: id(4), name: `${name} merchant` }],
            tags: tagNames.map((tagName, i) => ({
              id: id(10 + i),
              name: tagName,
              color: '#4da568',
              transaction_id: id(1),
            })),
          };
          const [transaction] = renderRows([row], related);
          const { text, ascii } = transactionJson(transaction!);
          expect(text).toBe(JSON.stringify(transaction));
          if (ascii) expect(text).toMatch(/^[\x00-\x7f]*$/);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('says which answers are ASCII: a dollar amount with plain names is, a zloty amount is not', () => {
    const transaction = (amount: string, currency: string): RenderedTransaction => ({
      id: '00000000-0000-4000-8000-000000000001',
      date: '2026-12-03',
      amount,
      amount_cents: 3084,
      signed_amount_cents: -3084,
      currency,
      name: 'Bean There Coffee',
      notes: null,
      external_id: null,
      source: null,
      classification: 'expense',
      account: { id: '00000000-0000-4000-8000-000000000002', name: 'Checking', account_type: 'depository' },
      category: null,
      merchant: null,
      tags: [],
      transfer: null,
      created_at: '2026-12-01T10:00:00Z',
      updated_at: '2026-12-03T17:00:00Z',
    });
    expect(transactionJson(transaction('$30.84', 'USD')).ascii).toBe(true);
    // Intl writes a no-break space between the code and the figure.
    const zloty = transactionJson(transaction('PLN\u00a030.84', 'PLN'));
    expect(zloty).toEqual({ text: JSON.stringify(transaction('PLN\u00a030.84', 'PLN')), ascii: false });
  });
});

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AccountSchema, BalanceSchema, createTransactionSchema } from '../src/wire/schemas.js';

/** A transaction as the normalized model describes it. */
const canonicalTransaction = fc.record({
  id: fc.option(fc.stringMatching(/^tx_[a-z0-9]{6,20}$/), { nil: null }),
  accountId: fc.integer({ min: 1, max: 10_000_000 }).map(String),
  cents: fc.integer({ min: -10_000_000_00, max: 10_000_000_00 }),
  currency: fc.constantFrom('GBP', 'EUR', 'USD'),
  date: fc
    .date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2030-12-31T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => d.toISOString().slice(0, 10)),
  merchant: fc.option(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 &.-]{0,30}[A-Za-z0-9]$/), { nil: null }),
  description: fc.option(fc.stringMatching(/^[A-Z][A-Z0-9 ]{0,40}[A-Z0-9]$/), { nil: null }),
  isPending: fc.boolean(),
});

type Canonical = typeof canonicalTransaction extends fc.Arbitrary<infer T> ? T : never;

function decimalOf(cents: number): string {
  const sign = cents < 0 ? '-' : '';
  const abs = Math.abs(cents);
  const text = `${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`.replace(/\.?0+$/, '');
  return abs === 0 ? '0' : `${sign}${text}`;
}

/** Every way the wire has been seen to spell the same transaction. */
const variantEncoding = (tx: Canonical) =>
  fc
    .record({
      idAsEmptyString: fc.boolean(),
      idKey: fc.constantFrom('id', 'transaction_id'),
      accountKey: fc.constantFrom('accountId', 'account_id', 'none'),
      accountAsNumber: fc.boolean(),
      amountAs: fc.constantFrom('number', 'string', 'padded-string'),
      dateAs: fc.constantFrom('date', 'iso', 'iso-offset-free', 'unix'),
      merchantKey: fc.constantFrom('merchant', 'merchant_name', 'payee'),
      blankAs: fc.constantFrom('null', 'empty', 'whitespace', 'absent'),
      pendingKey: fc.constantFrom('isPending', 'pending', 'is_pending'),
      pendingAs: fc.constantFrom('boolean', 'string'),
      currencyCase: fc.constantFrom('upper', 'lower'),
    })
    .map((v) => {
      const wire: Record<string, unknown> = {};
      wire[v.idKey] = tx.id ?? (v.idAsEmptyString ? '' : null);
      if (v.accountKey !== 'none')
        wire[v.accountKey] = v.accountAsNumber ? Number(tx.accountId) : tx.accountId;
      const decimal = decimalOf(tx.cents);
      wire.amount =
        v.amountAs === 'number'
          ? tx.cents / 100
          : v.amountAs === 'string'
            ? decimal
            : (tx.cents / 100).toFixed(2);
      wire.currency = v.currencyCase === 'upper' ? tx.currency : tx.currency.toLowerCase();
      wire.date =
        v.dateAs === 'date'
          ? tx.date
          : v.dateAs === 'iso'
            ? `${tx.date}T00:00:00.000Z`
            : v.dateAs === 'iso-offset-free'
              ? `${tx.date}T12:34:56`
              : Date.parse(`${tx.date}T08:00:00Z`) / 1000;
      const blank = { null: null, empty: '', whitespace: '  \n ', absent: undefined }[v.blankAs];
      const merchant = tx.merchant ?? blank;
      if (merchant !== undefined) wire[v.merchantKey] = merchant;
      const description = tx.description ?? blank;
      if (description !== undefined) wire.description = description;
      wire[v.pendingKey] = v.pendingAs === 'boolean' ? tx.isPending : String(tx.isPending);
      return wire;
    });

describe('normalization is independent of the wire variant', () => {
  it('every accepted spelling of a transaction normalizes to the same model', () => {
    const schema = createTransactionSchema();
    fc.assert(
      fc.property(
        canonicalTransaction.chain((tx) =>
          fc.tuple(fc.constant(tx), variantEncoding(tx), variantEncoding(tx)),
        ),
        ([tx, first, second]) => {
          const a = schema.parse(first);
          const b = schema.parse(second);
          const expected = {
            id: tx.id,
            amount: decimalOf(tx.cents),
            currency: tx.currency,
            date: tx.date,
            merchant: tx.merchant,
            description: tx.description,
            isPending: tx.isPending,
          };
          // accountId may be absent on the wire; the client fills it from the request path.
          const { accountId: _a, ...restA } = a;
          const { accountId: _b, ...restB } = b;
          expect(restA).toEqual(expected);
          expect(restB).toEqual(expected);
        },
      ),
      { numRuns: 500 },
    );
  });

  it('account ids and balances normalize the same as numbers or strings', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 40 }), fc.integer({ min: -1e9, max: 1e9 }), (id, cents) => {
        const asNumber = AccountSchema.parse({ id, name: 'A', status: 'active' });
        const asString = AccountSchema.parse({ id: String(id), name: 'A', status: 'ACTIVE' });
        expect(asNumber).toEqual(asString);
        const fromNumber = BalanceSchema.parse({ balance: { amount: cents / 100, currency: 'gbp' } });
        const fromString = BalanceSchema.parse({
          balance: { amount: (cents / 100).toFixed(2), currency: 'GBP' },
        });
        const fromCurrent = BalanceSchema.parse({ balance: { current: decimalOf(cents), currency: 'GBP' } });
        expect(fromNumber).toEqual(fromString);
        expect(fromCurrent).toEqual(fromString);
        expect(fromString.amount).toBe(decimalOf(cents));
      }),
      { numRuns: 300 },
    );
  });
});

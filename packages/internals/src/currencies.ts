/**
 * Currencies as the service (Sure) counts them. Its API's `amount_cents` is the amount times the
 * currency's `minor_unit_conversion`, rounded half away from zero, and its `amount` text shows the
 * currency's `default_precision` decimals; both come from Sure's `config/currencies.yml` (RubyMoney's
 * table, close to ISO 4217). Intl (CLDR) follows cash usage instead and disagrees for about thirty
 * currencies: IDR, COP, PKR, IRR and others have 0 decimals in Intl and 2 in Sure, IQD 0 against 3,
 * HUF and the metals 2 against 0. A client reading Sure's `amount_cents` with Intl's scale would be
 * off by a factor of 100 on an Indonesian account, so the table below is the service's, as data.
 *
 * Public through @finsync/service; `currencyScale` and `toAmountCents` through @finsync/provider too,
 * for an app that renders the service's JSON (the reference server) without the service's client.
 */
import type { DecimalString } from './money.js';

export interface ServiceCurrency {
  /** `amount_cents` = amount × this (100 for USD, 1 for JPY, 1000 for KWD, 5 for MGA). */
  conversion: bigint;
  /** Decimals the `amount` text shows (2 for USD, 0 for JPY, 3 for KWD, 1 for MGA). */
  precision: number;
}

/** Sure's config/currencies.yml (we-promise/sure, 2026-08), grouped by conversion and precision. */
const TABLE: ReadonlyArray<readonly [conversion: bigint, precision: number, codes: string]> = [
  [
    100n,
    2,
    'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BRL BSD BTN BWP BYN BZD CAD ' +
      'CDF CHF CNH CNY COP CRC CUC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GGP GHS GIP ' +
      'GMD GTQ GYD HKD HNL HTG IDR ILS IMP INR IRR JEP JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL ' +
      'MAD MDL MKD MMK MNT MOP MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN ' +
      'QAR RON RSD RUB SAR SBD SCR SDG SEK SGD SHP SKK SLE SLL SOS SRD SSP STD STN SVC SYP SZL THB TJS ' +
      'TMT TOP TRY TTD TWD TZS UAH USD USDC UYU UZS VES WST XCD XFU YER ZAR ZMK ZMW',
  ],
  [1000n, 3, 'BHD IQD JOD KWD LYD OMR TND'],
  [
    1n,
    0,
    'BIF BYR CLP DJF GBX GNF HUF ISK JPY KMF KRW PYG RWF UGX VND VUV XAF XAG XAU XBA XBB XBC XBD XDR ' +
      'XOF XPD XPF XPT XTS',
  ],
  [100_000_000n, 8, 'BTC DOGE'],
  [10_000n, 4, 'CLF'],
  // Ariary and ouguiya divide into fifths.
  [5n, 1, 'MGA MRU'],
];

const known = new Map<string, ServiceCurrency>();
for (const [conversion, precision, codes] of TABLE)
  for (const code of codes.split(' ')) known.set(code, { conversion, precision });

const guessed = new Map<string, ServiceCurrency>();

/** Whether the service's table lists `code` (upper case: what a client sends is strict). */
export function isServiceCurrency(code: string): boolean {
  return known.has(code);
}

/**
 * The service's conversion and precision for `currency` (an ISO code, in any case). A code
 * Sure does not list gets Intl's decimals, or 2 when Intl does not know it either.
 */
export function serviceCurrency(given: string): ServiceCurrency {
  // The service stores a code as sent and looks it up in any case (Money::Currency lower-cases it).
  const currency = given.toUpperCase();
  const listed = known.get(currency) ?? guessed.get(currency);
  if (listed) return listed;
  let precision = 2;
  try {
    precision =
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2;
  } catch {
    // Not a currency code Intl accepts: two decimals, as most currencies have.
  }
  const entry = { conversion: 10n ** BigInt(precision), precision };
  // Building a NumberFormat costs far more than the lookup, and there are only so many codes.
  if (guessed.size < 512) guessed.set(currency, entry);
  return entry;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/**
 * The service's `amount_cents` for `amount` (a canonical decimal), signed as `amount` is: the amount
 * times the currency's conversion, rounded half away from zero, as Sure's `(amount * conversion).round(0)`.
 */
export function toAmountCents(amount: DecimalString, currency: string): bigint {
  const match = DECIMAL.exec(amount);
  if (!match) throw new RangeError(`not a decimal string: ${JSON.stringify(amount)}`);
  const [, sign, whole = '0', fraction = ''] = match;
  const scaled = BigInt(whole + fraction) * serviceCurrency(currency).conversion;
  const divisor = 10n ** BigInt(fraction.length);
  const magnitude = (scaled + divisor / 2n) / divisor;
  return sign === '-' ? -magnitude : magnitude;
}

/**
 * The exact decimal that `cents` of `currency` stand for (`cents` / conversion), written with the
 * currency's decimals (`"42.10"` USD, `"1500"` JPY, `"100.4"` MGA): the inverse of `toAmountCents`.
 */
export function amountCentsToDecimal(cents: bigint, currency: string): DecimalString {
  const { conversion } = serviceCurrency(currency);
  // Every conversion divides a power of ten (5 divides 10): scale up to it, then place the point.
  let places = 0;
  let power = 1n;
  while (power % conversion !== 0n) {
    places += 1;
    power *= 10n;
  }
  const negative = cents < 0n;
  const digits = ((negative ? -cents : cents) * (power / conversion)).toString().padStart(places + 1, '0');
  const whole = places === 0 ? digits : digits.slice(0, -places);
  const body = places === 0 ? whole : `${whole}.${digits.slice(-places)}`;
  return negative && cents !== 0n ? `-${body}` : body;
}

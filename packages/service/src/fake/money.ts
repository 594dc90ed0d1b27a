/**
 * Money as the service stores and shows it: amounts are decimals with 4 places (`decimal(19,4)`),
 * positive = expense; `amount` strings are `Money#format` for a locale (Rails `number_to_currency`).
 */
import { serviceCurrency } from '@finsync/internals/currencies';

/** Amounts are kept as bigint ten-thousandths, like the service's `decimal(19,4)` column. */
const STORE_SCALE = 4;
const STORE_FACTOR = 10n ** BigInt(STORE_SCALE);
/** `decimal(19,4)` holds less than 10^15; more overflows the column (an exception, so a 500). */
export const MAX_ABS_UNITS = 10n ** 15n * STORE_FACTOR;

/** Divides, rounding half away from zero (Ruby's BigDecimal default). */
function divRound(value: bigint, divisor: bigint): bigint {
  const negative = value < 0n;
  const abs = negative ? -value : value;
  const quotient = (abs + divisor / 2n) / divisor;
  return negative ? -quotient : quotient;
}

/** A strict decimal (`"42.10"`, `"-1000"`, `12.5`) → ten-thousandths; `undefined` if not one. */
export function toUnits(amount: string | number): bigint | undefined {
  let text: string;
  if (typeof amount === 'number') {
    if (!Number.isFinite(amount) || Math.abs(amount) >= 1e21) return undefined;
    text = amount.toFixed(STORE_SCALE + 2);
  } else {
    text = amount.trim();
  }
  const match = /^([+-]?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) return undefined;
  const [, sign, whole, fraction = ''] = match;
  const digits = BigInt(`${whole}${fraction}`);
  const scaled =
    fraction.length <= STORE_SCALE
      ? digits * 10n ** BigInt(STORE_SCALE - fraction.length)
      : divRound(digits, 10n ** BigInt(fraction.length - STORE_SCALE));
  return sign === '-' ? -scaled : scaled;
}

/** Ten-thousandths → the shortest decimal string (`"42.1"`, `"-1000"`, `"0"`). */
export function unitsToDecimal(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const whole = abs / STORE_FACTOR;
  const fraction = (abs % STORE_FACTOR).toString().padStart(STORE_SCALE, '0').replace(/0+$/, '');
  const body = fraction ? `${whole}.${fraction}` : `${whole}`;
  return negative && abs !== 0n ? `-${body}` : body;
}

/**
 * Ruby's `String#to_f`: the longest leading float, else 0.0. `"abc"` → 0, `"1,234.56"` → 1,
 * `"12.5kg"` → 12.5, `"1_000"` → 1000. This is what the service does to a PATCH `amount` string.
 */
export function rubyToF(text: string): number {
  const match = /^\s*([+-]?)(\d+(?:_\d+)*)?(?:\.(\d+(?:_\d+)*))?(?:[eE]([+-]?\d+))?/.exec(text);
  if (!match || (match[2] === undefined && match[3] === undefined)) return 0;
  const [, sign = '', whole = '0', fraction, exponent] = match;
  const value = Number(
    `${sign}${whole.replace(/_/g, '')}${fraction ? `.${fraction.replace(/_/g, '')}` : ''}${exponent ? `e${exponent}` : ''}`,
  );
  return Number.isFinite(value) ? value : 0;
}

function unitsOf(amount: string | number | bigint): bigint {
  const units = typeof amount === 'bigint' ? amount : toUnits(amount);
  if (units === undefined) throw new RangeError(`not a decimal amount: ${String(amount)}`);
  return units;
}

/**
 * Signed minor units as `amount_cents` counts them (cents for USD, yen for JPY, fils for KWD, fifths
 * for MGA): the amount times the currency's `minor_unit_conversion`, rounded half away from zero.
 */
export function toMinorUnits(amount: string | number | bigint, currency: string): bigint {
  return divRound(unitsOf(amount) * serviceCurrency(currency).conversion, STORE_FACTOR);
}

/** The amount rounded to `precision` decimals, as a count of 10^-precision (what `amount` shows). */
function toPrecision(amount: string | number | bigint, precision: number): bigint {
  const units = unitsOf(amount);
  return precision <= STORE_SCALE
    ? divRound(units, 10n ** BigInt(STORE_SCALE - precision))
    : units * 10n ** BigInt(precision - STORE_SCALE);
}

interface LocaleFormat {
  /** `%u` = unit (symbol), `%n` = number. */
  pattern: string;
  delimiter: string;
  separator: string;
}

const NBSP = '\u00a0';
const EN: LocaleFormat = { pattern: '%u%n', delimiter: ',', separator: '.' };
const SUFFIXED: LocaleFormat = { pattern: '%n %u', delimiter: '.', separator: ',' };
const LOCALE_FORMATS: Record<string, LocaleFormat> = {
  en: EN,
  de: SUFFIXED,
  es: SUFFIXED,
  it: SUFFIXED,
  tr: SUFFIXED,
  ca: SUFFIXED,
  ro: SUFFIXED,
  fr: { pattern: `%n${NBSP}%u`, delimiter: NBSP, separator: ',' },
  nl: { pattern: '%u %n', delimiter: '.', separator: ',' },
  'pt-BR': { pattern: '%u %n', delimiter: '.', separator: ',' },
};

/** The locales the fake formats for; anything else falls back to `en`, like the service. */
export const SUPPORTED_LOCALES: readonly string[] = Object.keys(LOCALE_FORMATS);

const SYMBOLS: Record<string, string> = {
  USD: '$',
  EUR: '€',
  GBP: '£',
  JPY: '¥',
  CAD: 'CA$',
  AUD: 'AU$',
  CHF: 'CHF',
  KWD: 'KD',
};

function currencySymbol(currency: string): string {
  const code = currency.toUpperCase();
  const known = SYMBOLS[code];
  if (known) return known;
  try {
    const parts = new Intl.NumberFormat('en', { style: 'currency', currency: code }).formatToParts(0);
    return parts.find((p) => p.type === 'currency')?.value ?? code;
  } catch {
    return code;
  }
}

/** Picks a supported locale from `?locale=` or an `Accept-Language` header; `en` otherwise. */
export function resolveLocale(...candidates: Array<string | null | undefined>): string {
  for (const candidate of candidates) {
    if (!candidate) continue;
    for (const part of candidate.split(',')) {
      const tag = part.split(';')[0]?.trim() ?? '';
      if (!tag) continue;
      const exact = SUPPORTED_LOCALES.find((l) => l.toLowerCase() === tag.toLowerCase());
      if (exact) return exact;
      const language = tag.split('-')[0]?.toLowerCase();
      const loose = SUPPORTED_LOCALES.find((l) => l.toLowerCase() === language);
      if (loose) return loose;
    }
  }
  return 'en';
}

/**
 * The service's `amount` string: `"$42.10"`, `"-$1,000.00"`, `"¥1,235"`, `"1.234,56 €"` (de).
 * The sign is the stored one (positive = expense); values that round to zero are unsigned.
 */
export function formatServiceMoney(
  amount: string | number | bigint,
  currency: string,
  locale = 'en',
): string {
  const scale = serviceCurrency(currency).precision;
  const minor = toPrecision(amount, scale);
  const format = LOCALE_FORMATS[locale] ?? EN;
  const abs = minor < 0n ? -minor : minor;
  const digits = abs.toString().padStart(scale + 1, '0');
  const whole = scale === 0 ? digits : digits.slice(0, -scale);
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, format.delimiter);
  const number = scale === 0 ? grouped : `${grouped}${format.separator}${digits.slice(-scale)}`;
  const text = format.pattern.replace('%u', currencySymbol(currency)).replace('%n', number);
  return minor < 0n ? `-${text}` : text;
}

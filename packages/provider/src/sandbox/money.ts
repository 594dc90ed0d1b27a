// Amounts live as integers in minor units end to end; decimal strings and JSON numbers are only
// produced at the edges, so no sum is ever computed in floating point.

const ZERO_DECIMAL = new Set([
  'BIF',
  'CLP',
  'DJF',
  'GNF',
  'ISK',
  'JPY',
  'KMF',
  'KRW',
  'PYG',
  'RWF',
  'UGX',
  'UYI',
  'VND',
  'VUV',
  'XAF',
  'XOF',
  'XPF',
]);
const THREE_DECIMAL = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

/** ISO 4217 minor-unit digits (JPY 0, BHD 3, otherwise 2). */
export function currencyDecimals(currency: string): number {
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return 0;
  if (THREE_DECIMAL.has(code)) return 3;
  return 2;
}

// Rough size of one "pound" of spending in each currency, so yen amounts look like yen amounts.
const MAGNITUDE: Record<string, number> = {
  JPY: 150,
  KRW: 1300,
  HUF: 350,
  PLN: 5,
  ISK: 150,
  CLP: 900,
  BHD: 0.5,
  KWD: 0.4,
  OMR: 0.5,
  JOD: 0.9,
};

export function currencyMagnitude(currency: string): number {
  return MAGNITUDE[currency.toUpperCase()] ?? 1;
}

/** Exact decimal string with exactly `decimals` fraction digits, e.g. (-2340, 2) → "-23.40". */
export function formatMinor(minor: number, decimals: number): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`Not a safe integer amount: ${minor}`);
  const negative = minor < 0;
  const digits = String(Math.abs(minor));
  if (decimals === 0) return (negative ? '-' : '') + digits;
  const padded = digits.padStart(decimals + 1, '0');
  const whole = padded.slice(0, -decimals);
  return `${negative ? '-' : ''}${whole}.${padded.slice(-decimals)}`;
}

const POWERS_OF_TEN = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/**
 * JSON number for a minor-unit amount. Number("-23.40") prints as -23.4: the shortest form that
 * round-trips, which is exactly the decimal for amounts of at most 15 significant digits (below
 * 10^15 minor units); past that a double may not hold the decimal (90000000000000.01 prints as
 * …02), as for any JSON number the provider sends.
 * A division gives the same number as parsing the decimal: both operands are exact, and IEEE
 * division rounds the exact quotient, the decimal itself, to the nearest double, as parsing does.
 */
export function minorToNumber(minor: number, decimals: number): number {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`Not a safe integer amount: ${minor}`);
  const scale = POWERS_OF_TEN[decimals];
  // `+ 0` turns a -0 (from -0 minor units) into the 0 that Number("0.00") gives.
  return scale === undefined ? Number(formatMinor(minor, decimals)) : minor / scale + 0;
}

const DECIMAL = /^(-?)(\d+)(?:\.(\d+))?$/;

/** Parses a decimal string into minor units; rejects more fraction digits than the currency has. */
export function parseMinor(text: string, decimals: number): number {
  const match = DECIMAL.exec(text.trim());
  if (!match) throw new RangeError(`Not a decimal amount: ${JSON.stringify(text)}`);
  const [, sign, whole = '0', fraction = ''] = match;
  if (fraction.replace(/0+$/, '').length > decimals) {
    throw new RangeError(`${JSON.stringify(text)} has more than ${decimals} decimal places`);
  }
  const minor = Number(whole + fraction.padEnd(decimals, '0').slice(0, decimals));
  if (!Number.isSafeInteger(minor)) throw new RangeError(`Amount out of range: ${text}`);
  return sign === '-' ? -minor : minor;
}

/** Minimal decimal string for a scaled integer, trailing zeros dropped (quantities): (12500, 3) → "12.5". */
export function formatScaled(value: number, scale: number): string {
  const fixed = formatMinor(value, scale);
  return scale === 0 ? fixed : fixed.replace(/\.?0+$/, '');
}

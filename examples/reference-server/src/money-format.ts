/**
 * Money as the service formats it for the `en` locale: `"$42.10"`, `"-$1,000.00"`, `"¥1,235"`.
 *
 * Intl is the definition, and is asked once per currency for its pattern (what comes before and
 * after the digits, the separators, the number of decimals). Each amount is then written from that
 * pattern by string operations: in a running server, Intl's `format` cost ~15 µs of a PATCH's
 * ~200 µs (docs/benchmarks.md, "Reference-server PATCH"), far more than its cost in a tight loop,
 * because ICU's formatting code falls out of the CPU's caches between requests. An amount of
 * any other shape than plain decimal text is formatted by Intl itself. A property test over every
 * currency Intl knows holds the two to the same output.
 */
import { currencyScale } from '@finsync/provider';

interface MoneyPattern {
  /** Text before and after the digits, for amounts that show as positive and as negative. */
  positive: readonly [string, string];
  negative: readonly [string, string];
  group: string;
  decimal: string;
  fractionDigits: number;
  formatter: Intl.NumberFormat;
}

const patterns = new Map<string, MoneyPattern | Intl.NumberFormat>();
/** Longer integer parts are left to Intl, which handles any length (amounts are far shorter). */
const PLAIN_DECIMAL = /^(-?)0*(\d{1,24}?)(?:\.(\d{1,24}))?$/;

function formatterFor(currency: string): Intl.NumberFormat {
  // The service's decimals, not Intl's: 2 for IDR and COP, 0 for HUF (see `currencyScale`), so the
  // text agrees with `amount_cents`.
  const digits = currencyScale(currency);
  const decimals = { minimumFractionDigits: digits, maximumFractionDigits: digits };
  try {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency,
      signDisplay: 'negative',
      ...decimals,
    });
  } catch {
    // Not a currency Intl accepts: the number alone.
    return new Intl.NumberFormat('en-US', { ...decimals, signDisplay: 'negative' });
  }
}

/** The text around the digits, read from how Intl writes a probe amount with a group and decimals. */
function affixes(parts: Intl.NumberFormatPart[]): [string, string] {
  const isNumber = (p: Intl.NumberFormatPart) =>
    p.type === 'integer' || p.type === 'group' || p.type === 'decimal' || p.type === 'fraction';
  const first = parts.findIndex(isNumber);
  const last = parts.findLastIndex(isNumber);
  const text = (list: Intl.NumberFormatPart[]) => list.map((p) => p.value).join('');
  return [text(parts.slice(0, first)), text(parts.slice(last + 1))];
}

function patternFor(currency: string): MoneyPattern | Intl.NumberFormat {
  const formatter = formatterFor(currency);
  const { minimumFractionDigits, maximumFractionDigits } = formatter.resolvedOptions();
  const probe = formatter.formatToParts(1234.5);
  const group = probe.find((p) => p.type === 'group')?.value;
  const decimal = probe.find((p) => p.type === 'decimal')?.value ?? '.';
  // A pattern this file does not know how to write (no grouping, a range of decimals): Intl writes it.
  if (group === undefined || minimumFractionDigits !== maximumFractionDigits) return formatter;
  return {
    positive: affixes(probe),
    negative: affixes(formatter.formatToParts(-1234.5)),
    group,
    decimal,
    fractionDigits: maximumFractionDigits ?? 0,
    formatter,
  };
}

/** Adds one to a string of digits: "0199" → "0200", "999" → "1000". */
function increment(digits: string): string {
  let i = digits.length - 1;
  while (i >= 0 && digits[i] === '9') i--;
  if (i < 0) return `1${'0'.repeat(digits.length)}`;
  return (
    digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + '0'.repeat(digits.length - i - 1)
  );
}

function grouped(integer: string, separator: string): string {
  const head = integer.length % 3 || 3;
  let out = integer.slice(0, head);
  for (let i = head; i < integer.length; i += 3) out += separator + integer.slice(i, i + 3);
  return out;
}

/** `amount` (exact decimal text) in `currency`, as the service shows it; see the file's header. */
export function formatMoney(amount: string, currency: string): string {
  let pattern = patterns.get(currency);
  if (!pattern) {
    pattern = patternFor(currency);
    if (patterns.size >= 1_000) patterns.clear();
    patterns.set(currency, pattern);
  }
  const match = pattern instanceof Intl.NumberFormat ? null : PLAIN_DECIMAL.exec(amount);
  if (!match) {
    const formatter = pattern instanceof Intl.NumberFormat ? pattern : pattern.formatter;
    // A string keeps the exact decimal: Intl formats it without passing through a double.
    return formatter.format(amount as unknown as number);
  }
  const { fractionDigits: scale } = pattern as MoneyPattern;
  const [, sign, integerPart = '0', fractionPart = ''] = match;
  let integer = integerPart;
  let fraction = fractionPart.slice(0, scale).padEnd(scale, '0');
  // Half away from zero, as Intl rounds ("halfExpand"): only the first dropped digit decides.
  if (fractionPart.length > scale && fractionPart.charCodeAt(scale) >= 53 /* "5" */) {
    const raised = increment(integer + fraction);
    integer = raised.slice(0, raised.length - scale);
    fraction = raised.slice(raised.length - scale);
  }
  const { positive, negative, group, decimal } = pattern as MoneyPattern;
  // A negative amount that rounds to zero shows as zero, without a sign.
  const [prefix, suffix] = sign && /[1-9]/.test(integer + fraction) ? negative : positive;
  return `${prefix}${grouped(integer, group)}${scale > 0 ? decimal + fraction : ''}${suffix}`;
}

import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonListScanner, ListScanError, elementsOf } from '../src/wire/list-scanner.js';

/**
 * Feeds `text` to a scanner in the given cut points and returns what it handed out, read both ways:
 * each run as one JSON array, and each element of it on its own (the two must agree).
 */
function scan(text: string, cuts: number[], options: { maxElementChars?: number } = {}) {
  const scanner = new JsonListScanner({ listKey: 'transactions', ...options });
  const elements: unknown[] = [];
  let at = 0;
  for (const cut of [...cuts.filter((c) => c > 0 && c < text.length)]
    .sort((a, b) => a - b)
    .concat(text.length)) {
    const run = scanner.write(text.slice(at, cut));
    const whole = JSON.parse(`[${run.text}]`) as unknown[];
    expect(whole).toHaveLength(run.count);
    expect(elementsOf(run).map((element) => JSON.parse(element) as unknown)).toEqual(whole);
    elements.push(...whole);
    at = cut;
  }
  return { elements, envelope: scanner.end() };
}

const cutPoints = fc.array(fc.nat({ max: 4000 }), { maxLength: 40 });
// Strings full of what a scanner could mistake for structure.
const tricky = fc.oneof(
  fc.string(),
  fc.constantFrom(
    '{',
    '}',
    '[',
    ']',
    ',',
    ':',
    '"',
    '\\',
    '\\"',
    '"transactions":[',
    '\u00e9\u20ac\ud83d\ude00',
  ),
);
const row = fc.record({
  id: fc.oneof(fc.constant(null), fc.string(), fc.integer()),
  amount: fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.string()),
  merchant: fc.oneof(fc.constant(null), tricky),
  raw: fc.jsonValue({ maxDepth: 3 }),
});
const element = fc.oneof(
  { weight: 5, arbitrary: row },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

describe('JsonListScanner', () => {
  it('hands out exactly the list JSON.parse reads, however the text is cut', () => {
    fc.assert(
      fc.property(
        fc.array(element, { maxLength: 30 }),
        fc.dictionary(
          fc.string().filter((k) => k !== 'transactions'),
          fc.jsonValue({ maxDepth: 2 }),
          {
            maxKeys: 4,
          },
        ),
        fc.boolean(),
        fc.nat({ max: 3 }),
        cutPoints,
        (list, others, listFirst, indent, cuts) => {
          const body = listFirst ? { transactions: list, ...others } : { ...others, transactions: list };
          const text = JSON.stringify(body, null, indent);
          const expected = JSON.parse(text) as Record<string, unknown>;
          const { elements, envelope } = scan(text, cuts);
          expect(elements).toEqual(expected.transactions);
          expect(envelope).toEqual({ ...expected, transactions: [] });
        },
      ),
      { numRuns: 400 },
    );
  });

  it('hands out nothing for a body without the list, and gives that body back whole', () => {
    for (const text of [
      '{"total":3}',
      '{"transactions":null,"total":0}',
      '[1,2]',
      '{"other":[{"transactions":[1]}]}',
    ]) {
      const { elements, envelope } = scan(text, [3]);
      expect(elements).toEqual([]);
      expect(envelope).toEqual(JSON.parse(text));
    }
  });

  it('rejects what is not JSON', () => {
    const bad = [
      '{"transactions":[{"a":1},,{"b":2}]}',
      '{"transactions":[{"a":1},]}',
      '{"transactions":[{"a":1}',
      '{"transactions":[],"total":',
      '{"transactions":[{"a":"unterminated}]}',
      '{"transactions":[1],"transactions":[2]}',
    ];
    for (const text of bad) {
      expect(() => {
        const { elements } = scan(text, [7, 20]);
        return elements;
      }, text).toThrow();
    }
    expect(() => scan('{"transactions":[1] ]}', [])).toThrow(ListScanError);
  });

  it('refuses an element longer than its bound, without keeping it', () => {
    const text = JSON.stringify({ transactions: [{ a: 'x'.repeat(100) }] });
    expect(() => scan(text, [10, 20, 30, 40, 50, 60, 70, 80], { maxElementChars: 50 })).toThrow(
      /longer than 50/,
    );
    expect(scan(text, [], { maxElementChars: 200 }).elements).toHaveLength(1);
  });
});

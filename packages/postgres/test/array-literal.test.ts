import { postgresSuiteName } from '@finsync/test-utils';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrayLiteral } from '../src/array-literal.js';
import { adminPool, url } from './helpers.js';

describe('arrayLiteral', () => {
  it('quotes every string, so none can read as NULL, and writes null as the NULL keyword', () => {
    expect(arrayLiteral(['a', 'NULL', null, ''])).toBe('{"a","NULL",null,""}');
    expect(arrayLiteral([true, false, null])).toBe('{true,false,null}');
    expect(arrayLiteral([0, 3])).toBe('{0,3}');
    expect(arrayLiteral([])).toBe('{}');
  });

  it('escapes quotes and backslashes as a quoted element reads them', () => {
    expect(arrayLiteral(['say "hi"', 'C:\\', '{a,b}'])).toBe('{"say \\"hi\\"","C:\\\\","{a,b}"}');
  });

  it('writes control characters as they are, not as JSON escapes a quoted element would misread', () => {
    // JSON would write "x\ny" as x, backslash, n: PostgreSQL would read that back as "xny".
    expect(arrayLiteral(['x\ny', 'tab\there', 'bell\u0007'])).toBe('{"x\ny","tab\there","bell\u0007"}');
    expect(arrayLiteral(['C:\\new "dir"'])).toBe('{"C:\\\\new \\"dir\\""}');

    // JSON text, as the feed's records are: an escaped line break is a backslash and a letter.
    expect(arrayLiteral(['{"m":"a\\nb"}'])).toBe('{"{\\"m\\":\\"a\\\\nb\\"}"}');
  });
});

/** Text PostgreSQL can store: no NUL, no lone surrogate (UTF-8 has no form for either). */
const storableText = fc.string({ unit: 'binary', maxLength: 40 }).filter((s) => !s.includes('\u0000'));

describe.skipIf(!url)(postgresSuiteName('arrayLiteral read back by PostgreSQL'), () => {
  it('any text, NULL, boolean and smallint array comes back exactly as sent', async () => {
    const pool = adminPool();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.option(storableText, { nil: null }), { maxLength: 12 }),
        fc.array(fc.option(fc.boolean(), { nil: null }), { maxLength: 5 }),
        fc.array(fc.integer({ min: -32768, max: 32767 }), { maxLength: 5 }),
        async (texts, flags, numbers) => {
          const { rows } = await pool.query<{ t: (string | null)[]; b: (boolean | null)[]; n: number[] }>(
            'SELECT $1::text[] AS t, $2::boolean[] AS b, $3::int2[] AS n',
            [arrayLiteral(texts), arrayLiteral(flags), arrayLiteral(numbers)],
          );
          expect(rows[0]).toEqual({ t: texts, b: flags, n: numbers });
        },
      ),
      { numRuns: 300 },
    );
  });
});

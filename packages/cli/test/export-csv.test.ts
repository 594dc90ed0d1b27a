/** What `finsync export --format csv` writes for text a spreadsheet would take for a formula. */
import { describe, expect, it } from 'vitest';
import { csvField, inert } from '../src/commands/export.js';

describe('CSV text from the bank', () => {
  it('that a spreadsheet would run as a formula gets a leading apostrophe, and is shown as text', () => {
    // A transfer's reference is the payer's text: `=HYPERLINK(…)` would run when the file is opened.
    for (const text of ['=HYPERLINK("http://x","pay")', '+1+1', '-2+3', '@SUM(A1)', '\t=1', '\r=1'])
      expect(inert(text), JSON.stringify(text)).toBe(`'${text}`);
    expect(csvField(inert('=1+1,2'))).toBe(`"'=1+1,2"`);
  });

  it('leaves other text, and empty fields, as the bank sent them', () => {
    for (const text of ['Tesco Stores 3297', 'CARD PAYMENT -12.00', '', "O'Neill's"])
      expect(inert(text)).toBe(text);
    expect(inert(null)).toBeNull();
  });
});

/**
 * The current instant as ISO text, for the times the server stamps many times a second: every access
 * line, every PATCH's `updated_at`, every row a feed page writes.
 *
 * Internal to the reference server.
 */

/** The second the cached prefix is of, and its ISO text up to the milliseconds: `2026-12-03T10:28:07.`. */
let prefixSecond = Number.NaN;
let secondPrefix = '';

/**
 * `new Date().toISOString()`, from a prefix made once a second. Each full conversion is V8's date
 * formatting: for the log line's time alone about 2 % of a lone connection's PATCH in instructions,
 * and as much again for its `updated_at` (docs/benchmarks.md, "Reference-server PATCH").
 */
export function isoNow(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== prefixSecond) {
    prefixSecond = second;
    // Up to its `.`: the text always ends `.000Z`, whatever the year's width.
    secondPrefix = new Date(second * 1000).toISOString().slice(0, -4);
  }
  const ms = now - second * 1000;
  return `${secondPrefix}${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`;
}

/**
 * Text every store keeps exactly as given. Two things a JSON string may carry do not survive a
 * database: NUL, which PostgreSQL's text refuses (the write fails), and a lone UTF-16 surrogate
 * (`"\ud83d"` without its pair), which SQLite and PostgreSQL both store as U+FFFD (SQLite as three).
 * A stored value that differs from the one the engine holds is never found again: an id made the
 * account fail every run as a duplicate, a merchant wrote a change to the feed every run. Each
 * becomes U+FFFD here, once, so the text is the same in memory, in every store and in the feed.
 */

// `isWellFormed` and `toWellFormed` are in Node 20's V8 (ES2024), not yet in the ES2023 lib we type against.
interface WellFormed {
  isWellFormed(): boolean;
  toWellFormed(): string;
}

/** True when `text` holds neither NUL nor a lone surrogate, so `storableText(text) === text`. */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && (text as unknown as WellFormed).isWellFormed();
}

/** `text` with each NUL and each lone surrogate replaced by U+FFFD; `text` itself when it has none. */
export function storableText(text: string): string {
  const formed = (text as unknown as WellFormed).isWellFormed()
    ? text
    : (text as unknown as WellFormed).toWellFormed();
  return formed.includes('\u0000') ? formed.replaceAll('\u0000', '\uFFFD') : formed;
}

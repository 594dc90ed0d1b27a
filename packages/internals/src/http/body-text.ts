/** Bodies read as text from their chunks, whole or up to a bound. */

/** At most this many bytes of an error answer are read: its message is in its first few hundred. */
export const MAX_ERROR_BODY_BYTES = 65_536;

function joined(parts: readonly Uint8Array[], bytes: number): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  const whole = new Uint8Array(bytes);
  let at = 0;
  for (const part of parts) {
    whole.set(part, at);
    at += part.byteLength;
  }
  return whole;
}

/** The chunks' bytes, `bytes` of them, as UTF-8 text (a BOM dropped, bad sequences as U+FFFD). */
export function chunksText(parts: readonly Uint8Array[], bytes: number): string {
  return new TextDecoder().decode(joined(parts, bytes));
}

/**
 * An error answer's body as text: its first `MAX_ERROR_BODY_BYTES` at most, the rest let go, and what
 * arrived before a failed read. Only a message and an excerpt are kept from it, so a server answering
 * an error with a huge body costs no more than that. Once `signal` aborts (the caller's, or the
 * attempt's timeout), what arrived is returned at once: a fetch whose body is not tied to the signal
 * (a custom fetch, msw) would otherwise keep the caller waiting on a body that stopped coming.
 */
export async function errorBodyText(response: Response, signal?: AbortSignal): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return '';
  const parts: Uint8Array[] = [];
  let bytes = 0;
  // A cancel ends a pending read as done, so the loop below stops with what it has.
  const onAbort = () => void reader.cancel().catch(() => undefined);
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  try {
    while (bytes < MAX_ERROR_BODY_BYTES) {
      const next = await reader.read();
      if (next.done) break;
      parts.push(next.value);
      bytes += next.value.byteLength;
    }
  } catch {
    // What arrived is read; an error answer is not made worse by a body that broke off.
  } finally {
    signal?.removeEventListener('abort', onAbort);
    // Not awaited: a body whose source never answers the cancel must not hang the caller.
    reader.cancel().catch(() => undefined);
  }
  // A character cut at the bound decodes as U+FFFD.
  return new TextDecoder().decode(joined(parts, bytes).subarray(0, MAX_ERROR_BODY_BYTES));
}

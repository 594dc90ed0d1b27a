import { API_KEY } from './data-set.js';

/** The plain baseline: fetch + JSON.parse, as any script would do it. */
export async function fetchJson<T>(url: string): Promise<T> {
  let text: string;
  try {
    const response = await fetch(url, { headers: { 'x-api-key': API_KEY, accept: 'application/json' } });
    if (!response.ok) throw new Error(`${response.status}`);
    text = await response.text();
  } catch (error) {
    // undici says only "fetch failed" or "terminated"; why (a reset, a refused connection) is the cause.
    const cause = (error as { cause?: unknown }).cause;
    const why = cause instanceof Error ? ` (${cause.message})` : '';
    throw new Error(`GET ${url}: ${(error as Error).message}${why}`, { cause: error });
  }
  return JSON.parse(text) as T;
}

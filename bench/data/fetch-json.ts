import { API_KEY } from './data-set.js';

/** The plain baseline: fetch + JSON.parse, as any script would do it. */
export async function fetchJson<T>(url: string): Promise<T> {
  const response = await fetch(url, { headers: { 'x-api-key': API_KEY, accept: 'application/json' } });
  if (!response.ok) throw new Error(`GET ${url}: ${response.status}`);
  return JSON.parse(await response.text()) as T;
}

/**
 * A `fetch` whose queue gives each request its slot only after `ms` (a client-side throttle, as
 * sdk-practices.md recommends at the fetch seam) and which never hears the request's signal: it then
 * answers `answer()`. `passedOn()` counts the requests it let through.
 */
export function heldFetch(
  ms: number,
  answer: () => Response,
): { fetch: typeof globalThis.fetch; passedOn: () => number } {
  let passedOn = 0;
  const fetch = (() =>
    new Promise<Response>((resolve) =>
      setTimeout(() => {
        passedOn += 1;
        resolve(answer());
      }, ms),
    )) as typeof globalThis.fetch;
  return { fetch, passedOn: () => passedOn };
}

/**
 * A `fetch` whose every answer has the given status, its headers and the first bytes of a JSON body,
 * and then nothing more: what a server that stalls mid-answer looks like. As a real connection's
 * body does (and an MSW body does not), the body fails once the request is aborted, so a client's
 * timeout can end it.
 */
export function stalledAnswerFetch(status: number): {
  fetch: (input: RequestInfo | URL) => Promise<Response>;
  calls: () => number;
} {
  let calls = 0;
  const fetch = (input: RequestInfo | URL) => {
    calls += 1;
    const signal = (input as Request).signal;
    const body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        controller.enqueue(new TextEncoder().encode('{"error":"Service'));
        signal.addEventListener('abort', () => controller.error(signal.reason), { once: true });
      },
    });
    return Promise.resolve(new Response(body, { status, headers: { 'content-type': 'application/json' } }));
  };
  return { fetch, calls: () => calls };
}

import { useMswServer } from '@finsync/test-utils';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProviderClient } from '../src/index.js';
import { SandboxProvider, createProviderHandlers, testClientOptions } from '../src/msw.js';

// The README's MSW recipe: 105 calls through the handlers. With the client's default throttle
// (90 per minute, strict) the 91st call waits for a minute; with `testClientOptions` nothing waits.
// The clock is fake and moved by one second only, so what is asserted is the throttle, not a timing.
const CALLS = 105;

const sandbox = new SandboxProvider({ seed: 5 });
useMswServer(...createProviderHandlers(sandbox));

afterEach(() => {
  vi.useRealTimers();
  sandbox.resetRequestLog();
  sandbox.faults.clear();
});

/** Starts `CALLS` balance calls at once and lets one second of fake time pass: how many finished? */
async function finishedWithinOneFakeSecond(client: ProviderClient): Promise<number> {
  vi.useFakeTimers();
  let finished = 0;
  const calls = Array.from({ length: CALLS }, () =>
    client.getBalance('4711').then(() => {
      finished += 1;
    }),
  );
  await vi.advanceTimersByTimeAsync(1_000);
  const count = finished;
  // Let whatever is still throttled through, so nothing outlives the test.
  await vi.advanceTimersByTimeAsync(120_000);
  await Promise.all(calls);
  return count;
}

describe('testClientOptions', () => {
  it('turns the throttle and retries off', () => {
    expect(testClientOptions).toEqual({ rateLimit: false, maxRetries: 0 });
    expect(Object.isFrozen(testClientOptions)).toBe(true);
  });

  it(`lets ${CALLS} calls through MSW without waiting for the throttle`, async () => {
    const client = new ProviderClient({ apiKey: 'sandbox-key', ...testClientOptions });
    expect(await finishedWithinOneFakeSecond(client)).toBe(CALLS);
    expect(sandbox.requestCount).toBe(CALLS);
  });

  it('is what makes the difference: the default client holds the 91st call for the throttle', async () => {
    const client = new ProviderClient({ apiKey: 'sandbox-key' });
    expect(await finishedWithinOneFakeSecond(client)).toBe(90);
    expect(sandbox.requestCount).toBe(CALLS);
  });

  it('fails an injected fault at once instead of retrying it', async () => {
    sandbox.faults.add({ kind: 'status', status: 503, times: 1 });
    const client = new ProviderClient({ apiKey: 'sandbox-key', ...testClientOptions });
    await expect(client.listAccounts()).rejects.toMatchObject({ status: 503, retries: 0 });
    expect(sandbox.requestCount).toBe(1);
  });
});

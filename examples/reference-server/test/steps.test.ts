/** Logic written once as steps runs at once on a store that answers at once, and later on one that does not. */
import { describe, expect, it } from 'vitest';
import { runSteps, step, steps, type Awaitable } from '../src/store/steps.js';

function* addThree(first: () => Awaitable<number>, second: () => Awaitable<number>) {
  const a = yield* step(first());
  const [b, c] = yield* steps<[number, number]>([second(), 1]);
  return a + b + c;
}

describe('runSteps', () => {
  it('answers at once, without a promise, when every step answers at once', () => {
    expect(
      runSteps(
        addThree(
          () => 1,
          () => 2,
        ),
      ),
    ).toBe(4);
  });

  it('goes on asynchronously from the first step that answers later, with the same result', async () => {
    const later = runSteps(
      addThree(
        () => 1,
        () => Promise.resolve(2),
      ),
    );
    expect(later).toBeInstanceOf(Promise);
    expect(await later).toBe(4);
    expect(
      await runSteps(
        addThree(
          () => Promise.resolve(1),
          () => 2,
        ),
      ),
    ).toBe(4);
  });

  it('throws a failure at the step that failed, where the logic can catch it and clean up', async () => {
    const cleaned: string[] = [];
    function* guarded(read: () => Awaitable<number>) {
      try {
        return yield* step(read());
      } catch (error) {
        return `caught ${(error as Error).message}`;
      } finally {
        cleaned.push('done');
      }
    }
    expect(
      runSteps(
        guarded(() => {
          throw new Error('now');
        }),
      ),
    ).toBe('caught now');
    expect(await runSteps(guarded(() => Promise.reject(new Error('later'))))).toBe('caught later');
    expect(cleaned).toEqual(['done', 'done']);
  });

  it('an uncaught failure rejects (later) or throws (at once), and nothing after it runs', async () => {
    let after = false;
    function* failing(read: () => Awaitable<number>) {
      yield* step(read());
      after = true;
      return 1;
    }
    await expect(runSteps(failing(() => Promise.reject(new Error('gone'))))).rejects.toThrow('gone');
    expect(() =>
      runSteps(
        failing(() => {
          throw new Error('gone now');
        }),
      ),
    ).toThrow('gone now');
    expect(after).toBe(false);
  });

  it('several steps that answer later run concurrently and come back in order', async () => {
    const started: string[] = [];
    const slow = (name: string, ms: number) =>
      new Promise<string>((resolve) => {
        started.push(name);
        setTimeout(() => resolve(name), ms);
      });
    function* both() {
      return yield* steps<[string, string]>([slow('a', 30), slow('b', 1)]);
    }
    const t0 = performance.now();
    expect(await runSteps(both())).toEqual(['a', 'b']);
    expect(started).toEqual(['a', 'b']);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

/** LineWriter: what the feed and export commands write with. */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineWriter } from '../src/io.js';

/** A stream that takes `ms` for each chunk, as a slow reader at the other end of a pipe does. */
function slowStream(ms: number) {
  const written: string[] = [];
  const stream = new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _encoding, done) {
      setTimeout(() => {
        written.push(chunk.toString());
        done();
      }, ms);
    },
  });
  return { stream, written };
}

describe('LineWriter', () => {
  it('gives the event loop a turn now and then on a stream that never asks to wait (stdout to a file): a Ctrl-C is heard mid-way', async () => {
    // As a file or a terminal is written: synchronously, never asking the writer to wait.
    const stream = new Writable({
      highWaterMark: 1 << 30,
      write(_chunk: Buffer, _encoding, done) {
        done();
      },
    });
    const out = new LineWriter(stream);
    let heard = false;
    setImmediate(() => (heard = true));
    let written = 0;
    while (!heard && written < 10_000) {
      await out.write(`line ${written}\n`);
      written += 1;
    }
    expect(heard).toBe(true);
    expect(written).toBeLessThan(10_000);
  });

  it('flush resolves once every line written has left, not when the lines were queued', async () => {
    const { stream, written } = slowStream(20);
    const out = new LineWriter(stream);
    for (let i = 0; i < 5; i += 1) await out.write(`line ${i}\n`);
    // Below the stream's mark, every write returned at once: the lines are still queued.
    expect(written.length).toBeLessThan(5);
    expect(await out.flush()).toBe(true);
    expect(written.filter((chunk) => chunk !== '')).toEqual([0, 1, 2, 3, 4].map((i) => `line ${i}\n`));
  });

  it('flush gives up when its signal aborts, and says so', async () => {
    const { stream } = slowStream(1_000);
    const out = new LineWriter(stream);
    await out.write('a line\n');
    const stop = new AbortController();
    const flushed = out.flush(stop.signal);
    stop.abort();
    expect(await flushed).toBe(false);
    expect(await out.flush(AbortSignal.abort())).toBe(false);
  });

  it('flush says false when the stream was destroyed with lines queued (they were dropped)', async () => {
    const { stream, written } = slowStream(50);
    const out = new LineWriter(stream);
    for (let i = 0; i < 5; i += 1) await out.write(`line ${i}\n`);
    const flushed = out.flush();
    stream.destroy();
    expect(await flushed).toBe(false);
    expect(written.length).toBeLessThan(5);
  });

  it('a write waiting for room gives up when its signal aborts', async () => {
    const stream = new Writable({ highWaterMark: 4, write: () => undefined }); // never drains
    const out = new LineWriter(stream);
    const stop = new AbortController();
    const writing = out.write('more than four bytes\n', stop.signal);
    stop.abort();
    expect(await writing).toBe(false);
  });
});

/**
 * Output plumbing. Results go to stdout and everything else (progress, notes, warnings) to stderr,
 * so `finsync feed > changes.ndjson` and `finsync export | …` carry nothing but data.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SyncLogger } from '@finsync/sync';

/** A line for the person at the terminal, never for a pipe reading stdout. */
export function note(message: string): void {
  process.stderr.write(`${message}\n`);
}

export function warn(message: string): void {
  process.stderr.write(`finsync: warning: ${message}\n`);
}

const secrets = new Set<string>();

/** Registers a value no message may show (the API key), whatever code wrote the message. */
export function rememberSecret(value: string): void {
  if (value.length >= 4) secrets.add(value);
}

/**
 * A second line of defence for error output: the provider client never puts the key into errors,
 * but a message from a proxy, a database driver or a bug might, and this is the last point to stop it.
 */
export function redact(text: string): string {
  let out = text;
  for (const secret of secrets) out = out.split(secret).join('[REDACTED]');
  return out;
}

/** Thrown when the reader of stdout went away (`finsync feed | head`): a normal way to stop, not an error. */
export class OutputClosed extends Error {
  override readonly name = 'OutputClosed';
}

/** How many writes that did not have to wait go by before the event loop is given a turn. */
const TURN_EVERY_WRITES = 256;

/**
 * Writes with backpressure: a large export or feed never buffers more than the stream's
 * high-water mark, whatever the speed of the reader.
 */
export class LineWriter {
  #error: Error | undefined;
  /** Writes since the event loop last had a turn. */
  #sinceTurn = 0;

  constructor(readonly stream: Writable) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      this.#error = error.code === 'EPIPE' ? new OutputClosed('output closed') : error;
    });
  }

  /**
   * Resolves once `text` is handed on, or the stream has room again. With `signal`, a wait for a
   * reader that stopped reading ends when it aborts: then it resolves `false`, and `text` may never
   * be written whole (the reader holds part of it, or none).
   */
  async write(text: string, signal?: AbortSignal): Promise<boolean> {
    if (this.#error) throw this.#error;
    if (!this.stream.write(text)) {
      // 'close' and 'error' as well as 'drain': a reader that went away never drains.
      const drained = await new Promise<boolean>((resolve) => {
        const done = (result: boolean) => {
          this.stream.off('drain', onDrain).off('close', onDrain).off('error', onDrain);
          signal?.removeEventListener('abort', onAbort);
          resolve(result);
        };
        const onDrain = () => done(true);
        const onAbort = () => done(false);
        if (signal?.aborted) return done(false);
        this.stream.on('drain', onDrain).on('close', onDrain).on('error', onDrain);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
      if (this.#error) throw this.#error;
      this.#sinceTurn = 0;
      return drained;
    }
    // stdout to a file or a terminal is written synchronously and never asks to wait: without a turn
    // of the event loop now and then, a Ctrl-C was only heard once the whole feed or export was out.
    if (++this.#sinceTurn >= TURN_EVERY_WRITES) {
      this.#sinceTurn = 0;
      await nextTurn();
    }
    return true;
  }

  /**
   * Resolves once everything written so far has left the process (the reader has it, or the pipe's
   * buffer does): `true`, or `false` when `signal` aborted first. Without this, a reader slower than
   * the command's exit lost the lines still queued in the process.
   */
  async flush(signal?: AbortSignal): Promise<boolean> {
    if (this.#error) throw this.#error;
    // A stream destroyed with lines queued dropped them: not flushed.
    if (this.stream.destroyed) return this.stream.writableLength === 0 && !this.stream.errored;
    if (this.stream.writableLength === 0) return true;
    const flushed = await new Promise<boolean>((resolve) => {
      const onAbort = () => resolve(false);
      if (signal?.aborted) return resolve(false);
      signal?.addEventListener('abort', onAbort, { once: true });
      // Written after everything queued, so its callback runs once all of it is out, or with the
      // error that stopped it (a stream destroyed meanwhile calls it with one too).
      this.stream.write('', (error) => {
        signal?.removeEventListener('abort', onAbort);
        resolve(!error);
      });
    });
    if (this.#error) throw this.#error;
    return flushed;
  }

  /** Ends a stream we opened (a file); stdout stays open for whoever prints next. */
  async end(): Promise<void> {
    if (this.#error) throw this.#error;
    if (this.stream === process.stdout) return;
    this.stream.end();
    await once(this.stream, 'finish');
  }

  /** Gives up a stream we opened, after a failure. */
  destroy(): void {
    if (this.stream !== process.stdout) this.stream.destroy();
  }
}

/**
 * The engine's and the client's logs, for `--verbose`. Fields are printed as JSON: the provider
 * client never puts the key in them (see its README), and neither does the engine.
 */
export function createLogger(verbose: boolean, sink: (line: string) => void): SyncLogger | undefined {
  if (!verbose) return undefined;
  const line =
    (level: string) =>
    (message: string, fields?: Record<string, unknown>): void => {
      const rest = fields && Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
      sink(`[${level}] ${message}${rest}`);
    };
  return { debug: line('debug'), info: line('info'), warn: line('warn'), error: line('error') };
}

export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

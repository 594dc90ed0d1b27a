/** Progress lines on stderr, stamped with the seconds since the run started; the table goes to stdout. */
export type Progress = (message: string) => void;

export function createProgress(started: number): Progress {
  return (message) =>
    process.stderr.write(`[${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${message}\n`);
}

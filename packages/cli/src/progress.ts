/**
 * Progress of a sync on stderr, from the engine's `progress` and `account:done` events: bars on a
 * terminal, plain lines in a log (cron, CI), nothing with `--no-progress`.
 */
import cliProgress from 'cli-progress';
import type { AccountReport, SyncEngine, SyncProgress } from '@finsync/sync';

export type ProgressMode = 'bars' | 'lines' | 'off';

/**
 * Bars only when stderr, where they are drawn, is a terminal: `finsync sync > summary.txt` still
 * shows them, and `finsync sync 2> log` gets readable lines instead of cursor codes.
 */
export function progressMode(enabled: boolean, stream: NodeJS.WriteStream = process.stderr): ProgressMode {
  if (!enabled) return 'off';
  return stream.isTTY ? 'bars' : 'lines';
}

interface AccountProgress {
  id: string;
  /** Rows fetched so far (the engine counts across accounts; this is the difference since it started). */
  rows: number;
  /** Provider responses so far: one per window of history (a first sync walks several). */
  windows: number;
  base: number;
  lastLineAt: number;
  bar: cliProgress.SingleBar | undefined;
}

/** Account lines kept on screen; finished ones scroll away first, so 50 accounts fit a terminal. */
const MAX_ACCOUNT_BARS = 12;
/** In line mode, at most one "still fetching" line per account this often. */
const LINE_INTERVAL_MS = 2_000;

const rows = (n: number) => (n === 1 ? '1 row' : `${n} rows`);

export class SyncProgressView {
  readonly #mode: ProgressMode;
  readonly #stream: NodeJS.WriteStream;
  readonly #accounts = new Map<string, AccountProgress>();
  #current: AccountProgress | undefined;
  #multibar: cliProgress.MultiBar | undefined;
  #overall: cliProgress.SingleBar | undefined;
  readonly #finishedBars: cliProgress.SingleBar[] = [];

  constructor(mode: ProgressMode, stream: NodeJS.WriteStream = process.stderr) {
    this.#mode = mode;
    this.#stream = stream;
  }

  /** Follows one engine's runs; returns the unsubscribe function. */
  attach(engine: SyncEngine): () => void {
    if (this.#mode === 'off') return () => undefined;
    const offProgress = engine.on('progress', (p) => this.#onProgress(p));
    const offDone = engine.on('account:done', ({ report }) => this.#onAccountDone(report));
    return () => {
      offProgress();
      offDone();
    };
  }

  /** A line that does not tear the bars apart. */
  log(line: string): void {
    if (this.#multibar) this.#multibar.log(`${line}\n`);
    else this.#stream.write(`${line}\n`);
  }

  stop(): void {
    this.#multibar?.stop();
    this.#multibar = undefined;
    this.#overall = undefined;
  }

  #onProgress(p: SyncProgress): void {
    // The overall bar first, so it stays on top of the account lines.
    if (this.#mode === 'bars')
      this.#overall ??= this.#bars().create(p.accountsTotal, 0, { label: 'syncing', rows: 0 });
    if (p.currentAccountId !== null && p.currentAccountId !== this.#current?.id) {
      // The engine announces each account once, before its first request.
      this.#current = {
        id: p.currentAccountId,
        rows: 0,
        windows: 0,
        base: p.transactionsFetched,
        lastLineAt: Date.now(),
        bar: undefined,
      };
      this.#accounts.set(p.currentAccountId, this.#current);
      if (this.#mode === 'bars') this.#current.bar = this.#accountBar(this.#current);
    } else if (p.currentAccountId !== null && this.#current) {
      // Every later event of the same account is one provider response.
      this.#current.rows = p.transactionsFetched - this.#current.base;
      this.#current.windows += 1;
      if (this.#mode === 'lines' && Date.now() - this.#current.lastLineAt >= LINE_INTERVAL_MS) {
        this.#current.lastLineAt = Date.now();
        this.log(
          `account ${this.#current.id}: ${rows(this.#current.rows)}, ${this.#current.windows} windows…`,
        );
      }
    }
    if (!this.#overall) return;
    this.#overall.setTotal(p.accountsTotal);
    this.#overall.update(p.accountsDone, { rows: p.transactionsFetched });
    const account = this.#current;
    if (account?.bar && p.currentAccountId === account.id)
      account.bar.update(0, { rows: account.rows, windows: account.windows, state: 'fetching…' });
  }

  #onAccountDone(report: AccountReport): void {
    const account = this.#accounts.get(report.accountId);
    const changes = `+${report.added} ~${report.modified} -${report.removed}`;
    const trouble = report.issues.length > 0 ? `, ${report.issues.length} issue(s)` : '';
    if (this.#mode === 'lines') {
      this.log(`account ${report.accountId} (${report.name}): ${rows(report.fetched)}, ${changes}${trouble}`);
      return;
    }
    if (!account?.bar) return;
    account.bar.update(1, {
      label: this.#label(report.accountId, report.name),
      rows: report.fetched,
      windows: account.windows,
      state: report.issues.length > 0 ? `failed${trouble}` : `done ${changes}`,
    });
    this.#finishedBars.push(account.bar);
    if (this.#finishedBars.length + 1 > MAX_ACCOUNT_BARS) {
      const oldest = this.#finishedBars.shift();
      if (oldest) this.#multibar?.remove(oldest);
    }
  }

  #label(id: string, name?: string): string {
    const text = name ? `${id} ${name}` : id;
    return (text.length > 28 ? `${text.slice(0, 27)}…` : text).padEnd(28);
  }

  #accountBar(account: AccountProgress): cliProgress.SingleBar {
    return this.#bars().create(
      1,
      0,
      { label: this.#label(account.id), rows: 0, windows: 0, state: 'fetching…' },
      { format: '  {label} {rows} rows, {windows} windows  {state}' },
    );
  }

  #bars(): cliProgress.MultiBar {
    this.#multibar ??= new cliProgress.MultiBar(
      {
        stream: this.#stream,
        format: '{label} {bar} {value}/{total} accounts, {rows} rows',
        hideCursor: true,
        clearOnComplete: false,
        barsize: 24,
        // Our own SIGINT handler stops the bars (and the sync) cleanly.
        gracefulExit: false,
      },
      cliProgress.Presets.shades_classic,
    );
    return this.#multibar;
  }
}

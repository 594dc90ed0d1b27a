import { Rng } from './random.js';

/** The four provider endpoints the sandbox serves, for matching faults to requests. */
export type SandboxEndpoint = 'accounts' | 'balance' | 'transactions' | 'holdings';

/** Which requests a fault applies to; every given member must match. Omitted: every request. */
export interface FaultMatch {
  /** Only requests to this endpoint. */
  endpoint?: SandboxEndpoint;
  /** Only requests for this account (a number matches its string form). */
  accountId?: string | number;
  /** A string matches a pathname equal to it or ending with it; a RegExp is tested on the pathname. */
  path?: string | RegExp;
}

/** The members every `SandboxFault` takes: which requests it hits, how often, and with what chance. */
export interface FaultCommon {
  /** Which requests it applies to. Default: every request. */
  match?: FaultMatch;
  /** Fires at most this many times, then stays inert. Default: unlimited. */
  times?: number;
  /** Chance (0..1) of firing on each matching request, drawn from the provider's seeded PRNG. */
  probability?: number;
}

/**
 * A failure to inject with `sandbox.faults.add(…)`, chosen by `kind`. Faults are tried in the order
 * added: every firing `latency` adds its delay, and the first other firing fault replaces the answer.
 */
export type SandboxFault = FaultCommon &
  (
    | {
        /** Answer with an HTTP status and an error body. */
        kind: 'status';
        /** The status to answer with, 200 to 599. */
        status: number;
        /** The body to send: a string as is, anything else as JSON. Default: the provider's real body for that status. */
        body?: unknown;
      }
    | {
        /** Answer 429 with a `Retry-After` header. */
        kind: 'rate-limit';
        /** The `Retry-After` in whole seconds. Default 60. */
        retryAfterSeconds?: number;
      }
    | {
        /** Answer 500 with the upstream rate-limit text in the body, as the real provider does. */
        kind: 'rate-limit-500';
        /** The wait named in the message, in whole seconds. */
        retryAfterSeconds: number;
      }
    | {
        /** Delay the answer; other faults still apply after the delay. */
        kind: 'latency';
        /** `ms` up to 2^31 - 1, or `Infinity`: no answer until the request is aborted. */
        ms: number;
      }
    | {
        /** Send the normal answer with its body cut short, so it is not valid JSON. */
        kind: 'malformed-json';
      }
    | {
        /** Drop the connection: the client sees a network error, no status. */
        kind: 'network-error';
      }
  );

/** What `FaultController.add` returns: a way to take the fault back out and see how often it fired. */
export interface FaultHandle {
  /** Takes the fault out; later requests no longer see it. */
  remove(): void;
  /** How many times this fault has fired so far. */
  readonly hits: number;
}

/** What `FaultController.decide` knows about a request when choosing the faults that fire on it. */
export interface FaultRequestInfo {
  /** The endpoint the path routes to, or undefined for a path the sandbox does not serve. */
  endpoint: SandboxEndpoint | undefined;
  /** The account id in the path, for the per-account endpoints. */
  accountId: string | undefined;
  /** The request URL's pathname, e.g. `/api/v1/accounts/4711/balance`. */
  pathname: string;
}

/** The faults `FaultController.decide` chose for one request. */
export interface FaultDecision {
  /** Latency faults are not terminal: every firing one adds its delay, in insertion order. */
  delaysMs: number[];
  /** The first firing non-latency fault, which replaces the normal answer. */
  fault: Exclude<SandboxFault, { kind: 'latency' }> | undefined;
}

interface Entry {
  fault: SandboxFault;
  hits: number;
  removed: boolean;
}

function matches(match: FaultMatch | undefined, info: FaultRequestInfo): boolean {
  if (!match) return true;
  if (match.endpoint !== undefined && match.endpoint !== info.endpoint) return false;
  if (match.accountId !== undefined && String(match.accountId) !== info.accountId) return false;
  if (match.path !== undefined) {
    if (typeof match.path === 'string') {
      if (!info.pathname.endsWith(match.path)) return false;
    } else {
      match.path.lastIndex = 0;
      if (!match.path.test(info.pathname)) return false;
    }
  }
  return true;
}

const FAULT_KINDS: readonly string[] = [
  'status',
  'rate-limit',
  'rate-limit-500',
  'latency',
  'malformed-json',
  'network-error',
] satisfies ReadonlyArray<SandboxFault['kind']>;
const MAX_TIMER_MS = 2 ** 31 - 1;

function validate(fault: SandboxFault): void {
  if (fault.times !== undefined && !(Number.isInteger(fault.times) && fault.times >= 0)) {
    throw new RangeError(`times must be a non-negative integer, got ${fault.times}`);
  }
  if (fault.probability !== undefined && !(fault.probability >= 0 && fault.probability <= 1)) {
    throw new RangeError(`probability must be within 0..1, got ${fault.probability}`);
  }
  if (!FAULT_KINDS.includes(fault.kind)) {
    throw new TypeError(`kind must be one of ${FAULT_KINDS.join(', ')}, got ${JSON.stringify(fault.kind)}`);
  }
  if (
    fault.kind === 'latency' &&
    !((fault.ms >= 0 && fault.ms <= MAX_TIMER_MS) || fault.ms === Number.POSITIVE_INFINITY)
  ) {
    // Node's timers take at most 2^31 - 1 ms and fire at once past it.
    throw new RangeError(`latency ms must be within 0..${MAX_TIMER_MS}, or Infinity, got ${fault.ms}`);
  }
  if (fault.kind === 'rate-limit' || fault.kind === 'rate-limit-500') {
    const seconds = fault.retryAfterSeconds;
    const required = fault.kind === 'rate-limit-500';
    if ((required || seconds !== undefined) && !(Number.isSafeInteger(seconds) && seconds! >= 0)) {
      throw new RangeError(
        `${fault.kind} retryAfterSeconds must be a non-negative integer${required ? '' : ' when given'}, got ${seconds}`,
      );
    }
  }
  if (
    fault.kind === 'status' &&
    !(Number.isInteger(fault.status) && fault.status >= 200 && fault.status <= 599)
  ) {
    throw new RangeError(`status must be an HTTP status code, got ${fault.status}`);
  }
}

/** Injected failures for one provider instance (and hence one handler set or server). */
export class FaultController {
  private entries: Entry[] = [];
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = new Rng(seed);
  }

  /**
   * Adds a fault; it applies to requests from now on. Throws a `RangeError` or `TypeError` for a bad
   * one (`times` below 0, `probability` outside 0..1, an unknown `kind`, …).
   */
  add(fault: SandboxFault): FaultHandle {
    validate(fault);
    const entry: Entry = { fault, hits: 0, removed: false };
    this.entries.push(entry);
    return {
      remove: () => {
        entry.removed = true;
        this.entries = this.entries.filter((e) => e !== entry);
      },
      get hits() {
        return entry.hits;
      },
    };
  }

  /** Removes every fault, so requests get their normal answers again. */
  clear(): void {
    for (const entry of this.entries) entry.removed = true;
    this.entries = [];
  }

  /** Number of faults that can still fire. */
  get active(): number {
    return this.entries.filter((e) => e.fault.times === undefined || e.hits < e.fault.times).length;
  }

  /** Decides (and counts) which faults fire for one request. */
  decide(info: FaultRequestInfo): FaultDecision {
    const decision: FaultDecision = { delaysMs: [], fault: undefined };
    for (const entry of [...this.entries]) {
      const { fault } = entry;
      if (fault.times !== undefined && entry.hits >= fault.times) continue;
      if (!matches(fault.match, info)) continue;
      // Draw only for matching probabilistic faults, so unrelated traffic cannot shift the sequence.
      if (fault.probability !== undefined && !(this.rng.next() < fault.probability)) continue;
      entry.hits++;
      if (fault.kind === 'latency') {
        decision.delaysMs.push(fault.ms);
        continue;
      }
      decision.fault = fault;
      break;
    }
    return decision;
  }
}

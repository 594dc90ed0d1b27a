// Shared by the sandbox's own tests.
import { PROVIDER_BASE_URL } from '@finsync/test-utils';
import type { SandboxProvider, SandboxTransaction } from '../../src/sandbox/provider.js';

export const KEY = 'sandbox-key';

export interface Fetched {
  status: number;
  headers: Headers;
  text: string;
  json: any;
}

export async function call(
  provider: SandboxProvider,
  path: string,
  init: { key?: string | null; method?: string; signal?: AbortSignal; base?: string } = {},
): Promise<Fetched> {
  const headers: Record<string, string> = {};
  const key = init.key === undefined ? KEY : init.key;
  if (key !== null) headers['x-api-key'] = key;
  const request = new Request(`${init.base ?? PROVIDER_BASE_URL}${path}`, {
    method: init.method ?? 'GET',
    headers,
    ...(init.signal ? { signal: init.signal } : {}),
  });
  const response = await provider.handle(request);
  const text = await response.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

/** Exact decimal string → integer minor units, without going through floating point. */
export function toMinor(amount: string, decimals: number): bigint {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(amount);
  if (!match) throw new Error(`not a decimal: ${amount}`);
  const [, sign, whole = '0', fraction = ''] = match;
  if (fraction.length > decimals) throw new Error(`${amount} has more than ${decimals} decimals`);
  const minor = BigInt(whole + fraction.padEnd(decimals, '0'));
  return sign === '-' ? -minor : minor;
}

export function collect(rows: Iterable<SandboxTransaction>): SandboxTransaction[] {
  return Array.from(rows);
}

export const ALL_IDS = ['4711', '4712', '4713', '5001', '5002', '6001', '7001', '8001'];

export function decimalsOf(currency: string): number {
  return currency === 'JPY' ? 0 : currency === 'BHD' ? 3 : 2;
}

/** What a wire row carries: the ground truth without its test-only fields. */
export type WireTransaction = Omit<SandboxTransaction, 'lingering' | 'purchaseId'>;

export function wireView(t: SandboxTransaction): WireTransaction {
  const { lingering: _lingering, purchaseId: _purchaseId, ...wire } = t;
  return wire;
}

/** What `fromWire` reads back for a ground-truth row: the JSON number drops trailing zeros. */
export function asWire(t: SandboxTransaction): WireTransaction {
  return { ...wireView(t), amount: String(Number(t.amount)) };
}

/** Same meaning as a ground-truth row, read from a canonical wire row. */
export function fromWire(row: Record<string, unknown>): WireTransaction {
  return {
    id: row['id'] as string | null,
    accountId: String(row['accountId']),
    amount: String(row['amount']),
    currency: row['currency'] as string,
    date: row['date'] as string,
    merchant: row['merchant'] as string | null,
    description: row['description'] as string | null,
    isPending: row['isPending'] as boolean,
  };
}

export function sameAmount(a: WireTransaction, b: WireTransaction): boolean {
  const d = decimalsOf(a.currency);
  return toMinor(a.amount, d) === toMinor(b.amount, d);
}

import type { AccountModel } from './accounts.js';
import { formatMinor, formatScaled } from './money.js';
import { hashInts, hexFromHash, unit } from './random.js';

/** The security a sandbox holding is in, with the identifiers the provider sends. */
export interface SandboxSecurity {
  /** The security's name, e.g. a fund or company name. */
  name: string | null;
  /** Exchange ticker, or null for securities without one. */
  tickerSymbol: string | null;
  /** ISO 4217 code the security is priced in. */
  currency: string;
  /** OpenFIGI identifier, or null. */
  figi: string | null;
  /** Spelled `cusp` like the provider's docs (it is a CUSIP). */
  cusp: string | null;
  /** ISIN, or null. */
  isin: string | null;
}

/** Ground truth for one holding; decimals as exact strings (see SandboxHoldings). */
export interface SandboxHolding {
  /** The provider's own holding id, found on the wire at `raw.<provider>.id`. */
  id: string;
  /** What is held. */
  security: SandboxSecurity;
  /** Minimal decimal, trailing zeros dropped: "12.5", "1500". */
  quantity: string;
  /** Per unit; fixed currency decimals. */
  price: string;
  /** quantity × price rounded half-up to the currency's minor unit; fixed currency decimals. */
  value: string;
  /** Total cost of the position, or null when the broker does not report it. */
  costBasis: string | null;
  /** The account's ISO 4217 code, which `price`, `value` and `costBasis` are in. */
  currency: string;
}

/**
 * Ground truth for an account's holdings, as `SandboxProvider.holdingsOf` returns it. Decimals are exact
 * strings; the wire sends the same values as JSON numbers.
 */
export interface SandboxHoldings {
  /** Each position of the account. */
  holdings: SandboxHolding[];
  /** Exact sum of `value`; fixed currency decimals. */
  totalValue: string;
  /** The account's ISO 4217 code. */
  currency: string;
}

/** Internal form with integers, shared by the ground truth and the wire encoder. */
export interface HoldingModel {
  id: string;
  security: SandboxSecurity;
  quantityMilli: number;
  priceMinor: number;
  valueMinor: number;
  costBasisMinor: number | null;
}

interface SecurityDef {
  name: string;
  ticker: string | null;
  figi: string | null;
  cusp: string | null;
  isin: string | null;
  /** Price in major units of a dollar-like currency. */
  basePrice: number;
  /** Money-market style: constant price of 1. */
  stable?: boolean;
}

const POOL: readonly SecurityDef[] = [
  {
    name: 'World Index ETF',
    ticker: 'WIDX',
    figi: 'BBG00WIDX0Q1',
    cusp: '98765W101',
    isin: 'US98765W1014',
    basePrice: 101.5,
  },
  {
    name: 'Acme Robotics Inc.',
    ticker: 'ACMR',
    figi: 'BBG00ACMR7K2',
    cusp: '00487R105',
    isin: 'US00487R1059',
    basePrice: 184.2,
  },
  {
    name: 'Treasury Money Market Fund',
    ticker: null,
    figi: null,
    cusp: null,
    isin: null,
    basePrice: 1,
    stable: true,
  },
  {
    name: 'Global Dividend Fund',
    ticker: 'GDIV',
    figi: null,
    cusp: '37950G203',
    isin: 'US37950G2030',
    basePrice: 42.75,
  },
  {
    name: 'Green Energy Trust',
    ticker: 'GRNE',
    figi: 'BBG00GRNE5X5',
    cusp: null,
    isin: 'US39204E1001',
    basePrice: 23.1,
  },
  {
    name: 'Northwind Semiconductors',
    ticker: 'NWSC',
    figi: 'BBG00NWSC3M6',
    cusp: '66490N102',
    isin: 'US66490N1028',
    basePrice: 312.75,
  },
];
const NULL_TICKER_INDEX = 2;

/** 3–5 positions (always including the ticker-less fund), priced as of `day`. */
export function holdingsFor(seedKey: number, acct: AccountModel, day: number): HoldingModel[] {
  const base = hashInts(seedKey, acct.key, 0x401d);
  const count = 3 + (base % 3);
  const order = POOL.map((_, i) => i)
    .filter((i) => i !== NULL_TICKER_INDEX)
    .sort((a, b) => hashInts(base, a) - hashInts(base, b));
  const chosen = [...order.slice(0, count - 1), NULL_TICKER_INDEX].sort((a, b) => a - b);
  // One priced security also lacks a cost basis, besides the money-market fund.
  const noCostBasis = order[base % (count - 1)];
  const scale = 10 ** acct.decimals;
  return chosen.map((poolIndex) => {
    const def = POOL[poolIndex] as SecurityDef;
    const h = hashInts(base, poolIndex);
    const quantityMilli = def.stable ? (1500 + (h % 3500)) * 1000 : (15 + (h % 385)) * (h % 2 ? 100 : 125);
    const jitter = def.stable ? 1 : 0.92 + 0.16 * unit(hashInts(base, poolIndex, day));
    const priceMinor = Math.max(1, Math.round(def.basePrice * acct.magnitude * jitter * scale));
    const valueMinor = Math.round((quantityMilli * priceMinor) / 1000);
    const costFactor = 0.7 + 0.4 * unit(hashInts(h, 7));
    const costBasisMinor =
      def.stable || poolIndex === noCostBasis
        ? null
        : Math.round(
            (quantityMilli * Math.round(def.basePrice * acct.magnitude * scale) * costFactor) / 1000,
          );
    return {
      id: `hld_${hexFromHash(hashInts(seedKey, acct.key, poolIndex, 0x4c), 12)}`,
      security: {
        name: def.name,
        tickerSymbol: def.ticker,
        currency: acct.spec.currency,
        figi: def.figi,
        cusp: def.cusp,
        isin: def.isin,
      },
      quantityMilli,
      priceMinor,
      valueMinor,
      costBasisMinor,
    };
  });
}

export function describeHoldings(acct: AccountModel, models: readonly HoldingModel[]): SandboxHoldings {
  const d = acct.decimals;
  return {
    holdings: models.map((m) => ({
      id: m.id,
      security: { ...m.security },
      quantity: formatScaled(m.quantityMilli, 3),
      price: formatMinor(m.priceMinor, d),
      value: formatMinor(m.valueMinor, d),
      costBasis: m.costBasisMinor === null ? null : formatMinor(m.costBasisMinor, d),
      currency: acct.spec.currency,
    })),
    totalValue: formatMinor(
      models.reduce((sum, m) => sum + m.valueMinor, 0),
      d,
    ),
    currency: acct.spec.currency,
  };
}

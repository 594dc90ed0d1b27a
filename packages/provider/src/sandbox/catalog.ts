import type { Rng } from './random.js';

// Invented but realistic merchants and texts; amounts are in major units of a pound-like currency
// and get scaled by the account currency's magnitude.

export interface Category {
  weight: number;
  eurWeight: number;
  lo: number;
  hi: number;
  merchants: readonly string[];
  kind: 'card' | 'cash' | 'sepa' | 'refund';
}

export const CATEGORIES: readonly Category[] = [
  {
    weight: 18,
    eurWeight: 16,
    lo: 2.2,
    hi: 6.5,
    kind: 'card',
    merchants: ['Corner Cafe', 'Bean There Coffee', 'Daily Grind', 'Flat White Co', 'Kaffeehaus Mitte'],
  },
  {
    weight: 18,
    eurWeight: 16,
    lo: 4,
    hi: 90,
    kind: 'card',
    merchants: [
      'FreshMart',
      'Green Basket Grocers',
      'Value Foods',
      'Market Street Deli',
      'Harvest Superstore',
    ],
  },
  {
    weight: 14,
    eurWeight: 12,
    lo: 1.75,
    hi: 40,
    kind: 'card',
    merchants: ['Bus Co', 'City Rail', 'QuickCab', 'Metro Transit', 'Fuel Stop'],
  },
  {
    weight: 12,
    eurWeight: 10,
    lo: 8,
    hi: 60,
    kind: 'card',
    merchants: ['Luigi Trattoria', 'Spice Route', 'Noodle Bar 88', 'The Red Lion', 'Burger Barn'],
  },
  {
    weight: 12,
    eurWeight: 10,
    lo: 3,
    hi: 120,
    kind: 'card',
    merchants: ['Shopmart Online', 'StreamFlix', 'Bookworm Digital', 'GadgetHub', 'Tunes Unlimited'],
  },
  {
    weight: 6,
    eurWeight: 5,
    lo: 4,
    hi: 60,
    kind: 'card',
    merchants: ['Hardware Haven', 'Home & Co', 'PetPals', "O'Malley's Pharmacy"],
  },
  { weight: 4, eurWeight: 4, lo: 2, hi: 20, kind: 'cash', merchants: ['ATM'] },
  {
    weight: 5,
    eurWeight: 15,
    lo: 9,
    hi: 90,
    kind: 'sepa',
    merchants: [
      'Stadtwerke Musterstadt',
      'Telekom Beispiel AG',
      'Fitness Plus Beispiel',
      'Versicherung Muster AG',
    ],
  },
  {
    weight: 2,
    eurWeight: 2,
    lo: 3,
    hi: 80,
    kind: 'refund',
    merchants: ['Shopmart Online', 'GadgetHub', 'FreshMart', 'Home & Co'],
  },
];
const TOTAL_WEIGHT = CATEGORIES.reduce((sum, c) => sum + c.weight, 0);
const TOTAL_EUR_WEIGHT = CATEGORIES.reduce((sum, c) => sum + c.eurWeight, 0);

/** Expected amount of one random purchase row, in major units (cash averages 5.5 × 20). */
function meanRowMajor(eur: boolean): number {
  let sum = 0;
  let weights = 0;
  for (const c of CATEGORIES) {
    const w = eur ? c.eurWeight : c.weight;
    const mid = c.kind === 'cash' ? 110 : (c.lo + c.hi) / 2;
    sum += w * (c.kind === 'refund' ? mid : -mid);
    weights += w;
  }
  return sum / weights;
}
export const MEAN_ROW = { other: meanRowMajor(false), eur: meanRowMajor(true) };
export const TWIN_MEAN_MAJOR = -3.75;

export const TWIN_MERCHANTS = ['Corner Cafe', 'Bus Co', 'City Rail', 'Daily Grind', 'Burger Barn'];
export const CITIES = ['LONDON', 'LEEDS', 'BRISTOL', 'BERLIN', 'DUBLIN', 'LYON'];
export const PENDING_TEXT = 'Pending authorisation';

export function pickCategory(rng: Rng, eur: boolean): Category {
  let ticket = rng.next() * (eur ? TOTAL_EUR_WEIGHT : TOTAL_WEIGHT);
  for (const category of CATEGORIES) {
    ticket -= eur ? category.eurWeight : category.weight;
    if (ticket < 0) return category;
  }
  return CATEGORIES[0] as Category;
}

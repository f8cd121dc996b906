import type { MarketCode } from './markets.js';

/** Delivery period shape of a product: its month letter names the LAST month of the period. */
export type PeriodKind = 'month' | 'quarter' | 'year';

/** Datamine regions (docs/api.md, GET /api/datamine) plus the regions of the non-electricity products. */
export type Region = 'nsw' | 'qld' | 'vic' | 'sa' | 'otahuhu' | 'benmore' | 'wallumbilla' | 'au' | 'nz';

export type LoadType = 'base' | 'peak' | 'none';

/** Datamine product classes of futures (docs/api.md, GET /api/datamine: field names). */
export type FuturesClass =
  | 'baseMonthFutures'
  | 'baseQuarterFutures'
  | 'peakQuarterFutures'
  | 'caps'
  | 'calFutures'
  | 'stripFutures'
  | 'gasFutures'
  | 'environmentalFutures';

export interface Product {
  /** Two letters: product + region (docs/market-rules.md, markets and products). */
  readonly root: string;
  readonly market: MarketCode;
  readonly region: Region;
  readonly description: string;
  readonly period: PeriodKind;
  readonly load: LoadType;
  /** Megawatts per lot in tenths (1 MW = 10, 0.1 MW = 1); 0 where no delivery hours apply. */
  readonly mwTenths: number;
  readonly unit: string;
  /** Month letters this product lists (quarters: H M U Z; strips: Z and/or M; annual: Z). */
  readonly months: string;
  readonly futuresClass: FuturesClass;
  /** Whether options are listed on this product's futures. */
  readonly hasOptions: boolean;
  /** Typical price level, used by listing rules to centre the option strike range. */
  readonly referencePriceCents: number;
}

const ALL_MONTHS = 'FGHJKMNQUVXZ';
const QUARTERS = 'HMUZ';

function au(
  prefix: string,
  description: string,
  period: PeriodKind,
  load: LoadType,
  futuresClass: FuturesClass,
  months: string,
  hasOptions: boolean,
  reference: Record<'N' | 'Q' | 'V' | 'S', number>,
): Product[] {
  const regions = { N: 'nsw', Q: 'qld', V: 'vic', S: 'sa' } as const;
  return (['N', 'Q', 'V', 'S'] as const).map((letter) => ({
    root: `${prefix}${letter}`,
    market: 'au_electricity' as const,
    region: regions[letter],
    description: `${description}, ${regions[letter].toUpperCase()}`,
    period,
    load,
    mwTenths: 10,
    unit: 'A$/MWh',
    months,
    futuresClass,
    hasOptions,
    referencePriceCents: reference[letter],
  }));
}

function nz(
  root: string,
  region: 'otahuhu' | 'benmore',
  description: string,
  period: PeriodKind,
  load: LoadType,
  futuresClass: FuturesClass,
  months: string,
  hasOptions: boolean,
  referencePriceCents: number,
): Product {
  return {
    root,
    market: 'nz_electricity',
    region,
    description: `${description}, ${region === 'otahuhu' ? 'Otahuhu' : 'Benmore'}`,
    period,
    load,
    mwTenths: 1,
    unit: 'NZ$/MWh',
    months,
    futuresClass,
    hasOptions,
    referencePriceCents,
  };
}

const BASE_AU = { N: 10500, Q: 9500, V: 9000, S: 11500 };
const PEAK_AU = { N: 13500, Q: 12500, V: 11500, S: 15000 };
const CAP_AU = { N: 1200, Q: 1400, V: 900, S: 1800 };

/** Every root of docs/market-rules.md (markets and products), in the order of that table. */
export const PRODUCTS: readonly Product[] = [
  ...au('E', 'Base load month futures', 'month', 'base', 'baseMonthFutures', ALL_MONTHS, false, BASE_AU),
  ...au('B', 'Base load quarter futures', 'quarter', 'base', 'baseQuarterFutures', QUARTERS, true, BASE_AU),
  ...au('P', 'Peak load quarter futures', 'quarter', 'peak', 'peakQuarterFutures', QUARTERS, true, PEAK_AU),
  ...au('G', '$300 cap quarter futures', 'quarter', 'base', 'caps', QUARTERS, false, CAP_AU),
  ...au(
    'H',
    'Base load strip futures (calendar Z, financial M)',
    'year',
    'base',
    'stripFutures',
    'MZ',
    true,
    BASE_AU,
  ),
  nz('ED', 'otahuhu', 'Base month futures', 'month', 'base', 'baseMonthFutures', ALL_MONTHS, false, 15000),
  nz('EH', 'benmore', 'Base month futures', 'month', 'base', 'baseMonthFutures', ALL_MONTHS, false, 14000),
  nz('EA', 'otahuhu', 'Base quarter futures', 'quarter', 'base', 'baseQuarterFutures', QUARTERS, true, 15000),
  nz('EE', 'benmore', 'Base quarter futures', 'quarter', 'base', 'baseQuarterFutures', QUARTERS, true, 14000),
  nz(
    'EC',
    'otahuhu',
    'Peak quarter futures',
    'quarter',
    'peak',
    'peakQuarterFutures',
    QUARTERS,
    false,
    18000,
  ),
  nz(
    'EG',
    'benmore',
    'Peak quarter futures',
    'quarter',
    'peak',
    'peakQuarterFutures',
    QUARTERS,
    false,
    17000,
  ),
  nz('EB', 'otahuhu', 'Base strip (calendar year) futures', 'year', 'base', 'calFutures', 'Z', true, 15000),
  nz('EF', 'benmore', 'Base strip (calendar year) futures', 'year', 'base', 'calFutures', 'Z', true, 14000),
  {
    root: 'GZ',
    market: 'au_gas',
    region: 'wallumbilla',
    description: 'Wallumbilla gas month futures (100 GJ/day)',
    period: 'month',
    load: 'none',
    mwTenths: 0,
    unit: 'A$/GJ',
    months: ALL_MONTHS,
    futuresClass: 'gasFutures',
    hasOptions: false,
    referencePriceCents: 1450,
  },
  env('CA', 'au_environmental', 'au', 'ACCU annual futures (1,000 certificates)', 'A$/certificate', 3500),
  env('CL', 'au_environmental', 'au', 'LGC annual futures (1,000 certificates)', 'A$/certificate', 4500),
  env('CN', 'nz_environmental', 'nz', 'NZU annual futures (1,000 units)', 'NZ$/unit', 6500),
];

function env(
  root: string,
  market: MarketCode,
  region: Region,
  description: string,
  unit: string,
  referencePriceCents: number,
): Product {
  return {
    root,
    market,
    region,
    description,
    period: 'year',
    load: 'none',
    mwTenths: 0,
    unit,
    months: 'Z',
    futuresClass: 'environmentalFutures',
    hasOptions: false,
    referencePriceCents,
  };
}

const BY_ROOT = new Map(PRODUCTS.map((product) => [product.root, product]));

export function productByRoot(root: string): Product | undefined {
  return BY_ROOT.get(root);
}

export function productsOfMarket(market: MarketCode): Product[] {
  return PRODUCTS.filter((product) => product.market === market);
}

/** Months of the delivery period, counted back from the contract's month letter. */
export function periodMonths(period: PeriodKind): number {
  return period === 'month' ? 1 : period === 'quarter' ? 3 : 12;
}

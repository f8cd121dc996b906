/**
 * What the views need of the exchange's contract codes (docs/market-rules.md): the month letter,
 * which delivery period a code stands for, and which root is which product in which region.
 */

const MONTH_LETTERS = 'FGHJKMNQUVXZ';

export type CurveProduct = 'baseMonth' | 'baseQuarter' | 'peakQuarter';

export interface Region {
  readonly id: string;
  readonly label: string;
  readonly market: 'au_electricity' | 'nz_electricity';
  /** The futures roots of the region's curve products. */
  readonly roots: Readonly<Record<CurveProduct, string>>;
}

export const REGIONS: readonly Region[] = [
  {
    id: 'nsw',
    label: 'NSW',
    market: 'au_electricity',
    roots: { baseMonth: 'EN', baseQuarter: 'BN', peakQuarter: 'PN' },
  },
  {
    id: 'vic',
    label: 'VIC',
    market: 'au_electricity',
    roots: { baseMonth: 'EV', baseQuarter: 'BV', peakQuarter: 'PV' },
  },
  {
    id: 'qld',
    label: 'QLD',
    market: 'au_electricity',
    roots: { baseMonth: 'EQ', baseQuarter: 'BQ', peakQuarter: 'PQ' },
  },
  {
    id: 'sa',
    label: 'SA',
    market: 'au_electricity',
    roots: { baseMonth: 'ES', baseQuarter: 'BS', peakQuarter: 'PS' },
  },
  {
    id: 'otahuhu',
    label: 'Otahuhu',
    market: 'nz_electricity',
    roots: { baseMonth: 'ED', baseQuarter: 'EA', peakQuarter: 'EC' },
  },
  {
    id: 'benmore',
    label: 'Benmore',
    market: 'nz_electricity',
    roots: { baseMonth: 'EH', baseQuarter: 'EE', peakQuarter: 'EG' },
  },
];

export const CURVE_PRODUCTS: readonly {
  readonly id: CurveProduct;
  readonly label: string;
  readonly months: number;
}[] = [
  { id: 'baseQuarter', label: 'base quarters', months: 3 },
  { id: 'peakQuarter', label: 'peak quarters', months: 3 },
  { id: 'baseMonth', label: 'base months', months: 1 },
];

export const MARKETS = [
  ['au_electricity', 'AU electricity'],
  ['nz_electricity', 'NZ electricity'],
  ['au_gas', 'AU gas'],
  ['au_environmental', 'AU environmental'],
  ['nz_environmental', 'NZ environmental'],
] as const;

export type MarketCode = (typeof MARKETS)[number][0];

/** A futures code's root, month (1-12, the LAST month of its period) and year; undefined for other shapes. */
export function parseFuturesCode(code: string): { root: string; month: number; year: number } | undefined {
  const match = /^([A-Z]{2})([FGHJKMNQUVXZ])(\d{4})F?$/.exec(code);
  if (!match) return undefined;
  return { root: match[1] ?? '', month: MONTH_LETTERS.indexOf(match[2] ?? '') + 1, year: Number(match[3]) };
}

/**
 * The first day of a delivery period of `months` months whose last month is the code's, as
 * seconds since the epoch on a UTC calendar (the charts show exchange dates, not the browser's).
 */
export function deliveryStart(code: string, months: number): number | undefined {
  const parsed = parseFuturesCode(code);
  if (!parsed) return undefined;
  return Date.UTC(parsed.year, parsed.month - months, 1) / 1000;
}

/** An option code's series (root, month, year: `BNH2027`), strike and type. */
export function parseOptionCode(
  code: string,
): { series: string; strike: number; type: 'call' | 'put' | undefined } | undefined {
  const match = /^([A-Z]{2}[FGHJKMNQUVXZ]\d{4})(\d{7})([CP]?)$/.exec(code);
  if (!match) return undefined;
  const type = match[3] === 'C' ? 'call' : match[3] === 'P' ? 'put' : undefined;
  return { series: match[1] ?? '', strike: Number(match[2]) / 100, type };
}

/** An exchange timestamp (yyyyMMddHHmmss or a date and HHmmss) as seconds on a UTC calendar. */
export function exchangeSeconds(stamp: string): number {
  return (
    Date.UTC(
      Number(stamp.slice(0, 4)),
      Number(stamp.slice(4, 6)) - 1,
      Number(stamp.slice(6, 8)),
      Number(stamp.slice(8, 10)),
      Number(stamp.slice(10, 12)),
      Number(stamp.slice(12, 14)),
    ) / 1000
  );
}

import type { Region } from '../domain/catalogue.js';
import type { DatamineClass } from '../domain/datamine.js';
import { addDays, daysBetween } from '../domain/dates.js';
import { divideRoundedBig } from '../domain/decimal.js';
import type { OpenInterestGroup, VolumeGroup } from '../store/store.js';
import type { QueryContext } from './context.js';
import { invalidParameters, type ParamIssue } from './errors.js';
import { latestPublished, requirePublished, requireRangeInHistory } from './resolve.js';

export type DatamineType = 'au-volume' | 'au-oi' | 'nz-volume';
export const DATAMINE_TYPES: readonly DatamineType[] = ['au-volume', 'au-oi', 'nz-volume'];

/**
 * The spec's limit between from and to (docs/api.md, GET /api/datamine) and the default range (365 days
 * before to).
 */
export const MAX_RANGE_DAYS = 366;
export const DEFAULT_RANGE_DAYS = 365;

export interface DatamineParams {
  readonly type: DatamineType;
  readonly from?: string;
  readonly to?: string;
  readonly date?: string;
}

interface Layout {
  readonly market: 'au_electricity' | 'nz_electricity';
  readonly regions: readonly Region[];
  readonly futuresClasses: readonly DatamineClass[];
  readonly optionClasses: readonly DatamineClass[];
  readonly volume: boolean;
}

const AU_CLASSES = {
  futuresClasses: ['baseMonthFutures', 'baseQuarterFutures', 'peakQuarterFutures', 'caps'],
  optionClasses: ['averageOptions', 'calOptions', 'finOptions', 'peakOptions'],
} as const;

/** Regions and classes per type, in the order of docs/api.md (GET /api/datamine). */
const LAYOUTS: Readonly<Record<DatamineType, Layout>> = {
  'au-volume': {
    market: 'au_electricity',
    regions: ['nsw', 'vic', 'qld', 'sa'],
    ...AU_CLASSES,
    volume: true,
  },
  'au-oi': { market: 'au_electricity', regions: ['nsw', 'vic', 'qld', 'sa'], ...AU_CLASSES, volume: false },
  'nz-volume': {
    market: 'nz_electricity',
    regions: ['otahuhu', 'benmore'],
    futuresClasses: ['baseMonthFutures', 'baseQuarterFutures', 'peakQuarterFutures', 'calFutures'],
    optionClasses: ['averageOptions', 'calOptions'],
    volume: true,
  },
};

/**
 * A measure: its JSON key, the group field it sums and the scale to whole units. Sums are
 * bigints: a year of MWh or face value passes 2^53 at the feed's limits (docs/feed-format.md).
 */
interface Measure<G> {
  readonly name: string;
  readonly value: (group: G) => bigint;
  readonly per: bigint;
}

const VOLUME_MEASURES: readonly Measure<VolumeGroup>[] = [
  { name: 'volume', value: (g) => BigInt(g.volume), per: 1n },
  { name: 'quarterlyEquivalentVolume', value: (g) => BigInt(g.qeThirds), per: 3n },
  { name: 'mwh', value: (g) => g.mwhTenths, per: 10n },
  { name: 'faceValue', value: (g) => g.faceValueMillis, per: 1000n },
  { name: 'count', value: (g) => BigInt(g.count), per: 1n },
];

const OPEN_INTEREST_MEASURES: readonly Measure<OpenInterestGroup>[] = [
  { name: 'openInterest', value: (g) => BigInt(g.openInterest), per: 1n },
  { name: 'quarterlyEquivalentOpenInterest', value: (g) => BigInt(g.qeThirds), per: 3n },
  { name: 'mwh', value: (g) => g.mwhTenths, per: 10n },
  { name: 'faceValue', value: (g) => g.faceValueMillis, per: 1000n },
];

export interface DatamineRegionCells {
  readonly region: string;
  /** Every class cell plus block, efp (volume types), totalFutures, totalOptions and total. */
  readonly cells: Readonly<Record<string, bigint>>;
}

/** One measure's table: a row of whole-unit cells per region. */
export interface DatamineTable {
  readonly name: string;
  readonly regions: readonly DatamineRegionCells[];
}

export interface DatamineLayoutView {
  readonly futuresClasses: readonly string[];
  readonly optionClasses: readonly string[];
  /** Volume types add block, efp and the daily average. */
  readonly volume: boolean;
}

export type DatamineResult =
  | {
      readonly kind: 'volume';
      readonly layout: DatamineLayoutView;
      readonly from: string;
      readonly to: string;
      readonly tradingDays: number;
      readonly measures: readonly DatamineTable[];
    }
  | {
      readonly kind: 'open-interest';
      readonly layout: DatamineLayoutView;
      readonly date: string;
      readonly measures: readonly DatamineTable[];
    };

/**
 * The rules that need no data (docs/api.md, decisions: datamine): a parameter must apply to the type,
 * and a given range must be ordered and at most 366 days long.
 */
export function datamineParamIssues(params: DatamineParams): ParamIssue[] {
  const issues: ParamIssue[] = [];
  if (params.type === 'au-oi') {
    for (const name of ['from', 'to'] as const) {
      if (params[name] !== undefined) {
        issues.push({
          parameter: name,
          message: `${name} applies to the volume types only; au-oi takes date`,
        });
      }
    }
  } else if (params.date !== undefined) {
    issues.push({
      parameter: 'date',
      message: `date applies to au-oi only; ${params.type} takes from and to`,
    });
  }
  if (params.from !== undefined && params.to !== undefined)
    issues.push(...rangeIssues(params.from, params.to));
  return issues;
}

function rangeIssues(from: string, to: string): ParamIssue[] {
  if (from > to) return [{ parameter: 'from', message: `from ${from} is after to ${to}` }];
  const days = daysBetween(from, to);
  if (days > MAX_RANGE_DAYS) {
    return [
      {
        parameter: 'from',
        message: `from ${from} to ${to} spans ${days} days; the maximum is ${MAX_RANGE_DAYS}`,
      },
    ];
  }
  return [];
}

export async function queryDatamine(context: QueryContext, input: DatamineParams): Promise<DatamineResult> {
  const { reader } = context;
  // end_of_day ignores every date-like parameter: the default range or date applies.
  const params: DatamineParams = context.access === 'historical' ? input : { type: input.type };
  const issues = datamineParamIssues(params);
  if (issues.length > 0) throw invalidParameters(issues);
  const layout = LAYOUTS[params.type];
  const view = {
    futuresClasses: layout.futuresClasses,
    optionClasses: layout.optionClasses,
    volume: layout.volume,
  };
  if (!layout.volume) {
    // Open interest at the close of a day that has none published yet is unknown, not 0: only
    // days whose open interest is out are answered (docs/api.md, "Which day an answer is about").
    const date =
      params.date === undefined
        ? await latestPublished(reader, layout.market, 'open_interest')
        : await requirePublished(reader, layout.market, 'open_interest', params.date);
    const groups = await reader.datamineOpenInterest({ market: 'au_electricity', date });
    return {
      kind: 'open-interest',
      layout: view,
      date,
      measures: tabulate(layout, OPEN_INTEREST_MEASURES, groups),
    };
  }
  // The default range ends at the latest closed day: a partial live day would skew `average`.
  const to = params.to ?? (await latestPublished(reader, layout.market, 'settlement'));
  const from = params.from ?? addDays(to, -DEFAULT_RANGE_DAYS);
  const range = rangeIssues(from, to);
  if (range.length > 0) throw invalidParameters(range);
  await requireRangeInHistory(reader, layout.market, from, to);
  const { tradingDays, groups } = await reader.datamineVolume({ market: layout.market, from, to });
  return {
    kind: 'volume',
    layout: view,
    from,
    to,
    tradingDays,
    measures: tabulate(layout, VOLUME_MEASURES, groups),
  };
}

/**
 * Sums the groups per (measure, region, cell) in the store's units, then rounds each cell on
 * its own to whole units; the totals add the rounded class cells so every table adds up
 * (docs/api.md, decisions: datamine).
 */
function tabulate<G extends { region: Region; productClass: DatamineClass; block?: boolean; efp?: boolean }>(
  layout: Layout,
  measures: readonly Measure<G>[],
  groups: readonly G[],
): DatamineTable[] {
  const classes = new Set<string>([...layout.futuresClasses, ...layout.optionClasses]);
  const regions = new Set<string>(layout.regions);
  return measures.map((measure) => {
    const sums = new Map<string, Map<string, bigint>>();
    for (const region of layout.regions) sums.set(region, new Map());
    for (const group of groups) {
      if (!regions.has(group.region) || !classes.has(group.productClass)) continue;
      const cells = sums.get(group.region) as Map<string, bigint>;
      const value = measure.value(group);
      add(cells, group.productClass, value);
      if (group.block) add(cells, 'block', value);
      if (group.efp) add(cells, 'efp', value);
    }
    return {
      name: measure.name,
      regions: layout.regions.map((region) => {
        const raw = sums.get(region) as Map<string, bigint>;
        const cells: Record<string, bigint> = {};
        const round = (key: string) => divideRoundedBig(raw.get(key) ?? 0n, measure.per);
        let totalFutures = 0n;
        let totalOptions = 0n;
        for (const name of layout.futuresClasses) {
          cells[name] = round(name);
          totalFutures += cells[name];
        }
        for (const name of layout.optionClasses) {
          cells[name] = round(name);
          totalOptions += cells[name];
        }
        if (layout.volume) {
          cells.block = round('block');
          cells.efp = round('efp');
        }
        cells.totalFutures = totalFutures;
        cells.totalOptions = totalOptions;
        cells.total = totalFutures + totalOptions;
        return { region, cells };
      }),
    };
  });
}

function add(cells: Map<string, bigint>, key: string, value: bigint): void {
  cells.set(key, (cells.get(key) ?? 0n) + value);
}

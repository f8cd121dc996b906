import { type TObject, type TProperties, type TSchema, Type } from '@sinclair/typebox';

/**
 * JSON Schemas (2020-12, as OpenAPI 3.1 uses them) of each operation's 200 JSON body and of the
 * problem body. The writers in format/ build their JSON as strings, so these are the one
 * description of the shapes; openapi.test.ts validates real answers of every documented example
 * against them, and response-schemas.test.ts checks each record's properties against the writer's
 * column list (names, order, which are optional), so a writer that drifts from its schema fails.
 */

const closed = { additionalProperties: false } as const;

// Examples make the sample bodies of reference pages read like real answers.
const date = Type.String({ pattern: '^\\d{8}$', description: 'yyyyMMdd', examples: ['20250228'] });
const time = Type.String({ pattern: '^\\d{6}$', description: 'HHmmss', examples: ['153012'] });
const code = Type.String({ description: 'contract code', examples: ['BNH2026'] });
const price = Type.String({
  pattern: '^-?\\d+\\.\\d{2}$',
  description: 'decimal, 2 places',
  examples: ['84.50'],
});
const integer = Type.String({ pattern: '^-?\\d+$', description: 'integer', examples: ['12'] });
/** Absent values are "" outside intraday (docs/api.md, decisions: absent values in JSON). */
const priceOrEmpty = Type.String({
  pattern: '^(-?\\d+\\.\\d{2})?$',
  description: 'decimal, 2 places; "" when absent',
  examples: ['84.50'],
});
const integerOrEmpty = Type.String({
  pattern: '^(-?\\d+)?$',
  description: 'integer; "" when absent',
  examples: ['3'],
});
const tickerTime = Type.String({
  pattern: '^\\d{14}$',
  description: 'yyyyMMddHHmmss',
  examples: ['20250228153012'],
});
/** Intraday is the spec's one place with JSON null (docs/api.md, GET /api/intraday). */
const priceOrNull = Type.Union([price, Type.Null()]);
const integerOrNull = Type.Union([integer, Type.Null()]);

function record(properties: TProperties, description?: string): TObject {
  return Type.Object(properties, { ...closed, ...(description ? { description } : {}) });
}

/** One envelope per name of an exactly-one group: the sent parameter is echoed under its name. */
function keyedBy(names: readonly string[], before: TProperties, after: TProperties): TSchema {
  return Type.Union(
    names.map((name) =>
      record({ ...before, [name]: Type.String({ description: `the ${name} parameter as sent` }), ...after }),
    ),
  );
}

function putCall(row: TSchema): TObject {
  return record({ put: Type.Array(row), call: Type.Array(row) }, 'options split by type, each by code');
}

const tickerBook = record({
  time: tickerTime,
  code,
  type: Type.Literal('book'),
  bid: priceOrEmpty,
  bid_size: integerOrEmpty,
  ask: priceOrEmpty,
  ask_size: integerOrEmpty,
});
const tickerTrade = record({
  time: tickerTime,
  code,
  type: Type.Literal('trade'),
  price,
  volume: integer,
});
const tickerSettle = record({
  time: tickerTime,
  code,
  type: Type.Literal('settle'),
  settle: price,
  timestamp_settle: Type.String({ pattern: '^\\d+$', description: 'Unix time in seconds' }),
  implied_volatility: Type.Optional(
    Type.String({ pattern: '^(\\d+\\.\\d{2})?$', description: 'percent; options only' }),
  ),
});

export const tickerResponse = keyedBy(
  ['futures', 'options'],
  {},
  {
    date,
    from: time,
    to: time,
    data: Type.Array(Type.Union([tickerBook, tickerTrade, tickerSettle]), { description: 'newest first' }),
  },
);

function indexResponse(index: 'epi' | 'npi'): TSchema {
  return record({
    date,
    data: Type.Array(record({ date, year: Type.String({ pattern: '^\\d{4}$' }), [index]: price }), {
      description: 'one row per calendar year',
    }),
  });
}

export const epiResponse = indexResponse('epi');
export const npiResponse = indexResponse('npi');

export const tradelogResponse = record({
  date,
  summary: record({ trades: integer, volume: integer, traded_mwh: integer, face_value: price }),
  data: Type.Array(
    record(
      {
        date,
        time: Type.String({ pattern: '^\\d{2}:\\d{2}:\\d{2}$', description: 'HH:mm:ss' }),
        code: Type.String({ description: 'contract code; futures with the F suffix' }),
        trade_type: Type.String({ pattern: '^[A-Z]$', description: 'N normal, Z strip leg, B block, E EFP' }),
        volume: integer,
        price,
        hours: Type.Optional(integer),
        face_value: Type.Optional(price),
      },
      'in time order; hours and face_value in the electricity markets only',
    ),
  ),
});

const LEGS = [1, 2, 3, 4, 5, 6];

export const messagesResponse = Type.Union([
  record({
    market: Type.String(),
    type: Type.Union([Type.Literal('message_board'), Type.Literal('registered_trades')]),
    date,
    data: Type.Array(record({ time, message: Type.String() }), { description: 'newest first' }),
  }),
  record({
    market: Type.String(),
    type: Type.Literal('custom_market'),
    data: Type.Array(
      record({
        contract: Type.String(),
        net: price,
        size: integer,
        // All six prices, then all six ratios, as the writer lists them (format/messages.ts).
        ...Object.fromEntries(
          ['price', 'ratio'].flatMap((part) => LEGS.map((leg) => [`${part}_${leg}`, price])),
        ),
      }),
      { description: 'newest first; unused legs read 0.00' },
    ),
  }),
]);

export const tradesResponse = keyedBy(
  ['market', 'futures', 'options'],
  {
    last_trade: Type.String({
      pattern: '^(\\d{6})?$',
      description: 'HHmmss of the latest trade; "" when none',
    }),
    last_update: Type.String({ pattern: '^(\\d{6})?$', description: "HHmmss of the market's latest event" }),
    date,
  },
  {
    trades: Type.Array(record({ time, code, volume: integer, price, block: Type.Boolean() }), {
      description: 'newest first',
    }),
  },
);

const endOfDayFields = {
  code,
  date,
  bid_size: integerOrEmpty,
  bid: priceOrEmpty,
  ask_size: integerOrEmpty,
  ask: priceOrEmpty,
  first: priceOrEmpty,
  high: priceOrEmpty,
  low: priceOrEmpty,
  settle: Type.String({
    pattern: '^(-?\\d+\\.\\d{2})?$',
    description: 'decimal, 2 places; "" until published (at the close)',
    examples: ['84.50'],
  }),
  volume: integer,
  open_interest: Type.String({
    pattern: '^(\\d+)?$',
    description: 'integer; "" until published (after the close), never 0 for unknown',
    examples: ['1044'],
  }),
};

export const dataResponse = Type.Union([
  record({
    futures: Type.String(),
    date,
    data: Type.Array(record(endOfDayFields), { description: 'by code' }),
  }),
  record({
    options: Type.String(),
    date,
    data: putCall(record({ ...endOfDayFields, implied_volatility: priceOrEmpty })),
  }),
]);

const intradayFields = {
  code,
  bid_size: integerOrNull,
  bid: priceOrNull,
  ask_size: integerOrNull,
  ask: priceOrNull,
  high: priceOrNull,
  low: priceOrNull,
  last: priceOrNull,
};
const intradayRest = {
  volume: Type.Union([integer, Type.Null()], { description: 'traded today; null when nothing traded' }),
  open_interest: Type.Union([integer, Type.Null()], {
    description: 'at the previous close; null when none was published',
  }),
  open_interest_net_change: Type.Union([integer, Type.Null()], {
    description: 'open_interest minus that of the close before; null unless both are published',
  }),
  settle: Type.Union([price, Type.Null()], {
    description: "the previous day's settlement; null when none was published",
  }),
};
const netChange = Type.Union([price, Type.Null()], {
  description: 'last minus settle; null when nothing traded today or there is no previous settle',
});

export const intradayResponse = Type.Union([
  record({
    futures: Type.String(),
    data: Type.Array(record({ ...intradayFields, net_change: netChange, ...intradayRest }), {
      description: 'by code',
    }),
  }),
  record({
    options: Type.String(),
    data: putCall(record({ ...intradayFields, ...intradayRest, implied_volatility: priceOrNull })),
  }),
]);

function datamineTable(regions: readonly string[], fields: readonly string[]): TObject {
  const cell = (field: string) => (field === 'average' ? price : integer);
  const row = record(Object.fromEntries(fields.map((field) => [field, cell(field)])));
  return record(Object.fromEntries(regions.map((region) => [region, row])));
}

function datamineData(measures: readonly string[], regions: readonly string[], fields: readonly string[]) {
  return record(Object.fromEntries(measures.map((measure) => [measure, datamineTable(regions, fields)])));
}

const AU_REGIONS = ['nsw', 'vic', 'qld', 'sa'];
const NZ_REGIONS = ['otahuhu', 'benmore'];
const AU_CLASSES = [
  'baseMonthFutures',
  'baseQuarterFutures',
  'peakQuarterFutures',
  'caps',
  'averageOptions',
  'calOptions',
  'finOptions',
  'peakOptions',
];
const NZ_CLASSES = [
  'baseMonthFutures',
  'baseQuarterFutures',
  'peakQuarterFutures',
  'calFutures',
  'averageOptions',
  'calOptions',
];
const VOLUME_MEASURES = ['volume', 'quarterlyEquivalentVolume', 'mwh', 'faceValue', 'count'];
const OI_MEASURES = ['openInterest', 'quarterlyEquivalentOpenInterest', 'mwh', 'faceValue'];
const TOTALS = ['totalFutures', 'totalOptions', 'total'];

const volumeRange = { from: date, to: date, tradingDays: Type.Integer({ minimum: 0 }) };

export const datamineResponse = Type.Union([
  record(
    {
      ...volumeRange,
      data: datamineData(VOLUME_MEASURES, AU_REGIONS, [...AU_CLASSES, 'block', 'efp', ...TOTALS, 'average']),
    },
    'type=au-volume',
  ),
  record({ date, data: datamineData(OI_MEASURES, AU_REGIONS, [...AU_CLASSES, ...TOTALS]) }, 'type=au-oi'),
  record(
    {
      ...volumeRange,
      data: datamineData(VOLUME_MEASURES, NZ_REGIONS, [...NZ_CLASSES, 'block', 'efp', ...TOTALS, 'average']),
    },
    'type=nz-volume',
  ),
]);

/** RFC 9457 problem details as problems.ts writes them; further extension members may follow. */
export const problemSchema = Type.Object(
  {
    type: Type.String({ description: 'stable tag URI tag:gridquote,2025:problems/<code>' }),
    title: Type.String(),
    status: Type.Integer(),
    detail: Type.String(),
    errors: Type.Optional(
      Type.Array(record({ parameter: Type.String(), message: Type.String() }), {
        description: 'every bad parameter of the request (invalid-parameters, some 404s)',
      }),
    ),
    nearestDate: Type.Optional(
      Type.String({ pattern: '^\\d{8}$', description: 'no-data: the nearest date that has data' }),
    ),
  },
  { additionalProperties: true },
);

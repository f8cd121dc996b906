// Generated from the server's GET /api/openapi.json by scripts/openapi-to-typescript.ts: do not edit.
// src/openapi-types.test.ts regenerates it from the app and fails on any difference; after a change
// to the API run `npx vitest run packages/client/src/openapi-types.test.ts -u` to rewrite it.

/** Every JSON operation of the API: its path and the query parameters it accepts. */
export const OPERATIONS = {
  ticker: { path: '/api/ticker', parameters: ['futures', 'options', 'type', 'date', 'from', 'to', 'format'] },
  epi: { path: '/api/epi', parameters: ['date', 'format'] },
  npi: { path: '/api/npi', parameters: ['date', 'format'] },
  tradelog: { path: '/api/tradelog', parameters: ['market', 'futures', 'options', 'date', 'format'] },
  messages: { path: '/api/messages', parameters: ['market', 'type', 'from', 'format'] },
  trades: { path: '/api/trades', parameters: ['market', 'futures', 'options', 'from', 'format'] },
  data: { path: '/api/data', parameters: ['futures', 'options', 'date', 'format'] },
  intraday: { path: '/api/intraday', parameters: ['futures', 'options', 'format'] },
  datamine: { path: '/api/datamine', parameters: ['type', 'from', 'to', 'date', 'layout', 'format'] },
} as const;

export type OperationName = keyof typeof OPERATIONS;

/** Query parameters of GET /api/ticker: Ticker messages: book, trade and settlement */
export type TickerParams = {
  /** Only messages of this type. */
  type?: 'book' | 'trade' | 'settle';
  /** A whole past day (the window is then 000000-235959). Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`. */
  date?: string;
  /** Lower bound of the current day's window; default 000000. Must not be after `to`. Disregarded (not validated) when `date` is sent, and then listed in `Ignored-Parameters`. */
  from?: string;
  /** Upper bound of the window; default: the exchange clock's time when the current day is today, else 235959. Disregarded (not validated) when `date` is sent, and then listed in `Ignored-Parameters`. */
  to?: string;
} & ({
  /** A market code (all its futures) or a futures code: initial (`BNH`: every March base quarter of NSW) or exact (`BNH2026`, also `BNH2026F` as the trade log writes it). A well-formed code naming no listed contract is a 404. Exactly one of `futures`, `options` is sent. */
  futures: string;
  options?: never;
} | {
  futures?: never;
  /** `au_electricity`, `nz_electricity` (all their options) or an options code: initial (`BNH`), with year (`BNH2026`), with type (`BNH2026C`) or exact (`BNH20260010000` = call and put at strike 100.00, `BNH20260010000C`, or type first `BNH2026C0010000`). A well-formed code naming no listed contract is a 404. Exactly one of `futures`, `options` is sent. */
  options: string;
});

/** JSON answer of GET /api/ticker. */
export type TickerResponse = {
  /** the futures parameter as sent */
  futures: string;
  /** yyyyMMdd */
  date: string;
  /** HHmmss */
  from: string;
  /** HHmmss */
  to: string;
  /** newest first */
  data: Array<{
    /** yyyyMMddHHmmss */
    time: string;
    /** contract code */
    code: string;
    type: 'book';
    /** decimal, 2 places; "" when absent */
    bid: string;
    /** integer; "" when absent */
    bid_size: string;
    /** decimal, 2 places; "" when absent */
    ask: string;
    /** integer; "" when absent */
    ask_size: string;
  } | {
    /** yyyyMMddHHmmss */
    time: string;
    /** contract code */
    code: string;
    type: 'trade';
    /** decimal, 2 places */
    price: string;
    /** integer */
    volume: string;
  } | {
    /** yyyyMMddHHmmss */
    time: string;
    /** contract code */
    code: string;
    type: 'settle';
    /** decimal, 2 places */
    settle: string;
    /** Unix time in seconds */
    timestamp_settle: string;
    /** percent; options only */
    implied_volatility?: string;
  }>;
} | {
  /** the options parameter as sent */
  options: string;
  /** yyyyMMdd */
  date: string;
  /** HHmmss */
  from: string;
  /** HHmmss */
  to: string;
  /** newest first */
  data: Array<{
    /** yyyyMMddHHmmss */
    time: string;
    /** contract code */
    code: string;
    type: 'book';
    /** decimal, 2 places; "" when absent */
    bid: string;
    /** integer; "" when absent */
    bid_size: string;
    /** decimal, 2 places; "" when absent */
    ask: string;
    /** integer; "" when absent */
    ask_size: string;
  } | {
    /** yyyyMMddHHmmss */
    time: string;
    /** contract code */
    code: string;
    type: 'trade';
    /** decimal, 2 places */
    price: string;
    /** integer */
    volume: string;
  } | {
    /** yyyyMMddHHmmss */
    time: string;
    /** contract code */
    code: string;
    type: 'settle';
    /** decimal, 2 places */
    settle: string;
    /** Unix time in seconds */
    timestamp_settle: string;
    /** percent; options only */
    implied_volatility?: string;
  }>;
};

/** Query parameters of GET /api/epi: Electricity price index (AU) by calendar year */
export type EpiParams = {
  /** The day; default: the latest day with index values. Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`. */
  date?: string;
};

/** JSON answer of GET /api/epi. */
export type EpiResponse = {
  /** yyyyMMdd */
  date: string;
  /** one row per calendar year */
  data: Array<{
    /** yyyyMMdd */
    date: string;
    year: string;
    /** decimal, 2 places */
    epi: string;
  }>;
};

/** Query parameters of GET /api/npi: Electricity price index (NZ) by calendar year */
export type NpiParams = {
  /** The day; default: the latest day with index values. Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`. */
  date?: string;
};

/** JSON answer of GET /api/npi. */
export type NpiResponse = {
  /** yyyyMMdd */
  date: string;
  /** one row per calendar year */
  data: Array<{
    /** yyyyMMdd */
    date: string;
    year: string;
    /** decimal, 2 places */
    npi: string;
  }>;
};

/** Query parameters of GET /api/tradelog: A trading day's trade log */
export type TradelogParams = {
  /** The day; default: the latest closed day of the code's market (its settlement published); name the live day for its trades so far. Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`. */
  date?: string;
} & ({
  /** A market code: `au_electricity`, `nz_electricity`, `au_gas`, `au_environmental`, `nz_environmental`. Exactly one of `market`, `futures`, `options` is sent. */
  market: 'au_electricity' | 'nz_electricity' | 'au_gas' | 'au_environmental' | 'nz_environmental';
  futures?: never;
  options?: never;
} | {
  market?: never;
  /** A market code (all its futures) or a futures code: initial (`BNH`: every March base quarter of NSW) or exact (`BNH2026`, also `BNH2026F` as the trade log writes it). A well-formed code naming no listed contract is a 404. Exactly one of `market`, `futures`, `options` is sent. */
  futures: string;
  options?: never;
} | {
  market?: never;
  futures?: never;
  /** `au_electricity`, `nz_electricity` (all their options) or an options code: initial (`BNH`), with year (`BNH2026`), with type (`BNH2026C`) or exact (`BNH20260010000` = call and put at strike 100.00, `BNH20260010000C`, or type first `BNH2026C0010000`). A well-formed code naming no listed contract is a 404. Exactly one of `market`, `futures`, `options` is sent. */
  options: string;
});

/** JSON answer of GET /api/tradelog. */
export type TradelogResponse = {
  /** yyyyMMdd */
  date: string;
  summary: {
    /** integer */
    trades: string;
    /** integer */
    volume: string;
    /** integer */
    traded_mwh: string;
    /** decimal, 2 places */
    face_value: string;
  };
  data: Array<{
    /** yyyyMMdd */
    date: string;
    /** HH:mm:ss */
    time: string;
    /** contract code; futures with the F suffix */
    code: string;
    /** N normal, Z strip leg, B block, E EFP */
    trade_type: string;
    /** integer */
    volume: string;
    /** decimal, 2 places */
    price: string;
    /** integer */
    hours?: string;
    /** decimal, 2 places */
    face_value?: string;
  }>;
};

/** Query parameters of GET /api/messages: The current day's messages of a market */
export type MessagesParams = {
  /** A market code: `au_electricity`, `nz_electricity`, `au_gas`, `au_environmental`, `nz_environmental`. */
  market: 'au_electricity' | 'nz_electricity' | 'au_gas' | 'au_environmental' | 'nz_environmental';
  /** Which messages. */
  type: 'message_board' | 'registered_trades' | 'custom_market';
  /** Messages from this time on (inclusive). */
  from?: string;
};

/** JSON answer of GET /api/messages. */
export type MessagesResponse = {
  market: string;
  type: 'message_board' | 'registered_trades';
  /** yyyyMMdd */
  date: string;
  /** newest first */
  data: Array<{
    /** HHmmss */
    time: string;
    message: string;
  }>;
} | {
  market: string;
  type: 'custom_market';
  /** newest first; unused legs read 0.00 */
  data: Array<{
    contract: string;
    /** decimal, 2 places */
    net: string;
    /** integer */
    size: string;
    /** decimal, 2 places */
    price_1: string;
    /** decimal, 2 places */
    price_2: string;
    /** decimal, 2 places */
    price_3: string;
    /** decimal, 2 places */
    price_4: string;
    /** decimal, 2 places */
    price_5: string;
    /** decimal, 2 places */
    price_6: string;
    /** decimal, 2 places */
    ratio_1: string;
    /** decimal, 2 places */
    ratio_2: string;
    /** decimal, 2 places */
    ratio_3: string;
    /** decimal, 2 places */
    ratio_4: string;
    /** decimal, 2 places */
    ratio_5: string;
    /** decimal, 2 places */
    ratio_6: string;
  }>;
};

/** Query parameters of GET /api/trades: The current day's trades */
export type TradesParams = {
  /** Trades from this time on (inclusive). */
  from?: string;
} & ({
  /** A market code: `au_electricity`, `nz_electricity`, `au_gas`, `au_environmental`, `nz_environmental`. Exactly one of `market`, `futures`, `options` is sent. */
  market: 'au_electricity' | 'nz_electricity' | 'au_gas' | 'au_environmental' | 'nz_environmental';
  futures?: never;
  options?: never;
} | {
  market?: never;
  /** A market code (all its futures) or a futures code: initial (`BNH`: every March base quarter of NSW) or exact (`BNH2026`, also `BNH2026F` as the trade log writes it). A well-formed code naming no listed contract is a 404. Exactly one of `market`, `futures`, `options` is sent. */
  futures: string;
  options?: never;
} | {
  market?: never;
  futures?: never;
  /** `au_electricity`, `nz_electricity` (all their options) or an options code: initial (`BNH`), with year (`BNH2026`), with type (`BNH2026C`) or exact (`BNH20260010000` = call and put at strike 100.00, `BNH20260010000C`, or type first `BNH2026C0010000`). A well-formed code naming no listed contract is a 404. Exactly one of `market`, `futures`, `options` is sent. */
  options: string;
});

/** JSON answer of GET /api/trades. */
export type TradesResponse = {
  /** HHmmss of the latest trade; "" when none */
  last_trade: string;
  /** HHmmss of the market's latest event */
  last_update: string;
  /** yyyyMMdd */
  date: string;
  /** the market parameter as sent */
  market: string;
  /** newest first */
  trades: Array<{
    /** HHmmss */
    time: string;
    /** contract code */
    code: string;
    /** integer */
    volume: string;
    /** decimal, 2 places */
    price: string;
    block: boolean;
  }>;
} | {
  /** HHmmss of the latest trade; "" when none */
  last_trade: string;
  /** HHmmss of the market's latest event */
  last_update: string;
  /** yyyyMMdd */
  date: string;
  /** the futures parameter as sent */
  futures: string;
  /** newest first */
  trades: Array<{
    /** HHmmss */
    time: string;
    /** contract code */
    code: string;
    /** integer */
    volume: string;
    /** decimal, 2 places */
    price: string;
    block: boolean;
  }>;
} | {
  /** HHmmss of the latest trade; "" when none */
  last_trade: string;
  /** HHmmss of the market's latest event */
  last_update: string;
  /** yyyyMMdd */
  date: string;
  /** the options parameter as sent */
  options: string;
  /** newest first */
  trades: Array<{
    /** HHmmss */
    time: string;
    /** contract code */
    code: string;
    /** integer */
    volume: string;
    /** decimal, 2 places */
    price: string;
    block: boolean;
  }>;
};

/** Query parameters of GET /api/data: End-of-day records by contract */
export type DataParams = {
  /** The day; default: the market's latest closed day (its settlement published; while the live day runs, the day before). Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`. */
  date?: string;
} & ({
  /** A market code (all its futures) or a futures code: initial (`BNH`: every March base quarter of NSW) or exact (`BNH2026`, also `BNH2026F` as the trade log writes it). A well-formed code naming no listed contract is a 404. Exactly one of `futures`, `options` is sent. */
  futures: string;
  options?: never;
} | {
  futures?: never;
  /** `au_electricity`, `nz_electricity` (all their options) or an options code: initial (`BNH`), with year (`BNH2026`), with type (`BNH2026C`) or exact (`BNH20260010000` = call and put at strike 100.00, `BNH20260010000C`, or type first `BNH2026C0010000`). A well-formed code naming no listed contract is a 404. Exactly one of `futures`, `options` is sent. */
  options: string;
});

/** JSON answer of GET /api/data. */
export type DataResponse = {
  futures: string;
  /** yyyyMMdd */
  date: string;
  /** by code */
  data: Array<{
    /** contract code */
    code: string;
    /** yyyyMMdd */
    date: string;
    /** integer; "" when absent */
    bid_size: string;
    /** decimal, 2 places; "" when absent */
    bid: string;
    /** integer; "" when absent */
    ask_size: string;
    /** decimal, 2 places; "" when absent */
    ask: string;
    /** decimal, 2 places; "" when absent */
    first: string;
    /** decimal, 2 places; "" when absent */
    high: string;
    /** decimal, 2 places; "" when absent */
    low: string;
    /** decimal, 2 places; "" until published (at the close) */
    settle: string;
    /** integer */
    volume: string;
    /** integer; "" until published (after the close), never 0 for unknown */
    open_interest: string;
  }>;
} | {
  options: string;
  /** yyyyMMdd */
  date: string;
  /** options split by type, each by code */
  data: {
    put: Array<{
      /** contract code */
      code: string;
      /** yyyyMMdd */
      date: string;
      /** integer; "" when absent */
      bid_size: string;
      /** decimal, 2 places; "" when absent */
      bid: string;
      /** integer; "" when absent */
      ask_size: string;
      /** decimal, 2 places; "" when absent */
      ask: string;
      /** decimal, 2 places; "" when absent */
      first: string;
      /** decimal, 2 places; "" when absent */
      high: string;
      /** decimal, 2 places; "" when absent */
      low: string;
      /** decimal, 2 places; "" until published (at the close) */
      settle: string;
      /** integer */
      volume: string;
      /** integer; "" until published (after the close), never 0 for unknown */
      open_interest: string;
      /** decimal, 2 places; "" when absent */
      implied_volatility: string;
    }>;
    call: Array<{
      /** contract code */
      code: string;
      /** yyyyMMdd */
      date: string;
      /** integer; "" when absent */
      bid_size: string;
      /** decimal, 2 places; "" when absent */
      bid: string;
      /** integer; "" when absent */
      ask_size: string;
      /** decimal, 2 places; "" when absent */
      ask: string;
      /** decimal, 2 places; "" when absent */
      first: string;
      /** decimal, 2 places; "" when absent */
      high: string;
      /** decimal, 2 places; "" when absent */
      low: string;
      /** decimal, 2 places; "" until published (at the close) */
      settle: string;
      /** integer */
      volume: string;
      /** integer; "" until published (after the close), never 0 for unknown */
      open_interest: string;
      /** decimal, 2 places; "" when absent */
      implied_volatility: string;
    }>;
  };
};

/** Query parameters of GET /api/intraday: Intraday snapshot by contract */
export type IntradayParams = {
} & ({
  /** A market code (all its futures) or a futures code: initial (`BNH`: every March base quarter of NSW) or exact (`BNH2026`, also `BNH2026F` as the trade log writes it). A well-formed code naming no listed contract is a 404. Exactly one of `futures`, `options` is sent. */
  futures: string;
  options?: never;
} | {
  futures?: never;
  /** `au_electricity`, `nz_electricity` (all their options) or an options code: initial (`BNH`), with year (`BNH2026`), with type (`BNH2026C`) or exact (`BNH20260010000` = call and put at strike 100.00, `BNH20260010000C`, or type first `BNH2026C0010000`). A well-formed code naming no listed contract is a 404. Exactly one of `futures`, `options` is sent. */
  options: string;
});

/** JSON answer of GET /api/intraday. */
export type IntradayResponse = {
  futures: string;
  /** by code */
  data: Array<{
    /** contract code */
    code: string;
    bid_size: string | null;
    bid: string | null;
    ask_size: string | null;
    ask: string | null;
    high: string | null;
    low: string | null;
    last: string | null;
    /** last minus settle; null when nothing traded today or there is no previous settle */
    net_change: string | null;
    /** traded today; null when nothing traded */
    volume: string | null;
    /** at the previous close; null when none was published */
    open_interest: string | null;
    /** open_interest minus that of the close before; null unless both are published */
    open_interest_net_change: string | null;
    /** the previous day's settlement; null when none was published */
    settle: string | null;
  }>;
} | {
  options: string;
  /** options split by type, each by code */
  data: {
    put: Array<{
      /** contract code */
      code: string;
      bid_size: string | null;
      bid: string | null;
      ask_size: string | null;
      ask: string | null;
      high: string | null;
      low: string | null;
      last: string | null;
      /** traded today; null when nothing traded */
      volume: string | null;
      /** at the previous close; null when none was published */
      open_interest: string | null;
      /** open_interest minus that of the close before; null unless both are published */
      open_interest_net_change: string | null;
      /** the previous day's settlement; null when none was published */
      settle: string | null;
      implied_volatility: string | null;
    }>;
    call: Array<{
      /** contract code */
      code: string;
      bid_size: string | null;
      bid: string | null;
      ask_size: string | null;
      ask: string | null;
      high: string | null;
      low: string | null;
      last: string | null;
      /** traded today; null when nothing traded */
      volume: string | null;
      /** at the previous close; null when none was published */
      open_interest: string | null;
      /** open_interest minus that of the close before; null unless both are published */
      open_interest_net_change: string | null;
      /** the previous day's settlement; null when none was published */
      settle: string | null;
      implied_volatility: string | null;
    }>;
  };
};

/** Query parameters of GET /api/datamine: Exchange statistics: volume and open interest by region */
export type DatamineParams = {
  /** The statistics. */
  type: 'au-volume' | 'au-oi' | 'nz-volume';
  /** Volume types: first day (inclusive); default 365 days before `to`. Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`. */
  from?: string;
  /** Volume types: last day (inclusive); default the market's latest closed day. Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`. */
  to?: string;
  /** au-oi: the day; default the latest day whose open interest is published (after the close); a day without it is a 404 naming the nearest one. Ignored (not validated) under `end_of_day` access, and then listed in `Ignored-Parameters`. */
  date?: string;
  /** The CSV form: `sections` (default, the specification's: one section per measure) or `long` (one row per measure, region and field under one header, for pandas, DuckDB and BI tools). JSON is the same either way. */
  layout?: 'sections' | 'long';
};

/** JSON answer of GET /api/datamine. */
export type DatamineResponse = {
  /** yyyyMMdd */
  from: string;
  /** yyyyMMdd */
  to: string;
  tradingDays: number;
  data: {
    volume: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
    quarterlyEquivalentVolume: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
    mwh: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
    faceValue: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
    count: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
  };
} | {
  /** yyyyMMdd */
  date: string;
  data: {
    openInterest: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
    };
    quarterlyEquivalentOpenInterest: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
    };
    mwh: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
    };
    faceValue: {
      nsw: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      vic: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      qld: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
      sa: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        caps: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        finOptions: string;
        /** integer */
        peakOptions: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
      };
    };
  };
} | {
  /** yyyyMMdd */
  from: string;
  /** yyyyMMdd */
  to: string;
  tradingDays: number;
  data: {
    volume: {
      otahuhu: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      benmore: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
    quarterlyEquivalentVolume: {
      otahuhu: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      benmore: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
    mwh: {
      otahuhu: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      benmore: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
    faceValue: {
      otahuhu: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      benmore: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
    count: {
      otahuhu: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
      benmore: {
        /** integer */
        baseMonthFutures: string;
        /** integer */
        baseQuarterFutures: string;
        /** integer */
        peakQuarterFutures: string;
        /** integer */
        calFutures: string;
        /** integer */
        averageOptions: string;
        /** integer */
        calOptions: string;
        /** integer */
        block: string;
        /** integer */
        efp: string;
        /** integer */
        totalFutures: string;
        /** integer */
        totalOptions: string;
        /** integer */
        total: string;
        /** decimal, 2 places */
        average: string;
      };
    };
  };
};

/** components.schemas.Problem */
export type Problem = {
  /** stable tag URI tag:gridquote,2025:problems/<code> */
  type: string;
  title: string;
  status: number;
  detail: string;
  /** every bad parameter of the request (invalid-parameters, some 404s) */
  errors?: Array<{
    parameter: string;
    message: string;
  }>;
  /** no-data: the nearest date that has data */
  nearestDate?: string;
  [key: string]: unknown;
};

/** Parameters and JSON answer of each operation, by name. */
export interface Operations {
  ticker: { params: TickerParams; response: TickerResponse };
  epi: { params: EpiParams; response: EpiResponse };
  npi: { params: NpiParams; response: NpiResponse };
  tradelog: { params: TradelogParams; response: TradelogResponse };
  messages: { params: MessagesParams; response: MessagesResponse };
  trades: { params: TradesParams; response: TradesResponse };
  data: { params: DataParams; response: DataResponse };
  intraday: { params: IntradayParams; response: IntradayResponse };
  datamine: { params: DatamineParams; response: DatamineResponse };
}

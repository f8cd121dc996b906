/**
 * The per-(date, contract), per-day and datamine views of one append (or of the appends of a
 * write batch), summed in memory and written with one upsert per touched row instead of one per
 * event. Every merge here and in the upserts is associative and keyed by seq (not arrival), so
 * writing partial sums at any point gives the same rows as applying the events one by one in
 * any order.
 *
 * Settles need a hand: daily keeps a contract's latest settle of a date (the ticker reads it
 * from there), and every settle a later one supersedes, within the sums or stored, goes back to
 * the caller for the ticks table (write's `superseded`).
 */

/** Where a day's face value splits into high and low parts (migration 4). */
export const FACE_VALUE_SPLIT = 100_000_000_000_000;

interface DailyAcc {
  date: number;
  market: number;
  instrument: number;
  code: string;
  optionType: string | null;
  bookSeq: number | null;
  bidCents: number | null;
  bidSize: number | null;
  askCents: number | null;
  askSize: number | null;
  firstSeq: number | null;
  firstCents: number | null;
  highCents: number | null;
  lowCents: number | null;
  lastSeq: number | null;
  lastCents: number | null;
  volume: number;
  trades: number;
  settle: Settle | null;
  oiSeq: number | null;
  openInterest: number | null;
}

interface DayAcc {
  scope: string;
  date: number;
  lastTime: number;
  events: number;
}

interface DatamineAcc {
  market: number;
  date: number;
  region: string;
  productClass: string;
  block: number;
  efp: number;
  volume: number;
  qeThirds: number;
  mwhTenths: number;
  /** Face value as high x 10^14 + millis, |millis| < 10^14 after each add (migration 4). */
  faceValueHigh: number;
  faceValueMillis: number;
  count: number;
}

/** A settle message in store terms (time as HHmmss integer). */
export interface Settle {
  readonly seq: number;
  readonly time: number;
  readonly settleCents: number;
  readonly publishedAt: number;
  readonly impliedVolatility: number | null;
}

/** Where a contract's daily row lives, apart from the date. */
export interface ContractKey {
  readonly market: number;
  readonly instrument: number;
  readonly code: string;
  readonly optionType: string | null;
}

type StoredSettle = [
  code: string,
  seq: number,
  time: number,
  settleCents: number,
  publishedAt: number,
  impliedVolatility: number | null,
];

/**
 * What write() needs: the SQLite writer passes prepared statements (sqlite/view-statements.ts);
 * the PostgreSQL writer collectors of rows and the stored settles it read beforehand
 * (postgres/postgres-writer.ts).
 */
export interface ViewStatements {
  readonly daily: { run(...params: unknown[]): unknown };
  readonly day: { run(...params: unknown[]): unknown };
  readonly datamine: { run(...params: unknown[]): unknown };
  readonly storedSettles: { all(...params: unknown[]): unknown[] };
}

export class ViewBatch {
  /** By date, then code: nested maps, so no key string is built per event. */
  private readonly daily = new Map<number, Map<string, DailyAcc>>();
  private readonly days = new Map<number, Map<string, DayAcc>>();
  private readonly datamine = new Map<string, DatamineAcc>();
  /** Dates with a settle in the sums: only they need the stored settles read when written. */
  private readonly settleDates = new Set<number>();
  /** Settles superseded by a later one of the same contract and date within the sums. */
  private supersededSettles: { date: number; key: ContractKey; settle: Settle }[] = [];
  private dailyRows = 0;

  /** Daily rows summed so far (the bulk of what is held). */
  get size(): number {
    return this.dailyRows;
  }

  touchDay(scope: string, date: number, time: number): void {
    let ofDate = this.days.get(date);
    if (!ofDate) {
      ofDate = new Map();
      this.days.set(date, ofDate);
    }
    const day = ofDate.get(scope);
    if (day) {
      day.events += 1;
      if (time > day.lastTime) day.lastTime = time;
    } else {
      ofDate.set(scope, { scope, date, lastTime: time, events: 1 });
    }
  }

  book(
    date: number,
    key: ContractKey,
    seq: number,
    bid: number | null,
    bidSize: number | null,
    ask: number | null,
    askSize: number | null,
  ): void {
    const row = this.row(date, key);
    if (row.bookSeq === null || seq > row.bookSeq) {
      row.bookSeq = seq;
      row.bidCents = bid;
      row.bidSize = bidSize;
      row.askCents = ask;
      row.askSize = askSize;
    }
  }

  /** Every trade counts in volume; only on-screen trades of the contract itself set prices. */
  trade(
    date: number,
    key: ContractKey,
    seq: number,
    priceCents: number,
    volume: number,
    setsPrices: boolean,
  ): void {
    const row = this.row(date, key);
    row.volume += volume;
    row.trades += 1;
    if (!setsPrices) return;
    if (row.firstSeq === null || seq < row.firstSeq) {
      row.firstSeq = seq;
      row.firstCents = priceCents;
    }
    if (row.lastSeq === null || seq > row.lastSeq) {
      row.lastSeq = seq;
      row.lastCents = priceCents;
    }
    if (row.highCents === null || priceCents > row.highCents) row.highCents = priceCents;
    if (row.lowCents === null || priceCents < row.lowCents) row.lowCents = priceCents;
  }

  /** Keeps the contract's latest settle of the date, and the other for the ticks table. */
  settle(date: number, key: ContractKey, settle: Settle): void {
    const row = this.row(date, key);
    this.settleDates.add(date);
    const kept = row.settle;
    if (kept === null) {
      row.settle = settle;
      return;
    }
    const [latest, older] = settle.seq > kept.seq ? [settle, kept] : [kept, settle];
    row.settle = latest;
    this.supersededSettles.push({ date, key, settle: older });
  }

  openInterest(date: number, key: ContractKey, seq: number, openInterest: number): void {
    const row = this.row(date, key);
    if (row.oiSeq === null || seq > row.oiSeq) {
      row.oiSeq = seq;
      row.openInterest = openInterest;
    }
  }

  datamineTrade(
    group: Omit<
      DatamineAcc,
      'volume' | 'qeThirds' | 'mwhTenths' | 'faceValueHigh' | 'faceValueMillis' | 'count'
    >,
    sums: {
      volume: number;
      qeThirds: number;
      mwhTenths: number;
      faceValueMillis: number;
    },
  ): void {
    const key = `${group.market}|${group.date}|${group.region}|${group.productClass}|${group.block}|${group.efp}`;
    let acc = this.datamine.get(key);
    if (!acc) {
      acc = {
        ...group,
        volume: 0,
        qeThirds: 0,
        mwhTenths: 0,
        faceValueHigh: 0,
        faceValueMillis: 0,
        count: 0,
      };
      this.datamine.set(key, acc);
    }
    acc.volume += sums.volume;
    acc.qeThirds += sums.qeThirds;
    acc.mwhTenths += sums.mwhTenths;
    // one trade's face value is below 2^53 (the feed's limits), so the sum before the carry is exact
    acc.faceValueMillis += sums.faceValueMillis;
    const carry = Math.trunc(acc.faceValueMillis / FACE_VALUE_SPLIT);
    if (carry !== 0) {
      acc.faceValueHigh += carry;
      acc.faceValueMillis -= carry * FACE_VALUE_SPLIT;
    }
    acc.count += 1;
  }

  /**
   * Upserts the summed rows, keeping the sums (clear() drops them once the transaction holding
   * the write succeeded). `superseded` receives every settle that loses its place in daily to a
   * later one: within the sums, and the summed against the stored or the stored against them.
   */
  write(
    statements: ViewStatements,
    superseded: (date: number, key: ContractKey, settle: Settle) => void,
  ): void {
    for (const { date, key, settle } of this.supersededSettles) superseded(date, key, settle);
    for (const date of this.settleDates) this.supersedeStored(statements, date, superseded);
    for (const r of [...this.daily.values()].flatMap((ofDate) => [...ofDate.values()])) {
      statements.daily.run(
        r.date,
        r.market,
        r.instrument,
        r.code,
        r.optionType,
        r.bookSeq,
        r.bidCents,
        r.bidSize,
        r.askCents,
        r.askSize,
        r.firstSeq,
        r.firstCents,
        r.highCents,
        r.lowCents,
        r.lastSeq,
        r.lastCents,
        r.volume,
        r.trades,
        r.settle?.seq ?? null,
        r.settle?.time ?? null,
        r.settle?.settleCents ?? null,
        r.settle?.publishedAt ?? null,
        r.settle?.impliedVolatility ?? null,
        r.oiSeq,
        r.openInterest,
      );
    }
    for (const ofDate of this.days.values()) {
      for (const d of ofDate.values()) statements.day.run(d.scope, d.date, d.lastTime, d.events);
    }
    for (const a of this.datamine.values()) {
      statements.datamine.run(
        a.market,
        a.date,
        a.region,
        a.productClass,
        a.block,
        a.efp,
        a.volume,
        a.qeThirds,
        a.mwhTenths,
        a.faceValueHigh,
        a.faceValueMillis,
        a.count,
      );
    }
  }

  /** Drops the sums: written and committed, or their transaction failed. */
  clear(): void {
    this.daily.clear();
    this.days.clear();
    this.datamine.clear();
    this.settleDates.clear();
    this.supersededSettles = [];
    this.dailyRows = 0;
  }

  /** Compares the summed settles of a date with the stored ones and reports the older of each pair. */
  private supersedeStored(
    statements: ViewStatements,
    date: number,
    superseded: (date: number, key: ContractKey, settle: Settle) => void,
  ): void {
    const rows = this.daily.get(date);
    if (!rows) return;
    for (const [code, seq, time, settleCents, publishedAt, impliedVolatility] of statements.storedSettles.all(
      date,
    ) as StoredSettle[]) {
      const row = rows.get(code);
      if (!row?.settle) continue;
      const stored: Settle = { seq, time, settleCents, publishedAt, impliedVolatility };
      superseded(date, row, stored.seq < row.settle.seq ? stored : row.settle);
    }
  }

  private row(date: number, key: ContractKey): DailyAcc {
    let ofDate = this.daily.get(date);
    if (!ofDate) {
      ofDate = new Map();
      this.daily.set(date, ofDate);
    }
    let row = ofDate.get(key.code);
    if (!row) {
      row = {
        date,
        market: key.market,
        instrument: key.instrument,
        code: key.code,
        optionType: key.optionType,
        bookSeq: null,
        bidCents: null,
        bidSize: null,
        askCents: null,
        askSize: null,
        firstSeq: null,
        firstCents: null,
        highCents: null,
        lowCents: null,
        lastSeq: null,
        lastCents: null,
        volume: 0,
        trades: 0,
        settle: null,
        oiSeq: null,
        openInterest: null,
      };
      ofDate.set(key.code, row);
      this.dailyRows += 1;
    }
    return row;
  }
}

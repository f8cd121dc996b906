import type { IntradayResponse, StreamEvent } from '@gridquote/client';
import uPlot from 'uplot';
import { COLOURS, clockAxis, createChart, exchangeTime } from '../chart.js';
import { exchangeSeconds, MARKETS, type MarketCode } from '../codes.js';
import { field, h, select, toolbar } from '../dom.js';
import { follow } from '../live.js';
import { num, priceChange, whole } from '../numbers.js';
import type { View } from '../view.js';

/**
 * One contract through the current trading day: every trade (dots) and the best bid and ask
 * (steps), from the event stream, which first replays the day so far and then pushes each
 * event as it happens. Beside it: last trade, change against the previous settlement, volume
 * and open interest. One `intraday` request for the market's contracts, then one stream.
 */

interface Snapshot {
  readonly settle: string | null;
  readonly openInterest: string | null;
  readonly openInterestChange: string | null;
}

let chosenMarket: MarketCode = 'au_electricity';
let chosenCode = '';

export const intradayView: View = {
  id: 'intraday',
  title: 'Contract intraday',
  mount(root, context) {
    const marketSelect = select('market', MARKETS, chosenMarket);
    const codeInput = h('input', {
      name: 'code',
      list: 'intraday-codes',
      size: 12,
      autocomplete: 'off',
      spellcheck: 'false',
    });
    const codes = h('datalist', { id: 'intraday-codes' });
    const chartBox = h('div', { class: 'chart', 'data-chart': 'intraday' });
    const facts = h('dl', { class: 'facts', 'aria-live': 'off' });
    root.append(
      toolbar(field('Market', marketSelect), field('Contract', codeInput), codes),
      h('div', { class: 'split' }, chartBox, facts),
    );
    let contract: AbortController | undefined;
    let chart: ReturnType<typeof createChart> | undefined;
    context.signal.addEventListener('abort', () => chart?.destroy(), { once: true });
    let snapshots = new Map<string, Snapshot>();

    const loadMarket = async () => {
      chosenMarket = marketSelect.value as MarketCode;
      context.status('loading contracts…');
      const answer = await context.api.intraday({ futures: chosenMarket }, { signal: context.signal });
      snapshots = snapshotsOf(answer);
      codes.replaceChildren(...answer.data.map((row) => h('option', { value: row.code })));
      if (!snapshots.has(chosenCode)) {
        // The most traded contract of the day so far, else the first.
        const busiest = [...answer.data].sort((a, b) => (num(b.volume) ?? 0) - (num(a.volume) ?? 0))[0];
        chosenCode = busiest?.code ?? '';
      }
      codeInput.value = chosenCode;
      openContract();
    };

    const openContract = () => {
      contract?.abort();
      const code = codeInput.value.trim().toUpperCase();
      if (code === '') return;
      if (!snapshots.has(code)) {
        context.status(`${code} is not a listed contract of ${chosenMarket}`);
        return;
      }
      chosenCode = code;
      const lifetime = new AbortController();
      contract = lifetime;
      context.signal.addEventListener('abort', () => lifetime.abort(), { once: true });
      const day = new DayPath();
      chart?.destroy();
      chartBox.replaceChildren();
      chart = createChart(chartBox, intradayOptions(code), day.data());
      const draw = () => {
        chart?.setData(day.data());
        showFacts(facts, code, day, snapshots.get(code));
      };
      draw();
      context.status(`${code}: following the live stream`);
      follow(
        context.api,
        { futures: code, type: 'book,trade' },
        lifetime.signal,
        (events) => {
          const before = day.date;
          if (!day.add(events)) return;
          draw();
          context.rendered();
          // A new trading day: the previous settle and open interest moved on with it.
          if (before !== '' && day.date !== before) {
            context.api
              .intraday({ futures: chosenMarket }, { signal: lifetime.signal })
              .then((answer) => {
                snapshots = snapshotsOf(answer);
                draw();
              })
              .catch(context.failed);
          }
        },
        context.status,
      );
    };

    marketSelect.addEventListener('change', () => {
      chosenCode = '';
      loadMarket().catch(context.failed);
    });
    codeInput.addEventListener('change', openContract);
    loadMarket().catch(context.failed);
  },
};

/** Each contract's previous close, from an `intraday` answer. */
function snapshotsOf(answer: Extract<IntradayResponse, { futures: string }>): Map<string, Snapshot> {
  return new Map(
    answer.data.map((row) => [
      row.code,
      {
        settle: row.settle,
        openInterest: row.open_interest,
        openInterestChange: row.open_interest_net_change,
      },
    ]),
  );
}

/** The day's path of one contract, built from its stream events (a new day starts it again). */
class DayPath {
  date = '';
  readonly times: number[] = [];
  readonly bids: (number | null)[] = [];
  readonly asks: (number | null)[] = [];
  readonly trades: (number | null)[] = [];
  bid: string | null = null;
  ask: string | null = null;
  last: string | null = null;
  volume = 0;
  tradeCount = 0;

  /** Whether anything changed. */
  add(events: readonly StreamEvent[]): boolean {
    let changed = false;
    for (const event of events) {
      if (event.event !== 'book' && event.event !== 'trade') continue;
      const date = event.data.time.slice(0, 8);
      if (date !== this.date) this.reset(date);
      this.times.push(exchangeSeconds(event.data.time));
      if (event.event === 'book') {
        this.bid = event.data.bid || null;
        this.ask = event.data.ask || null;
        this.trades.push(null);
      } else {
        this.last = event.data.price;
        this.volume += Number(event.data.volume);
        this.tradeCount += 1;
        this.trades.push(num(event.data.price));
      }
      this.bids.push(num(this.bid));
      this.asks.push(num(this.ask));
      changed = true;
    }
    return changed;
  }

  data(): uPlot.AlignedData {
    return [this.times, this.bids, this.asks, this.trades];
  }

  private reset(date: string): void {
    this.date = date;
    for (const values of [this.times, this.bids, this.asks, this.trades]) values.length = 0;
    this.bid = this.ask = this.last = null;
    this.volume = this.tradeCount = 0;
  }
}

function showFacts(facts: HTMLElement, code: string, day: DayPath, snapshot: Snapshot | undefined): void {
  const change = priceChange(day.last, snapshot?.settle);
  const rows: [string, string, string?][] = [
    ['contract', code],
    [
      'day',
      day.date === '' ? '–' : `${day.date.slice(6, 8)}/${day.date.slice(4, 6)}/${day.date.slice(0, 4)}`,
    ],
    ['last trade', day.last ?? '–'],
    [
      'change',
      change === '' ? '–' : change,
      change.startsWith('-') ? 'down' : change.startsWith('+') ? 'up' : undefined,
    ],
    ['volume', `${whole(day.volume)} lots in ${whole(day.tradeCount)} trades`],
    ['bid / ask', `${day.bid ?? '–'} / ${day.ask ?? '–'}`],
    ['previous settle', snapshot?.settle ?? '–'],
    [
      'open interest',
      snapshot?.openInterest == null
        ? '–'
        : `${whole(snapshot.openInterest)}${snapshot.openInterestChange == null ? '' : ` (${snapshot.openInterestChange})`}`,
    ],
  ];
  facts.replaceChildren(
    ...rows.flatMap(([term, value, tone]) => [
      h('dt', {}, term),
      h('dd', { class: tone, 'data-fact': term }, value),
    ]),
  );
}

function intradayOptions(code: string): Omit<uPlot.Options, 'width' | 'height'> {
  const stepped = uPlot.paths.stepped?.({ align: 1 });
  return {
    title: code,
    tzDate: exchangeTime,
    scales: {
      x: {
        time: true,
        // At least ten minutes wide: a day's first event alone would otherwise get an axis of
        // seconds, every label the same minute.
        range: (_plot, min, max) => (max - min >= 600 ? [min, max] : [min - 300, max + 300]),
      },
    },
    axes: [clockAxis, { label: 'price', size: 60 }],
    series: [
      {
        label: 'time',
        value: (_plot, value) => {
          if (value === null) return '';
          const time = exchangeTime(value);
          return time.toTimeString().slice(0, 8);
        },
      },
      { label: 'bid', stroke: COLOURS[0], width: 1, ...(stepped ? { paths: stepped } : {}) },
      { label: 'ask', stroke: COLOURS[1], width: 1, ...(stepped ? { paths: stepped } : {}) },
      {
        label: 'trade',
        stroke: COLOURS[2],
        fill: COLOURS[2],
        paths: () => null,
        points: { show: true, size: 7, fill: COLOURS[2] },
      },
    ],
  };
}

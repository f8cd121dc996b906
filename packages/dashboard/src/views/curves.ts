import { addDays, GridquoteError } from '@gridquote/client';
import type uPlot from 'uplot';
import { COLOURS, createChart, exchangeTime } from '../chart.js';
import { CURVE_PRODUCTS, deliveryStart, REGIONS, type Region } from '../codes.js';
import { field, fromInputDate, h, select, toInputDate, toolbar } from '../dom.js';
import { num, priceChange } from '../numbers.js';
import type { View, ViewContext } from '../view.js';

/**
 * Forward curves: the settlement price of each delivery period of a region (base and peak
 * quarters, base months) on the latest closed day, and the same curve of a chosen earlier day
 * overlaid (dashed). Hovering a period shows its code, settle and the change since that day.
 * Two requests (`data` of the region's market for each day), kept for the page's life: a
 * closed day's settlements do not change, so switching regions costs nothing. Which day is the
 * latest is asked again after a minute.
 */

interface DaySettles {
  readonly date: string;
  /** Settle by code. */
  readonly settles: ReadonlyMap<string, string>;
}

/** Answers by market and date ('' = latest), for the page's life. */
const answers = new Map<string, Promise<DaySettles>>();
/**
 * Which day is the latest closed one moves on (each evening; every few minutes in the demo's
 * replay), so that answer is asked again after this long; a named day's is kept.
 */
const LATEST_KEPT_MS = 60_000;
const latestAskedAt = new Map<string, number>();

function settlesOf(context: ViewContext, market: Region['market'], date: string): Promise<DaySettles> {
  const key = `${market}/${date}`;
  if (date === '' && performance.now() - (latestAskedAt.get(key) ?? 0) > LATEST_KEPT_MS) answers.delete(key);
  let answer = answers.get(key);
  if (answer === undefined) {
    if (date === '') latestAskedAt.set(key, performance.now());
    answer = context.api.data({ futures: market, ...(date === '' ? {} : { date }) }).then((response) => ({
      date: response.date,
      settles: new Map(response.data.filter((row) => row.settle !== '').map((row) => [row.code, row.settle])),
    }));
    answers.set(key, answer);
    // A failure is not kept: the next visit asks again.
    answer.catch(() => answers.delete(key));
  }
  return answer;
}

/** The earlier day: the one asked for, or the nearest day with data when that one has none. */
async function pastSettles(
  context: ViewContext,
  market: Region['market'],
  date: string,
): Promise<DaySettles> {
  try {
    return await settlesOf(context, market, date);
  } catch (error) {
    const nearest = error instanceof GridquoteError ? error.problem?.nearestDate : undefined;
    if (typeof nearest !== 'string') throw error;
    return settlesOf(context, market, nearest);
  }
}

let chosenRegion = 'nsw';
let chosenPast = '';

export const curvesView: View = {
  id: 'curves',
  title: 'Forward curves',
  mount(root, context) {
    const regionSelect = select(
      'region',
      REGIONS.map((region) => [
        region.id,
        `${region.label} (${region.market === 'au_electricity' ? 'AU' : 'NZ'})`,
      ]),
      chosenRegion,
    );
    const pastInput = h('input', { type: 'date', name: 'past' });
    const chartBox = h('div', { class: 'chart', 'data-chart': 'curves' });
    const note = h('p', { class: 'muted' });
    root.append(
      toolbar(field('Region', regionSelect), field('Compare with', pastInput)),
      note,
      chartBox,
      h(
        'p',
        { class: 'muted' },
        'Settlement prices in $/MWh by start of delivery. Solid: latest closed day; dashed: the day compared with.',
      ),
    );
    let chart: ReturnType<typeof createChart> | undefined;
    context.signal.addEventListener('abort', () => chart?.destroy(), { once: true });
    let shownLatest = '';

    const draw = async () => {
      const region = REGIONS.find((candidate) => candidate.id === regionSelect.value) ?? REGIONS[0];
      if (region === undefined) return;
      chosenRegion = region.id;
      context.status('loading settlements…');
      const latest = await settlesOf(context, region.market, '');
      if (context.signal.aborted) return;
      shownLatest = latest.date;
      if (chosenPast === '') chosenPast = addDays(latest.date, -7);
      // The latest curve at once; the earlier day's overlay when it arrives.
      const show = (past: DaySettles | undefined) => {
        note.textContent =
          past === undefined
            ? `${region.label}: ${latest.date}`
            : `${region.label}: ${latest.date} compared with ${past.date}`;
        const { data, series, codes } = curveData(region, latest, past ?? { date: '…', settles: new Map() });
        // Region and days change the series' labels and codes: a new chart.
        chart?.destroy();
        chartBox.replaceChildren();
        chart = createChart(chartBox, curveOptions(series, codes), data);
        context.rendered();
      };
      show(undefined);
      const past = await pastSettles(context, region.market, chosenPast);
      if (context.signal.aborted) return;
      pastInput.value = toInputDate(past.date);
      show(past);
      context.status('');
    };
    const redraw = () => draw().catch(context.failed);
    regionSelect.addEventListener('change', redraw);
    pastInput.addEventListener('change', () => {
      if (pastInput.value === '') return;
      const chosen = fromInputDate(pastInput.value);
      // A later day has no settlements to compare yet (the live day's are not out).
      if (shownLatest !== '' && chosen >= shownLatest) {
        context.status(`compare with a day before ${shownLatest}, the latest closed day`);
        pastInput.value = toInputDate(chosenPast);
        return;
      }
      chosenPast = chosen;
      redraw();
    });
    redraw();
    // A page left open follows the latest closed day when it moves on (one request a minute).
    const watch = setInterval(() => {
      const region = REGIONS.find((candidate) => candidate.id === regionSelect.value);
      if (region === undefined) return;
      settlesOf(context, region.market, '')
        .then((latest) => {
          if (!context.signal.aborted && shownLatest !== '' && latest.date !== shownLatest) redraw();
        })
        .catch(() => undefined);
    }, LATEST_KEPT_MS);
    context.signal.addEventListener('abort', () => clearInterval(watch), { once: true });
  },
};

/** Per chart: the code (and its change) behind each point, for the hover legend. */
const chartCodes = new WeakMap<uPlot, SeriesCodes>();
type SeriesCodes = readonly (readonly ({ code: string; change: string } | null)[])[];

function curveData(
  region: Region,
  latest: DaySettles,
  past: DaySettles,
): { data: uPlot.AlignedData; series: uPlot.Series[]; codes: SeriesCodes } {
  // One row per delivery start; each product and day is a series with gaps where it has no period.
  const points = new Map<number, Map<number, { code: string; settle: string; change: string }>>();
  const series: uPlot.Series[] = [];
  CURVE_PRODUCTS.forEach((product, index) => {
    const root = region.roots[product.id];
    for (const [dayIndex, day] of [latest, past].entries()) {
      const slot = index * 2 + dayIndex;
      series.push({
        label: `${product.label} ${day.date}`,
        stroke: COLOURS[index],
        width: dayIndex === 0 ? 2 : 1.5,
        dash: dayIndex === 0 ? undefined : [6, 4],
        spanGaps: true,
        points: { show: true, size: dayIndex === 0 ? 5 : 3 },
      });
      for (const [code, settle] of day.settles) {
        if (!code.startsWith(root) || code.length !== 7) continue;
        const start = deliveryStart(code, product.months);
        if (start === undefined) continue;
        const change = dayIndex === 0 ? priceChange(settle, past.settles.get(code)) : '';
        let row = points.get(start);
        if (row === undefined) {
          row = new Map();
          points.set(start, row);
        }
        row.set(slot, { code, settle, change });
      }
    }
  });
  const xs = [...points.keys()].sort((a, b) => a - b);
  const columns = series.map((_, slot) => xs.map((x) => points.get(x)?.get(slot) ?? null));
  return {
    data: [
      xs,
      ...columns.map((column) => column.map((point) => (point === null ? null : num(point.settle)))),
    ],
    series,
    codes: columns.map((column) =>
      column.map((point) => (point === null ? null : { code: point.code, change: point.change })),
    ),
  };
}

function curveOptions(series: uPlot.Series[], codes: SeriesCodes): Omit<uPlot.Options, 'width' | 'height'> {
  return {
    tzDate: exchangeTime,
    scales: { x: { time: true } },
    axes: [{}, { label: '$/MWh', size: 60 }],
    cursor: { focus: { prox: 16 } },
    series: [
      {
        label: 'delivery',
        value: (_plot, value) => (value === null ? '' : new Date(value * 1000).toISOString().slice(0, 7)),
      },
      ...series.map((one) => ({
        ...one,
        // The hover legend: code, settle and the change since the day compared with.
        value: (plot: uPlot, value: number | null, seriesIndex: number, dataIndex: number | null) => {
          if (value === null || dataIndex === null) return '–';
          const point = chartCodes.get(plot)?.[seriesIndex - 1]?.[dataIndex];
          if (!point) return value.toFixed(2);
          return `${point.code} ${value.toFixed(2)}${point.change === '' ? '' : ` (${point.change})`}`;
        },
      })),
    ],
    hooks: {
      init: [(plot) => void chartCodes.set(plot, codes)],
    },
  };
}

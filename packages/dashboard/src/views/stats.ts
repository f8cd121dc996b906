import type uPlot from 'uplot';
import { bars, COLOURS, categoryAxis, createChart } from '../chart.js';
import { field, fromInputDate, h, select, toInputDate, toolbar } from '../dom.js';
import { num, whole } from '../numbers.js';
import type { View, ViewContext } from '../view.js';

/**
 * Exchange statistics (`datamine`): volume by region over a range, each region's bar stacked by
 * product class (AU and NZ regions side by side), and open interest by AU region at a day's
 * close. Three requests per range.
 */

const CLASSES = [
  ['baseMonthFutures', 'base month fut.'],
  ['baseQuarterFutures', 'base quarter fut.'],
  ['peakQuarterFutures', 'peak quarter fut.'],
  ['caps', 'caps'],
  ['calFutures', 'cal. strip fut.'],
  ['averageOptions', 'average options'],
  ['calOptions', 'cal. options'],
  ['finOptions', 'fin. options'],
  ['peakOptions', 'peak options'],
] as const;

const VOLUME_MEASURES = [
  ['volume', 'lots'],
  ['quarterlyEquivalentVolume', 'quarterly-equivalent lots'],
  ['mwh', 'MWh'],
  ['faceValue', 'face value ($)'],
  ['count', 'trades'],
] as const;

const REGION_LABELS: Readonly<Record<string, string>> = {
  nsw: 'NSW',
  vic: 'VIC',
  qld: 'QLD',
  sa: 'SA',
  otahuhu: 'Otahuhu',
  benmore: 'Benmore',
};

/** measure -> region -> field -> value, the shape of every datamine answer's `data`. */
type Measures = Readonly<Record<string, Readonly<Record<string, Readonly<Record<string, string>>>>>>;

let chosenFrom = '';
let chosenTo = '';
let chosenMeasure = 'volume';

export const statsView: View = {
  id: 'stats',
  title: 'Exchange statistics',
  mount(root, context) {
    const fromInput = h('input', {
      type: 'date',
      name: 'from',
      value: chosenFrom === '' ? undefined : toInputDate(chosenFrom),
    });
    const toInput = h('input', {
      type: 'date',
      name: 'to',
      value: chosenTo === '' ? undefined : toInputDate(chosenTo),
    });
    const measureSelect = select('measure', VOLUME_MEASURES, chosenMeasure);
    const volumeTitle = h('h2');
    const volumeBox = h('div', { class: 'chart', 'data-chart': 'volume' });
    const oiTitle = h('h2');
    const oiBox = h('div', { class: 'chart', 'data-chart': 'open-interest' });
    root.append(
      toolbar(field('From', fromInput), field('To', toInput), field('Measure', measureSelect)),
      volumeTitle,
      volumeBox,
      oiTitle,
      oiBox,
    );
    const charts: ReturnType<typeof createChart>[] = [];
    context.signal.addEventListener('abort', () => {
      for (const chart of charts) chart.destroy();
    });
    let volumes: { au: Measures; nz: Measures; from: string; to: string; days: number } | undefined;

    const drawVolume = () => {
      if (volumes === undefined) return;
      chosenMeasure = measureSelect.value;
      const unit = VOLUME_MEASURES.find(([id]) => id === chosenMeasure)?.[1] ?? '';
      volumeTitle.textContent = `Volume by region and product class, ${volumes.from}–${volumes.to} (${volumes.days} trading days), ${unit}`;
      const regions = { ...volumes.au[chosenMeasure], ...volumes.nz[chosenMeasure] };
      replaceChart(charts, 0, volumeBox, stackedBars(regions, unit));
    };

    const load = async () => {
      chosenFrom = fromInput.value === '' ? '' : fromInputDate(fromInput.value);
      chosenTo = toInput.value === '' ? '' : fromInputDate(toInput.value);
      const range = {
        ...(chosenFrom === '' ? {} : { from: chosenFrom }),
        ...(chosenTo === '' ? {} : { to: chosenTo }),
      };
      context.status('loading statistics…');
      const [au, nz, oi] = await Promise.all([
        context.api.datamine({ type: 'au-volume', ...range }, { signal: context.signal }),
        context.api.datamine({ type: 'nz-volume', ...range }, { signal: context.signal }),
        openInterest(context),
      ]);
      volumes = {
        au: au.data as unknown as Measures,
        nz: nz.data as unknown as Measures,
        from: au.from,
        to: au.to,
        days: au.tradingDays,
      };
      fromInput.value = toInputDate(au.from);
      toInput.value = toInputDate(au.to);
      drawVolume();
      if (oi !== undefined) {
        oiTitle.textContent = `Open interest by AU region and product class at the close of ${oi.date}, lots`;
        replaceChart(
          charts,
          1,
          oiBox,
          stackedBars((oi.data as unknown as Measures).openInterest ?? {}, 'lots'),
        );
      }
      context.status('');
      context.rendered();
    };
    measureSelect.addEventListener('change', drawVolume);
    for (const input of [fromInput, toInput])
      input.addEventListener('change', () => load().catch(context.failed));
    load().catch(context.failed);
  },
};

/** au-oi of the latest day with open interest published (it does not follow the range). */
async function openInterest(context: ViewContext) {
  return context.api.datamine({ type: 'au-oi' }, { signal: context.signal });
}

function replaceChart(
  charts: ReturnType<typeof createChart>[],
  slot: number,
  box: HTMLElement,
  chart: { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData },
): void {
  charts[slot]?.destroy();
  box.replaceChildren();
  charts[slot] = createChart(box, chart.options, chart.data);
}

/**
 * Bars stacked by class: uPlot draws series in order, so each class's series is the running
 * total up to it and the series go from the tallest (all classes) down; the legend shows each
 * class's own value.
 */
function stackedBars(
  regions: Readonly<Record<string, Readonly<Record<string, string>>>>,
  unit: string,
): { options: Omit<uPlot.Options, 'width' | 'height'>; data: uPlot.AlignedData } {
  const names = Object.keys(regions);
  const present = CLASSES.filter(([id]) => names.some((region) => regions[region]?.[id] !== undefined));
  const own = present.map(([id]) => names.map((region) => num(regions[region]?.[id]) ?? 0));
  const running: number[][] = [];
  own.forEach((values, index) => {
    running.push(values.map((value, at) => value + (running[index - 1]?.[at] ?? 0)));
  });
  const order = present.map((_, index) => present.length - 1 - index);
  return {
    data: [names.map((_, index) => index), ...order.map((index) => running[index] ?? [])],
    options: {
      scales: { x: { time: false, range: [-0.5, names.length - 0.5] } },
      axes: [
        categoryAxis(names.map((name) => REGION_LABELS[name] ?? name)),
        { label: unit, size: 80, values: (_plot, ticks) => ticks.map((tick) => whole(tick)) },
      ],
      series: [
        {
          label: 'region',
          value: (_plot, value) => (value === null ? '' : (REGION_LABELS[names[value] ?? ''] ?? '')),
        },
        ...order.map((index) => {
          const [id, label] = present[index] ?? ['', ''];
          // By the class, not its place among those present: one class, one colour in every chart.
          const colour = COLOURS[CLASSES.findIndex(([known]) => known === id) % COLOURS.length] ?? '#000';
          return {
            label,
            stroke: colour,
            fill: colour,
            paths: bars(),
            points: { show: false },
            value: (_plot: uPlot, _value: number | null, _series: number, at: number | null) =>
              at === null ? '' : whole(own[index]?.[at] ?? 0),
          };
        }),
      ],
    },
  };
}

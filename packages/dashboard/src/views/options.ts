import type uPlot from 'uplot';
import { COLOURS, createChart } from '../chart.js';
import { parseOptionCode } from '../codes.js';
import { field, h, select, toolbar } from '../dom.js';
import { num } from '../numbers.js';
import type { View } from '../view.js';

/**
 * Options: implied volatility by strike (the smile) of one expiry, calls and puts, from the
 * end-of-day records of the market's options on its latest closed day. One request per market;
 * choosing another expiry costs none.
 */

const OPTION_MARKETS = [
  ['au_electricity', 'AU electricity'],
  ['nz_electricity', 'NZ electricity'],
] as const;

type OptionMarket = (typeof OPTION_MARKETS)[number][0];

interface Smile {
  /** strike -> implied volatility (percent) */
  readonly call: Map<number, number>;
  readonly put: Map<number, number>;
}

let chosenMarket: OptionMarket = 'au_electricity';
let chosenSeries = '';

export const optionsView: View = {
  id: 'options',
  title: 'Options',
  mount(root, context) {
    const marketSelect = select('market', OPTION_MARKETS, chosenMarket);
    const seriesSelect = h('select', { name: 'expiry' });
    const title = h('h2');
    const chartBox = h('div', { class: 'chart', 'data-chart': 'smile' });
    root.append(toolbar(field('Market', marketSelect), field('Expiry', seriesSelect)), title, chartBox);
    let chart: ReturnType<typeof createChart> | undefined;
    context.signal.addEventListener('abort', () => chart?.destroy(), { once: true });
    let smiles = new Map<string, Smile>();
    let date = '';

    const draw = () => {
      chosenSeries = seriesSelect.value;
      const smile = smiles.get(chosenSeries);
      if (smile === undefined) return;
      title.textContent = `Implied volatility by strike, ${chosenSeries} options, settled ${date}`;
      const strikes = [...new Set([...smile.call.keys(), ...smile.put.keys()])].sort((a, b) => a - b);
      const data: uPlot.AlignedData = [
        strikes,
        strikes.map((strike) => smile.call.get(strike) ?? null),
        strikes.map((strike) => smile.put.get(strike) ?? null),
      ];
      chart?.destroy();
      chartBox.replaceChildren();
      chart = createChart(
        chartBox,
        {
          scales: { x: { time: false } },
          axes: [{ label: 'strike ($/MWh)' }, { label: 'implied volatility (%)', size: 60 }],
          series: [
            { label: 'strike', value: (_plot, value) => (value === null ? '' : value.toFixed(2)) },
            { label: 'calls', stroke: COLOURS[0], width: 2, spanGaps: true, points: { show: true, size: 8 } },
            {
              label: 'puts',
              stroke: COLOURS[1],
              width: 1.5,
              dash: [6, 4],
              spanGaps: true,
              points: { show: true, size: 4 },
            },
          ],
        },
        data,
      );
      context.rendered();
    };

    const load = async () => {
      chosenMarket = marketSelect.value as OptionMarket;
      context.status('loading option settlements…');
      const answer = await context.api.data({ options: chosenMarket }, { signal: context.signal });
      date = answer.date;
      smiles = new Map();
      for (const [type, records] of [
        ['call', answer.data.call],
        ['put', answer.data.put],
      ] as const) {
        for (const record of records) {
          const parsed = parseOptionCode(record.code);
          const volatility = num(record.implied_volatility);
          if (parsed === undefined || volatility === null) continue;
          let smile = smiles.get(parsed.series);
          if (smile === undefined) {
            smile = { call: new Map(), put: new Map() };
            smiles.set(parsed.series, smile);
          }
          smile[type].set(parsed.strike, volatility);
        }
      }
      const series = [...smiles.keys()].sort(byExpiry);
      seriesSelect.replaceChildren(
        ...series.map((one) => h('option', { value: one, selected: one === chosenSeries }, one)),
      );
      if (!smiles.has(chosenSeries)) seriesSelect.value = series[0] ?? '';
      context.status(series.length === 0 ? `no option settlements for ${chosenMarket} on ${date}` : '');
      draw();
    };
    marketSelect.addEventListener('change', () => load().catch(context.failed));
    seriesSelect.addEventListener('change', draw);
    load().catch(context.failed);
  },
};

const MONTHS = 'FGHJKMNQUVXZ';

/** Series by expiry (year, then month), then root. */
function byExpiry(a: string, b: string): number {
  const key = (series: string) =>
    `${series.slice(3, 7)}${String(MONTHS.indexOf(series[2] ?? '')).padStart(2, '0')}${series.slice(0, 2)}`;
  return key(a).localeCompare(key(b));
}

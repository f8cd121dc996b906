import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

/**
 * One uPlot chart that fills its container's width. uPlot (about 50 kB, canvas, made for time
 * series) redraws thousands of points in a millisecond or two, which the live views need.
 * The container carries `data-points`: how many values the chart holds (tests and the curious
 * read it without reaching into the canvas).
 */
export interface Chart {
  readonly plot: uPlot;
  setData(data: uPlot.AlignedData): void;
  destroy(): void;
}

export const CHART_HEIGHT = 360;

export function createChart(
  container: HTMLElement,
  options: Omit<uPlot.Options, 'width' | 'height'> & { height?: number },
  data: uPlot.AlignedData,
): Chart {
  const width = () => Math.max(320, container.clientWidth);
  const plot = new uPlot(
    { ...options, width: width(), height: options.height ?? CHART_HEIGHT },
    data,
    container,
  );
  const count = (values: uPlot.AlignedData) => {
    let points = 0;
    for (const series of values.slice(1)) {
      for (const value of series) if (value !== null && value !== undefined) points += 1;
    }
    container.dataset.points = String(points);
  };
  count(data);
  const resize = new ResizeObserver(() =>
    plot.setSize({ width: width(), height: options.height ?? CHART_HEIGHT }),
  );
  resize.observe(container);
  return {
    plot,
    setData(values) {
      plot.setData(values);
      count(values);
    },
    destroy() {
      resize.disconnect();
      plot.destroy();
    },
  };
}

/** The palette: distinguishable, and readable on white. */
export const COLOURS = [
  '#1f6feb',
  '#d1242f',
  '#1a7f37',
  '#9a6700',
  '#8250df',
  '#bc4c00',
  '#0a7ea4',
  '#6e7781',
  '#e85aad',
];

/** Exchange times and dates are written on a UTC calendar (codes.ts exchangeSeconds): show them as such. */
export const exchangeTime = (seconds: number) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC');

const pad = (value: number) => String(value).padStart(2, '0');

/** Time-axis labels as the exchange writes times: 24-hour clock. */
export const clockAxis: uPlot.Axis = {
  values: (_plot, ticks) =>
    ticks.map((tick) => {
      const time = exchangeTime(tick);
      return `${pad(time.getHours())}:${pad(time.getMinutes())}`;
    }),
};

/** A category axis (bars): a label under each whole tick, no lines between. */
export function categoryAxis(labels: readonly string[]): uPlot.Axis {
  return {
    splits: () => labels.map((_, index) => index),
    values: (_plot, ticks) => ticks.map((tick) => labels[tick] ?? ''),
    grid: { show: false },
  };
}

/** Bars for uPlot series (categorical x). */
export const bars = (): uPlot.Series.PathBuilder => {
  const builder = uPlot.paths.bars;
  if (builder === undefined) throw new Error('this uPlot build has no bar paths');
  return builder({ size: [0.6, 80] });
};

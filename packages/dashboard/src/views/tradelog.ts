import { GridquoteError, type TradelogParams } from '@gridquote/client';
import { MARKETS, type MarketCode } from '../codes.js';
import { field, fromInputDate, h, select, toInputDate, toolbar } from '../dom.js';
import { grouped, whole } from '../numbers.js';
import type { View } from '../view.js';

/**
 * The trade log of a market and day (default: the market's latest closed day) with its summary,
 * and its CSV exactly as the API writes it, downloaded as a file. One request to show it, one
 * more for the CSV when asked for.
 */

const SHOWN_ROWS = 1000;

let chosenMarket: MarketCode = 'au_electricity';
let chosenDate = '';

export const tradelogView: View = {
  id: 'tradelog',
  title: 'Trade log',
  mount(root, context) {
    const marketSelect = select('market', MARKETS, chosenMarket);
    const dateInput = h('input', {
      type: 'date',
      name: 'date',
      value: chosenDate === '' ? undefined : toInputDate(chosenDate),
    });
    const download = h('button', { type: 'button', disabled: true }, 'Download CSV');
    const summary = h('dl', { class: 'summary' });
    const body = h('tbody');
    const headRow = h('tr');
    const note = h('p', { class: 'muted' });
    root.append(
      toolbar(field('Market', marketSelect), field('Day', dateInput), download),
      summary,
      note,
      h('div', { class: 'table-wrap' }, h('table', { class: 'log' }, h('thead', {}, headRow), body)),
    );
    let shown: TradelogParams = { market: chosenMarket };

    const load = async () => {
      chosenMarket = marketSelect.value as MarketCode;
      chosenDate = dateInput.value === '' ? '' : fromInputDate(dateInput.value);
      shown = { market: chosenMarket, ...(chosenDate === '' ? {} : { date: chosenDate }) };
      download.disabled = true;
      let notice = '';
      context.status('loading the trade log…');
      const log = await context.api.tradelog(shown, { signal: context.signal }).catch((error: unknown) => {
        // A day without trades (a weekend, a holiday): the nearest day that has them, as the
        // forward curves do, and said, so the picker never shows one day over another's trades.
        const nearest = error instanceof GridquoteError ? error.problem?.nearestDate : undefined;
        if (typeof nearest !== 'string' || shown.date === undefined) throw error;
        notice = `${chosenDate} has no trade log for this market; showing the nearest day, ${nearest}`;
        return context.api.tradelog({ market: chosenMarket, date: nearest }, { signal: context.signal });
      });
      // The day answered (the latest closed one unless a day was chosen): the CSV is of that day.
      shown = { market: chosenMarket, date: log.date };
      dateInput.value = toInputDate(log.date);
      const electricity = chosenMarket.endsWith('_electricity');
      summary.replaceChildren(
        ...(
          [
            ['day', log.date],
            ['trades', whole(log.summary.trades)],
            ['lots', whole(log.summary.volume)],
            ['MWh', electricity ? whole(log.summary.traded_mwh) : '–'],
            ['face value', electricity ? `$${grouped(log.summary.face_value)}` : '–'],
          ] as const
        ).flatMap(([term, value]) => [h('dt', {}, term), h('dd', {}, value)]),
      );
      const columns = [
        'time',
        'code',
        'trade_type',
        'volume',
        'price',
        ...(electricity ? ['hours', 'face_value'] : []),
      ] as const;
      headRow.replaceChildren(
        ...columns.map((column) => h('th', { scope: 'col' }, column.replace('_', ' '))),
      );
      body.replaceChildren(
        ...log.data
          .slice(0, SHOWN_ROWS)
          .map((entry) =>
            h(
              'tr',
              {},
              ...columns.map((column) =>
                h('td', {}, (entry as Record<string, string | undefined>)[column] ?? ''),
              ),
            ),
          ),
      );
      note.textContent =
        log.data.length > SHOWN_ROWS
          ? `the first ${SHOWN_ROWS} of ${log.data.length} trades; the CSV holds all`
          : '';
      download.disabled = false;
      context.status(notice);
      context.rendered();
    };

    download.addEventListener('click', async () => {
      try {
        download.disabled = true;
        const text = await context.api.csv('tradelog', shown, { signal: context.signal });
        const url = URL.createObjectURL(new Blob([text], { type: 'text/csv;charset=utf-8' }));
        const link = h('a', { href: url, download: `tradelog-${shown.market}-${shown.date}.csv` });
        link.click();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
      } catch (error) {
        context.failed(error);
      } finally {
        download.disabled = false;
      }
    });
    marketSelect.addEventListener('change', () => {
      dateInput.value = '';
      load().catch(context.failed);
    });
    dateInput.addEventListener('change', () => load().catch(context.failed));
    load().catch(context.failed);
  },
};

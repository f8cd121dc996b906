import type { IntradayResponse, StreamEvent } from '@gridquote/client';
import { MARKETS, type MarketCode } from '../codes.js';
import { field, h, select, toolbar } from '../dom.js';
import { Flashes } from '../flashes.js';
import { follow, STREAM_REFUSED } from '../live.js';
import { num, priceChange } from '../numbers.js';
import type { View } from '../view.js';

/**
 * The market board: the `intraday` snapshot of a market's futures as a table, kept current by
 * the event stream (books set bid and ask, trades last, high, low, volume and change); a changed
 * cell flashes (green up, red down). Sortable by any column, filtered by a code prefix.
 *
 * The stream starts one second after the market's latest event at the snapshot (the `trades`
 * answer's last_update), so the day's earlier events are not applied twice. Three requests in
 * all; a new trading day loads a new snapshot.
 */

type FuturesRecord = Extract<IntradayResponse, { futures: string }>['data'][number];
type Column = Exclude<keyof FuturesRecord, 'code'> | 'code';

const COLUMNS: readonly { readonly id: Column; readonly label: string; readonly text?: true }[] = [
  { id: 'code', label: 'code', text: true },
  { id: 'bid_size', label: 'bid size' },
  { id: 'bid', label: 'bid' },
  { id: 'ask', label: 'ask' },
  { id: 'ask_size', label: 'ask size' },
  { id: 'last', label: 'last' },
  { id: 'net_change', label: 'change' },
  { id: 'high', label: 'high' },
  { id: 'low', label: 'low' },
  { id: 'volume', label: 'volume' },
  { id: 'open_interest', label: 'open interest' },
  { id: 'settle', label: 'prev. settle' },
];

const FLASH_MS = 700;
/**
 * The board takes the stream's events in batches at most this often: each batch costs the browser
 * a style and layout pass over the table, and ten a second read as live while leaving most frames
 * free (measured: benchmarks.md, Dashboard).
 */
const BATCH_MS = 100;

interface Row {
  readonly element: HTMLTableRowElement;
  readonly cells: Record<Column, HTMLTableCellElement>;
  readonly values: Record<Column, string | null>;
}

let chosenMarket: MarketCode = 'au_electricity';
let chosenPrefix = '';
let sortColumn: Column = 'code';
let sortDescending = false;

export const boardView: View = {
  id: 'board',
  title: 'Market board',
  mount(root, context) {
    const marketSelect = select('market', MARKETS, chosenMarket);
    const prefixInput = h('input', {
      name: 'prefix',
      size: 8,
      value: chosenPrefix,
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'e.g. BN',
    });
    const headRow = h('tr');
    const body = h('tbody');
    const table = h('table', { class: 'board', 'data-updates': 0 }, h('thead', {}, headRow), body);
    const caption = h('p', { class: 'muted' });
    root.append(
      toolbar(field('Market', marketSelect), field('Code prefix', prefixInput)),
      caption,
      h('div', { class: 'table-wrap' }, table),
    );

    let rows = new Map<string, Row>();
    let board: AbortController | undefined;
    let updates = 0;
    const flashes = new Flashes(FLASH_MS);
    context.signal.addEventListener('abort', () => flashes.stop(), { once: true });

    const sortHeaders = () =>
      headRow.replaceChildren(
        ...COLUMNS.map((column) => {
          const button = h('button', { type: 'button', 'data-column': column.id }, column.label);
          button.addEventListener('click', () => {
            sortDescending = sortColumn === column.id ? !sortDescending : false;
            sortColumn = column.id;
            sortHeaders();
            order();
            // The headers were made again: keep the focus where it was, so Enter sorts back.
            headRow.querySelector<HTMLButtonElement>(`button[data-column="${column.id}"]`)?.focus();
          });
          const sorted = sortColumn === column.id ? (sortDescending ? 'descending' : 'ascending') : undefined;
          return h(
            'th',
            { scope: 'col', 'aria-sort': sorted, class: column.text ? 'text' : undefined },
            button,
          );
        }),
      );

    const order = () => {
      const visible = [...rows.entries()]
        .filter(([code]) => code.startsWith(chosenPrefix))
        .map(([, row]) => row);
      const column = COLUMNS.find((candidate) => candidate.id === sortColumn);
      visible.sort((a, b) => {
        const x = a.values[sortColumn];
        const y = b.values[sortColumn];
        let result: number;
        if (column?.text) result = String(x).localeCompare(String(y));
        else {
          const nx = num(x);
          const ny = num(y);
          // Empty cells last, whichever the direction.
          if (nx === null || ny === null) return nx === ny ? 0 : nx === null ? 1 : -1;
          result = nx - ny;
        }
        return sortDescending ? -result : result;
      });
      body.replaceChildren(...visible.map((row) => row.element));
    };

    const load = async () => {
      board?.abort();
      const lifetime = new AbortController();
      board = lifetime;
      context.signal.addEventListener('abort', () => lifetime.abort(), { once: true });
      chosenMarket = marketSelect.value as MarketCode;
      context.status('loading the board…');
      const mark = await context.api.trades(
        { market: chosenMarket, from: '235959' },
        { signal: lifetime.signal },
      );
      const snapshot = await context.api.intraday({ futures: chosenMarket }, { signal: lifetime.signal });
      rows = new Map(snapshot.data.map((record) => [record.code, rowOf(record)]));
      order();
      caption.textContent = `${MARKETS.find(([id]) => id === chosenMarket)?.[1] ?? chosenMarket}, trading day ${mark.date}: ${rows.size} contracts, live`;
      context.status('');
      context.rendered();
      const startAt = mark.last_update === '' ? undefined : nextSecond(mark.last_update);
      follow(
        context.api,
        { futures: chosenMarket, type: 'book,trade', ...(startAt === undefined ? {} : { from: startAt }) },
        lifetime.signal,
        (events) => {
          if (
            events.some(
              (event) =>
                'time' in event.data &&
                typeof event.data.time === 'string' &&
                event.data.time.slice(0, 8) !== mark.date,
            )
          ) {
            // A new trading day: its own snapshot (settlements and open interest moved on).
            load().catch(context.failed);
            return;
          }
          let resort = false;
          for (const event of events) resort = apply(rows, event, flashes) || resort;
          if (resort) order();
          updates += events.length;
          table.dataset.updates = String(updates);
        },
        (message) => {
          context.status(message);
          // An end_of_day key gets the snapshot but not the stream: the caption must not say live.
          if (message === STREAM_REFUSED)
            caption.textContent = `${caption.textContent?.replace(/, live$/, '')}, as loaded (not live)`;
        },
        BATCH_MS,
      );
    };

    sortHeaders();
    marketSelect.addEventListener('change', () => load().catch(context.failed));
    prefixInput.addEventListener('input', () => {
      chosenPrefix = prefixInput.value.trim().toUpperCase();
      order();
    });
    load().catch(context.failed);
  },
};

function rowOf(record: FuturesRecord): Row {
  const cells = {} as Record<Column, HTMLTableCellElement>;
  const values = {} as Record<Column, string | null>;
  for (const column of COLUMNS) {
    const value = record[column.id];
    values[column.id] = value;
    cells[column.id] =
      column.id === 'code'
        ? h('th', { scope: 'row' }, value ?? '')
        : h('td', { class: column.id === 'net_change' ? tone(value) : undefined }, value ?? '');
  }
  return { element: h('tr', {}, ...COLUMNS.map((column) => cells[column.id])), cells, values };
}

/** Applies one event to its row; whether the sort column changed. */
function apply(rows: ReadonlyMap<string, Row>, event: StreamEvent, flashes: Flashes): boolean {
  if (event.event !== 'book' && event.event !== 'trade') return false;
  const row = rows.get(event.data.code);
  if (row === undefined) return false;
  const changes: Partial<Record<Column, string | null>> = {};
  if (event.event === 'book') {
    changes.bid = event.data.bid || null;
    changes.bid_size = event.data.bid_size || null;
    changes.ask = event.data.ask || null;
    changes.ask_size = event.data.ask_size || null;
  } else {
    const price = event.data.price;
    const high = num(row.values.high);
    const low = num(row.values.low);
    const value = num(price) ?? 0;
    changes.last = price;
    changes.volume = String((num(row.values.volume) ?? 0) + Number(event.data.volume));
    if (high === null || value > high) changes.high = price;
    if (low === null || value < low) changes.low = price;
    const change = priceChange(price, row.values.settle);
    if (change !== '') changes.net_change = change.startsWith('+') ? change.slice(1) : change;
  }
  let sortChanged = false;
  for (const [column, value] of Object.entries(changes) as [Column, string | null][]) {
    const before = row.values[column];
    if (before === value) continue;
    row.values[column] = value;
    const cell = row.cells[column];
    cell.textContent = value ?? '';
    if (column === 'net_change') {
      cell.classList.remove('up', 'down');
      const toned = tone(value);
      if (toned !== '') cell.classList.add(toned);
    }
    const direction = (num(value) ?? 0) - (num(before) ?? 0);
    const kind =
      column === 'volume' || column.endsWith('_size') || direction === 0
        ? 'flash'
        : direction > 0
          ? 'flash-up'
          : 'flash-down';
    flashes.mark(cell, kind);
    if (column === sortColumn) sortChanged = true;
  }
  return sortChanged;
}

/** Green up, red down, at a glance. */
function tone(change: string | null): string {
  const value = num(change) ?? 0;
  return value > 0 ? 'up' : value < 0 ? 'down' : '';
}

/** HHmmss plus one second (23:59:59 stays). */
function nextSecond(time: string): string {
  const seconds =
    Number(time.slice(0, 2)) * 3600 + Number(time.slice(2, 4)) * 60 + Number(time.slice(4, 6)) + 1;
  const bounded = Math.min(seconds, 86_399);
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(Math.floor(bounded / 3600))}${pad(Math.floor((bounded % 3600) / 60))}${pad(bounded % 60)}`;
}

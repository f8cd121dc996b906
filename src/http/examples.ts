import { parseFuturesQuery, parseOptionsQuery, type Selection } from '../domain/codes.js';
import type { EndOfDayRow, MarketReader } from '../store/store.js';

/**
 * The OpenAPI document's examples name days and contracts through placeholders, filled from
 * the store being served, so that every example answers on any store (a demo seeded yesterday,
 * a production history), not only on the one the examples were written against:
 *
 * - `{latestDay}`: the store's current day; `{pastDay}`: the held day before it;
 *   `{earlierDay}`: the held day before that (each falls back to the later one when the store
 *   holds fewer days);
 * - `{futures:BNH}`: an exact futures code of that initial code, the most traded on `pastDay`;
 * - `{options:BNH}`: an options code with year (`BNH2027`), the year with the most open
 *   interest on `pastDay`.
 *
 * An example whose placeholder the store cannot fill (no such contract) is left out.
 */

export type ExampleValues = Readonly<Record<string, string>>;

/**
 * The values of the store the examples of docs/api.md come from:
 * `gridquote seed --db market.db --days 5 --until 20250228` (docs/api.md says so). The
 * document shows these when the store is empty.
 */
export const STATIC_EXAMPLE_VALUES: ExampleValues = {
  latestDay: '20250228',
  pastDay: '20250227',
  earlierDay: '20250226',
  'futures:BNH': 'BNH2026',
  'futures:HNM': 'HNM2026',
  'options:BNH': 'BNH2026',
  'options:EAH': 'EAH2026',
};

const PLACEHOLDER = /\{([a-zA-Z]+(?::[A-Z]{2}[A-Z])?)\}/g;

/** The placeholder names a query uses. */
export function placeholdersOf(query: string): string[] {
  return [...query.matchAll(PLACEHOLDER)].map((match) => match[1] ?? '');
}

/** The query with its placeholders filled, or undefined when one has no value. */
export function fillExample(query: string, values: ExampleValues): string | undefined {
  let missing = false;
  const filled = query.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined) missing = true;
    return value ?? '';
  });
  return missing ? undefined : filled;
}

/** Fills each named example that can be filled, keeping their order. */
export function fillExamples(
  examples: Readonly<Record<string, string>>,
  values: ExampleValues,
): Record<string, string> {
  const filled: Record<string, string> = {};
  for (const [name, query] of Object.entries(examples)) {
    const text = fillExample(query, values);
    if (text !== undefined) filled[name] = text;
  }
  return filled;
}

/**
 * Reads from the store the values of the given placeholders; undefined for an empty store.
 * Awaits every read, so it serves a synchronous and an asynchronous store alike.
 */
export async function exampleValuesOf(
  reader: MarketReader,
  placeholders: Iterable<string>,
): Promise<ExampleValues | undefined> {
  const latestDay = await reader.latestDate();
  if (latestDay === undefined) return undefined;
  const earlier = (await reader.dates()).filter((date) => date < latestDay);
  const pastDay = earlier.at(-1) ?? latestDay;
  const values: Record<string, string> = {
    latestDay,
    pastDay,
    earlierDay: earlier.at(-2) ?? pastDay,
  };
  for (const name of new Set(placeholders)) {
    if (name in values) continue;
    const [kind, initial = ''] = name.split(':');
    const value =
      kind === 'futures'
        ? await mostTradedFuture(reader, initial, pastDay)
        : kind === 'options'
          ? await optionsYear(reader, initial, pastDay)
          : undefined;
    if (value !== undefined) values[name] = value;
  }
  return values;
}

async function mostTradedFuture(
  reader: MarketReader,
  initial: string,
  date: string,
): Promise<string | undefined> {
  const selection = selectionOf(parseFuturesQuery(initial));
  if (selection === undefined) return undefined;
  const rows = await reader.endOfDay({ date, selection });
  const best = rows.reduce<EndOfDayRow | undefined>(
    (top, row) => (top === undefined || row.volume > top.volume ? row : top),
    undefined,
  );
  return best?.code ?? (await reader.contracts(selection)).at(-1)?.code;
}

async function optionsYear(reader: MarketReader, initial: string, date: string): Promise<string | undefined> {
  const selection = selectionOf(parseOptionsQuery(initial));
  if (selection === undefined) return undefined;
  const yearOf = (code: string) => code.slice(0, initial.length + 4);
  const interest = new Map<string, number>();
  for (const row of await reader.endOfDay({ date, selection })) {
    interest.set(yearOf(row.code), (interest.get(yearOf(row.code)) ?? 0) + (row.openInterest ?? 0));
  }
  let best: string | undefined;
  for (const [year, total] of interest)
    if (best === undefined || total > (interest.get(best) ?? 0)) best = year;
  const listed = (await reader.contracts(selection)).at(-1)?.code;
  return best ?? (listed === undefined ? undefined : yearOf(listed));
}

function selectionOf(
  parsed: ReturnType<typeof parseFuturesQuery> | ReturnType<typeof parseOptionsQuery>,
): Selection | undefined {
  return parsed.ok ? parsed.selection : undefined;
}

/**
 * The example values of the served store, read again only when its latest day moves: the
 * reference page (reference-page.ts) and the API index (api-index.ts) ask on every request.
 * Undefined while the store is empty or failing: documentation then falls back to the static
 * values rather than failing, as it holds no data.
 */
export function exampleValuesSource(
  reader: MarketReader,
  placeholders: Iterable<string>,
): () => Promise<ExampleValues | undefined> {
  const names = [...new Set(placeholders)];
  let cached: { readonly day: string; readonly values: ExampleValues | undefined } | undefined;
  return async () => {
    try {
      const day = await reader.latestDate();
      if (day === undefined) return undefined;
      if (cached?.day !== day) cached = { day, values: await exampleValuesOf(reader, names) };
      return cached.values;
    } catch {
      return undefined;
    }
  };
}

import type { TSchema } from '@sinclair/typebox';
import { describe, expect, it } from 'vitest';
import { stubReader } from '../../test/stub-reader.js';
import { datamineJson } from '../format/datamine.js';
import * as endOfDay from '../format/end-of-day.js';
import * as indexValues from '../format/index-values.js';
import * as intraday from '../format/intraday.js';
import * as messages from '../format/messages.js';
import type { RecordForm } from '../format/records.js';
import * as ticker from '../format/ticker.js';
import * as tradelog from '../format/tradelog.js';
import * as trades from '../format/trades.js';
import { DATAMINE_TYPES, queryDatamine } from '../query/datamine.js';
import {
  datamineResponse,
  dataResponse,
  epiResponse,
  intradayResponse,
  messagesResponse,
  npiResponse,
  tickerResponse,
  tradelogResponse,
  tradesResponse,
} from './response-schemas.js';

/**
 * The writers build their JSON from the column lists of format/ (records.ts); the response
 * schemas describe the same records by hand. Every record schema must list the writer's column
 * names in the writer's order, so a renamed, added or moved column cannot leave the OpenAPI
 * document behind.
 */

interface JsonSchema {
  readonly properties?: Record<string, JsonSchema>;
  readonly required?: readonly string[];
  readonly anyOf?: readonly JsonSchema[];
  readonly items?: JsonSchema;
}

/** Walks object properties (names) and union members (numbers), each step checked. */
function at(schema: TSchema, ...path: (string | number)[]): JsonSchema {
  let node = schema as JsonSchema;
  for (const step of path) {
    const next = typeof step === 'number' ? node.anyOf?.[step] : node.properties?.[step];
    if (next === undefined) throw new Error(`no ${step} in the schema at ${path.join('.')}`);
    node = next;
  }
  return node;
}

function items(schema: JsonSchema): JsonSchema {
  if (schema.items === undefined) throw new Error('not an array schema');
  return schema.items;
}

function names(form: RecordForm<never>): string[] {
  return form.columns.map((column) => column.name);
}

/**
 * The record lists every column of the widest form in order; the columns every form writes
 * (the narrowest) are required, the others optional.
 */
function expectRecord(record: JsonSchema, widest: RecordForm<never>, narrowest = widest): void {
  expect(Object.keys(record.properties ?? {})).toEqual(names(widest));
  expect(record.required ?? []).toEqual(names(narrowest));
}

describe('response schemas follow the writers column lists', () => {
  it('ticker: one record per message type, implied_volatility for options only', () => {
    for (const envelope of [0, 1]) {
      const row = items(at(tickerResponse, envelope, 'data'));
      const [book, trade, settle] = row.anyOf ?? [];
      expectRecord(book ?? {}, ticker.JSON_FORMS.futures.book);
      expectRecord(book ?? {}, ticker.JSON_FORMS.options.book);
      expectRecord(trade ?? {}, ticker.JSON_FORMS.futures.trade);
      expectRecord(trade ?? {}, ticker.JSON_FORMS.options.trade);
      expectRecord(settle ?? {}, ticker.JSON_FORMS.options.settle, ticker.JSON_FORMS.futures.settle);
      expect(row.anyOf).toHaveLength(3);
    }
  });

  it('epi and npi', () => {
    expectRecord(items(at(epiResponse, 'data')), indexValues.FORMS.epi);
    expectRecord(items(at(npiResponse, 'data')), indexValues.FORMS.npi);
  });

  it('tradelog: hours and face_value in the electricity markets only', () => {
    expectRecord(items(at(tradelogResponse, 'data')), tradelog.ELECTRICITY, tradelog.OTHER);
  });

  it('messages: board messages and custom markets', () => {
    expectRecord(items(at(messagesResponse, 0, 'data')), messages.MESSAGE);
    expectRecord(items(at(messagesResponse, 1, 'data')), messages.CUSTOM);
  });

  it('trades, under each echoed scope', () => {
    for (const envelope of [0, 1, 2])
      expectRecord(items(at(tradesResponse, envelope, 'trades')), trades.TRADE);
  });

  it('data: futures, and options as put and call', () => {
    expectRecord(items(at(dataResponse, 0, 'data')), endOfDay.FUTURES);
    expectRecord(items(at(dataResponse, 1, 'data', 'put')), endOfDay.OPTIONS);
    expectRecord(items(at(dataResponse, 1, 'data', 'call')), endOfDay.OPTIONS);
  });

  it('intraday: futures, and options as put and call', () => {
    expectRecord(items(at(intradayResponse, 0, 'data')), intraday.FUTURES);
    expectRecord(items(at(intradayResponse, 1, 'data', 'put')), intraday.OPTIONS);
    expectRecord(items(at(intradayResponse, 1, 'data', 'call')), intraday.OPTIONS);
  });

  // Datamine has no column list: its fields follow from the type's layout (query/datamine.ts), so
  // the schema is compared with what the writer writes for each type.
  it.each(DATAMINE_TYPES)(
    'datamine %s: measures, regions and fields in the order the writer writes them',
    async (type) => {
      const reader = stubReader({
        latestDate: () => '20250228',
        publishedDates: () => ['20250228'],
        dates: () => ['20250228'],
        datamineVolume: () => ({ tradingDays: 1, groups: [] }),
        datamineOpenInterest: () => [],
      });
      const result = await queryDatamine({ access: 'historical', clock: () => new Date(), reader }, { type });
      const written = JSON.parse(datamineJson(result)) as Record<string, unknown> & {
        data: Record<string, Record<string, Record<string, string>>>;
      };
      const envelopeSchema = datamineResponse.anyOf?.find(
        (member: { description?: string }) => member.description === `type=${type}`,
      ) as JsonSchema;
      expect(envelopeSchema).toBeDefined();
      expect(Object.keys(envelopeSchema.properties ?? {})).toEqual(Object.keys(written));
      const data = at(envelopeSchema as TSchema, 'data');
      expect(Object.keys(data.properties ?? {})).toEqual(Object.keys(written.data));
      for (const [measure, regions] of Object.entries(written.data)) {
        const table = at(data as TSchema, measure);
        expect(Object.keys(table.properties ?? {})).toEqual(Object.keys(regions));
        for (const [region, cells] of Object.entries(regions)) {
          expect(Object.keys(at(table as TSchema, region).properties ?? {}), `${measure} ${region}`).toEqual(
            Object.keys(cells),
          );
        }
      }
    },
  );
});

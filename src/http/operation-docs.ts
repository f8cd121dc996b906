import type { TSchema } from '@sinclair/typebox';
import type { ParamDefs } from './params.js';

/**
 * What the OpenAPI document (openapi.ts) says about an operation beyond its parameter spec.
 * Each route file holds its own, next to the spec that validates the same parameters, so the
 * document cannot describe a parameter the operation does not take.
 */
export interface OperationDocs<S extends ParamDefs> {
  readonly summary: string;
  /** Markdown; the parameter rules and the examples are appended by the generator. */
  readonly description: string;
  /** Groups operations on the reference page. */
  readonly tag: 'intraday' | 'end of day' | 'statistics';
  /** This operation's meaning of a parameter, where the shared description of params.ts is too generic. */
  readonly params?: { readonly [K in keyof S & string]?: string };
  /**
   * Named example queries (without `?`), naming days and contracts through placeholders
   * (`{pastDay}`, `{futures:HNM}`, examples.ts) that the served store fills, so each answers on
   * any store (openapi.test.ts runs them on a freshly seeded demo store); the values become the
   * parameters' examples.
   */
  readonly examples: Readonly<Record<string, string>>;
  /** JSON Schema of the 200 JSON body (response-schemas.ts). */
  readonly response: TSchema;
  /** The CSV form in one or two sentences (columns, delimiter). */
  readonly csv: string;
}

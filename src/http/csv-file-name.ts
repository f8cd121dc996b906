import { operationName } from './openapi.js';
import type { OperationSpec, ParamDefs, ParamValues } from './params.js';

/**
 * The file name a CSV answer suggests (`Content-Disposition: attachment`), so that a browser
 * download or `curl -OJ` keeps answers apart: the operation, the values of the parameters that
 * say what is asked (the required ones and those of an exactly-one group, in the spec's order)
 * and the trading day the answer is about, e.g. `tradelog-au_electricity-20261124.csv`,
 * `messages-au_electricity-message_board-20261124.csv`, `epi-20261124.csv`.
 */
export function csvFileName<S extends ParamDefs>(
  path: string,
  spec: OperationSpec<S>,
  values: ParamValues<S>,
  day: string | undefined,
): string {
  const selecting = new Set<string>([...(spec.required ?? []), ...(spec.exactlyOne ?? []).flat()]);
  const sent = values as Readonly<Record<string, unknown>>;
  const parts = [operationName(path)];
  for (const name of Object.keys(spec.params)) {
    const text = selecting.has(name) ? textOf(sent[name]) : undefined;
    if (text !== undefined) parts.push(text);
  }
  if (day !== undefined) parts.push(day);
  // Parsed values are codes and names already; this keeps any future one a plain file name.
  return `${parts.map((part) => part.replace(/[^A-Za-z0-9_.-]/g, '_')).join('-')}.csv`;
}

export function contentDisposition(fileName: string): string {
  return `attachment; filename="${fileName}"`;
}

/** Parameter values are strings or parsed codes that keep the text they were parsed from. */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && 'text' in value && typeof value.text === 'string') {
    return value.text;
  }
  return undefined;
}

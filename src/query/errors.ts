/** A bad parameter, reported as `errors: [{parameter, message}]` in the problem body. */
export interface ParamIssue {
  readonly parameter: string;
  readonly message: string;
}

/**
 * The refusals an operation can give. http/problems.ts maps each code to its status and title;
 * nothing below http/ knows about statuses.
 */
export type QueryErrorCode = 'invalid-parameters' | 'unknown-contract' | 'no-data';

export class QueryError extends Error {
  override readonly name = 'QueryError';

  constructor(
    readonly code: QueryErrorCode,
    readonly detail: string,
    readonly issues: readonly ParamIssue[] = [],
    /** Extension members of the problem body, e.g. nearestDate. */
    readonly extensions: Readonly<Record<string, string>> = {},
  ) {
    super(detail);
  }
}

/**
 * The most issues one answer reports. A 4 KiB query can hold 800 unknown parameters, whose every
 * issue (a "did you mean" each) would make a 75 KB answer of a 4 KB request; the first ones say
 * what is wrong as well.
 */
export const MAX_REPORTED_ISSUES = 20;

export function invalidParameters(issues: readonly ParamIssue[]): QueryError {
  const names = [...new Set(issues.map((issue) => issue.parameter))];
  const shown = names.slice(0, MAX_REPORTED_ISSUES).join(', ');
  const more = names.length > MAX_REPORTED_ISSUES ? ` and ${names.length - MAX_REPORTED_ISSUES} more` : '';
  return new QueryError(
    'invalid-parameters',
    `invalid parameters: ${shown}${more}`,
    issues.slice(0, MAX_REPORTED_ISSUES),
  );
}

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

export function invalidParameters(issues: readonly ParamIssue[]): QueryError {
  const names = [...new Set(issues.map((issue) => issue.parameter))].join(', ');
  return new QueryError('invalid-parameters', `invalid parameters: ${names}`, issues);
}

import type { GridquoteClient } from '@gridquote/client';

/** What a view gets from the page: the API, its lifetime, and where to say things. */
export interface ViewContext {
  readonly api: GridquoteClient;
  /** Aborted when the user leaves the view: requests and streams stop with it. */
  readonly signal: AbortSignal;
  /** One line for the user (progress, a wait for the rate limit, a problem). */
  status(message: string): void;
  /** A failed request: the key is asked for again on 401, otherwise the problem is shown. */
  failed(error: unknown): void;
  /** The view shows data: the first time on a page load, it is marked for the performance test. */
  rendered(): void;
}

export interface View {
  /** The location hash that opens it (`#curves`). */
  readonly id: string;
  readonly title: string;
  mount(root: HTMLElement, context: ViewContext): void;
}

import { GridquoteClient, GridquoteError } from '@gridquote/client';
import { h } from './dom.js';
import { forgetKey, looksLikeKey, storedKey, storeKey } from './session.js';
import './style.css';
import type { View, ViewContext } from './view.js';
import { boardView } from './views/board.js';
import { curvesView } from './views/curves.js';
import { intradayView } from './views/intraday.js';
import { optionsView } from './views/options.js';
import { statsView } from './views/stats.js';
import { tradelogView } from './views/tradelog.js';

/** The views in tab order; the first opens when the address names none. */
const VIEWS: readonly View[] = [curvesView, intradayView, boardView, tradelogView, statsView, optionsView];

/** Set when a view first shows data after a page load (the browser test reads it). */
export const FIRST_DATA_MARK = 'gridquote:first-data';

function part<E extends HTMLElement>(selector: string): E {
  const element = document.querySelector<E>(selector);
  if (element === null) throw new Error(`index.html lacks ${selector}`);
  return element;
}

const tabs = part('#tabs');
const main = part('#view');
const statusLine = part('#status');
const forgetButton = part<HTMLButtonElement>('#forget-key');

let current: AbortController | undefined;

function status(message: string): void {
  statusLine.textContent = message;
}

function client(key: string): GridquoteClient {
  return new GridquoteClient({
    baseUrl: window.location.origin,
    key,
    // Honour the key's rate limit: wait for Retry-After (the client does) and say so.
    onRetry: ({ status: code, delayMs }) =>
      status(
        code === 429
          ? `rate limit reached: retrying in ${Math.ceil(delayMs / 1000)} s`
          : `server busy: retrying in ${Math.ceil(delayMs / 1000)} s`,
      ),
    onPause: (delayMs) => status(`pacing to the key's rate limit: ${Math.ceil(delayMs / 1000)} s`),
  });
}

function askForKey(message = ''): void {
  // No view may open again with the key being dropped: not on a later change of the address.
  window.onhashchange = null;
  current?.abort();
  status('');
  forgetButton.hidden = true;
  tabs.replaceChildren();
  const input = h('input', {
    type: 'password',
    name: 'key',
    autocomplete: 'off',
    spellcheck: 'false',
    required: true,
    size: 64,
    'aria-describedby': 'key-help',
  });
  const form = h(
    'form',
    { class: 'key-form' },
    h('h2', {}, 'Enter an API key'),
    h('label', { class: 'field' }, h('span', {}, 'API key'), input),
    h('button', { type: 'submit' }, 'Open the dashboard'),
    h(
      'p',
      { id: 'key-help', class: 'muted' },
      'The key stays in this tab (session storage) and is sent only in the Authorization header, never in an address. ',
      '`npm start` prints the demo keys.',
    ),
    message ? h('p', { class: 'problem', role: 'alert' }, message) : null,
  );
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const key = input.value.trim();
    if (!looksLikeKey(key)) {
      askForKey('That is not a gridquote key (gq_<id>_<secret>).');
      return;
    }
    storeKey(key);
    start(key);
    // The form is gone: keyboard users go on from the open view's tab, not from the page's top.
    tabs.querySelector<HTMLElement>('[aria-current="page"]')?.focus();
  });
  main.replaceChildren(form);
  input.focus();
}

function start(key: string): void {
  const api = client(key);
  forgetButton.hidden = false;
  tabs.replaceChildren(
    ...VIEWS.map((view) => h('a', { href: `#${view.id}`, 'data-view': view.id }, view.title)),
  );
  const show = () => {
    const id = window.location.hash.slice(1);
    const view = VIEWS.find((candidate) => candidate.id === id) ?? VIEWS[0];
    if (view === undefined) return;
    current?.abort();
    const lifetime = new AbortController();
    current = lifetime;
    for (const link of tabs.querySelectorAll('a')) {
      if (link.dataset.view === view.id) link.setAttribute('aria-current', 'page');
      else link.removeAttribute('aria-current');
    }
    document.title = `${view.title} · gridquote`;
    status('');
    const root = h('section', { class: 'view', 'aria-label': view.title, 'data-view': view.id });
    main.replaceChildren(root);
    const context: ViewContext = {
      api,
      signal: lifetime.signal,
      status: (message) => {
        if (!lifetime.signal.aborted) status(message);
      },
      failed: (error) => {
        if (lifetime.signal.aborted) return;
        if (error instanceof GridquoteError && error.status === 401) {
          forgetKey();
          askForKey('The server refused this key (unknown, revoked or expired). Enter another.');
          return;
        }
        status(error instanceof Error ? error.message : String(error));
      },
      rendered: () => {
        if (performance.getEntriesByName(FIRST_DATA_MARK).length === 0) performance.mark(FIRST_DATA_MARK);
        root.dataset.rendered = 'true';
      },
    };
    view.mount(root, context);
  };
  window.onhashchange = show;
  show();
}

forgetButton.addEventListener('click', () => {
  forgetKey();
  askForKey('Key forgotten.');
  // The view's name leaves the address without a hashchange (none is listened to now anyway).
  history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
});

const key = storedKey();
if (key === undefined) askForKey();
else start(key);

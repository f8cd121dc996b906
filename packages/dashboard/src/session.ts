/**
 * The API key, entered once per browser tab and kept in sessionStorage: it survives reloads of
 * the tab, never reaches a URL, and is gone when the tab closes. Forget it with the page's button.
 */

const KEY_ITEM = 'gridquote.apiKey';
/** The shape of a gridquote key (http/api-keys.ts): refuse obvious typos before spending a request. */
const KEY_SHAPE = /^gq_[0-9a-f]{12}_[A-Za-z0-9_-]{20,}$/;

export function storedKey(): string | undefined {
  return sessionStorage.getItem(KEY_ITEM) ?? undefined;
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY_ITEM);
}

export function looksLikeKey(text: string): boolean {
  return KEY_SHAPE.test(text);
}

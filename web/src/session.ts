// The API key of the signed-in person: sessionStorage by default, localStorage with "remember me",
// and the one-time sign-in link (`#key=…`, which never reaches the server) moved into storage.
import { QuireBrowser } from '@quire/client/browser';

const KEY = 'quire.apiKey';

/** The API's base: the folder the page was served from, so a sub-path behind a proxy just works. */
export function apiBase(): string {
  return new URL('.', document.baseURI).href;
}

export function storedKey(): string | null {
  return sessionStorage.getItem(KEY) ?? localStorage.getItem(KEY);
}

export function saveKey(key: string, remember: boolean): void {
  forgetKey();
  (remember ? localStorage : sessionStorage).setItem(KEY, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY);
}

/**
 * A sign-in link `…/#key=qk_…` as `quire serve` prints it: the key goes into sessionStorage and the
 * fragment leaves the address bar and the history entry at once.
 */
export function takeKeyFromFragment(): string | null {
  const params = new URLSearchParams(location.hash.replace(/^#/, ''));
  const key = params.get('key');
  if (!key) return null;
  history.replaceState(null, '', location.pathname + location.search);
  return key;
}

export function clientFor(key: string): QuireBrowser {
  return new QuireBrowser({ url: apiBase(), apiKey: key });
}

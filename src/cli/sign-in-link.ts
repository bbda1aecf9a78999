// The web app's one-time sign-in link that `quire serve` prints at a terminal on first start: the key
// rides in the URL fragment, which browsers never send to a server, and the app moves it into
// sessionStorage and strips it from the address bar (web/src/session.ts).
import type { Config } from '../config/config.js';

/** `<public base or http://host:port>/#key=<key>`; a wildcard bind address is shown as localhost. */
export function signInLink(config: Config, port: number, key: string): string {
  const wildcard = ['0.0.0.0', '::', '[::]'].includes(config.http.host);
  const host = wildcard
    ? '127.0.0.1'
    : config.http.host.includes(':')
      ? `[${config.http.host}]`
      : config.http.host;
  const base = config.http.publicBaseUrl || `http://${host}:${port}`;
  return `${base}/#key=${encodeURIComponent(key)}`;
}

// The `wait` preference of the Prefer request header (RFC 7240 §4.3), for POST /jobs to answer with
// the finished job. Prefer is not a structured field (RFC 9651), so it is read by RFC 7240's own
// grammar: comma-separated preferences, each `token [= word]` with `;` parameters, names
// case-insensitive, values tokens or quoted strings; preferences we do not know are ignored.

/**
 * The seconds to hold the response for: the first `wait` preference (RFC 7240 §2: a repeated
 * preference counts once, the first), capped at `maxSeconds`. Undefined when the client asked for no
 * wait, gave one that is not delta-seconds, or the server allows none (`maxSeconds` 0).
 */
export function preferredWait(header: string | string[] | undefined, maxSeconds: number): number | undefined {
  if (header === undefined || maxSeconds <= 0) return undefined;
  const joined = Array.isArray(header) ? header.join(',') : header;
  for (const preference of splitOutsideQuotes(joined, ',')) {
    const [head = ''] = splitOutsideQuotes(preference, ';');
    const eq = head.indexOf('=');
    const name = (eq < 0 ? head : head.slice(0, eq)).trim().toLowerCase();
    if (name !== 'wait') continue;
    const value = eq < 0 ? '' : unquote(head.slice(eq + 1).trim());
    // delta-seconds is 1*DIGIT; anything else is not a wait we can honour.
    if (!/^\d{1,10}$/.test(value)) return undefined;
    return Math.min(Number(value), maxSeconds);
  }
  return undefined;
}

/** Splits on `separator` where it is not inside a quoted string (which may hold commas). */
function splitOutsideQuotes(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted && ch === '\\' && i + 1 < text.length) {
      current += ch + text[++i];
      continue;
    }
    if (ch === '"') quoted = !quoted;
    if (ch === separator && !quoted) {
      parts.push(current);
      current = '';
    } else current += ch;
  }
  parts.push(current);
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

function unquote(word: string): string {
  if (word.length < 2 || !word.startsWith('"') || !word.endsWith('"')) return word;
  return word.slice(1, -1).replace(/\\(.)/g, '$1');
}

// The top-level entries of one PDF dictionary written as text (`<< /Key value … >>`), with the byte
// span of each, so a copy can drop or add an entry without touching the rest. Strings, hex strings
// and nested containers are skipped whole, so text inside a value is never taken for a key.

export interface DictEntry {
  key: string;
  /** The value as written (`3 0 R`, `[ … ]`, `/Catalog`, `(…)`). */
  value: string;
  /** Span of `/Key value` in the dictionary text. */
  start: number;
  end: number;
}

const WHITESPACE = /[\0\t\n\f\r ]/;
const DELIMITER = /[\0\t\n\f\r ()<>[\]{}/%]/;
const REF_TAIL = /^\s+\d+\s+R(?![^\0\t\n\f\r ()<>[\]{}/%])/;

function skipSpace(text: string, at: number): number {
  let i = at;
  while (i < text.length && WHITESPACE.test(text[i]!)) i++;
  return i;
}

/** End of a `(…)` literal string starting at `at`: balanced parentheses, backslash escapes. */
function stringEnd(text: string, at: number): number {
  let depth = 0;
  for (let i = at; i < text.length; i++) {
    const c = text[i];
    if (c === '\\') i++;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  throw new Error('unterminated string');
}

/** End of a name, number, boolean or null token. */
function tokenEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && !DELIMITER.test(text[i]!)) i++;
  return i;
}

/** End of the value starting at `at` (arrays and dictionaries whole, `N G R` as one value). */
function valueEnd(text: string, at: number): number {
  const c = text[at];
  if (c === '(') return stringEnd(text, at);
  if (c === '<' && text[at + 1] !== '<') {
    const close = text.indexOf('>', at);
    if (close < 0) throw new Error('unterminated hex string');
    return close + 1;
  }
  if (c === '[' || c === '<') {
    const close = c === '[' ? ']' : '>>';
    let i = skipSpace(text, at + close.length);
    while (i < text.length && !text.startsWith(close, i)) i = skipSpace(text, valueEnd(text, i));
    if (i >= text.length) throw new Error('unterminated container');
    return i + close.length;
  }
  const end = tokenEnd(text, at);
  const ref = /^\d+$/.test(text.slice(at, end)) ? REF_TAIL.exec(text.slice(end, end + 24)) : null;
  return ref ? end + ref[0].length : end;
}

/** Entries of the dictionary `text` (which must be `<< … >>`, surrounding whitespace allowed). */
export function dictEntries(text: string): DictEntry[] {
  let i = skipSpace(text, 0);
  if (!text.startsWith('<<', i)) throw new Error('not a dictionary');
  const entries: DictEntry[] = [];
  i = skipSpace(text, i + 2);
  while (!text.startsWith('>>', i)) {
    if (text[i] !== '/') throw new Error(`expected a key at ${i}`);
    const start = i;
    const keyEnd = tokenEnd(text, i);
    const valueStart = skipSpace(text, keyEnd);
    const end = valueEnd(text, valueStart);
    entries.push({ key: text.slice(start, keyEnd), value: text.slice(valueStart, end), start, end });
    i = skipSpace(text, end);
    if (i >= text.length) throw new Error('unterminated dictionary');
  }
  return entries;
}

// Bounds on the JSON a job request carries (options, metadata) checked before anything recursive
// touches it: JSON.stringify, structuredClone and schema validators all recurse and throw RangeError
// on a few thousand levels, and a lone UTF-16 surrogate passes JSON.parse but breaks every engine.

import { JSON_MAX_DEPTH, TEXT_PART_MAX_BYTES } from './limits.js';

/** The text-part limit of docs/api.md §2, applied to a part however it was sent. */
const JSON_MAX_BYTES = TEXT_PART_MAX_BYTES;

export interface JsonShapeError {
  /** RFC 6901 pointer below the document's own root, e.g. `/pages/0`. */
  pointer: string;
  detail: string;
}

/**
 * The first way `value` is out of bounds, or undefined. Iterative, so a hostile depth cannot
 * overflow the stack here either; the size is the JSON text's, up to escapes.
 */
export function jsonShapeError(value: unknown): JsonShapeError | undefined {
  const stack: { value: unknown; pointer: string; depth: number }[] = [{ value, pointer: '', depth: 0 }];
  let bytes = 0;
  while (stack.length > 0) {
    const { value: node, pointer, depth } = stack.pop()!;
    if (typeof node === 'string') {
      if (!isWellFormed(node)) return { pointer, detail: 'must not contain a lone UTF-16 surrogate' };
      bytes += Buffer.byteLength(node) + 2;
    } else if (node !== null && typeof node === 'object') {
      if (depth >= JSON_MAX_DEPTH)
        return { pointer, detail: `is nested deeper than ${JSON_MAX_DEPTH} levels` };
      const entries = Array.isArray(node)
        ? node.map((v, i) => [String(i), v] as const)
        : Object.entries(node);
      bytes += 2;
      for (const [key, child] of entries) {
        if (!Array.isArray(node) && !isWellFormed(key))
          return { pointer, detail: 'has a key with a lone UTF-16 surrogate' };
        bytes += Buffer.byteLength(key) + 4;
        stack.push({ value: child, pointer: `${pointer}/${escapePointer(key)}`, depth: depth + 1 });
      }
    } else {
      bytes += String(node).length + 1;
    }
    if (bytes > JSON_MAX_BYTES) return { pointer: '', detail: `is larger than ${JSON_MAX_BYTES} bytes` };
  }
  return undefined;
}

/** RFC 6901 §3: `~` and `/` inside a reference token are escaped. */
export function escapePointer(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** String.prototype.isWellFormed (ES2024) without raising the project's lib level for one call. */
function isWellFormed(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

/** With the `u` flag a valid pair is one code point, so only an unpaired half matches. */
const LONE_SURROGATE = /\p{Cs}/u;

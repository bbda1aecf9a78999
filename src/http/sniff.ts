// The upload path's content sniffing, which lives with the tools (tools/lib/sniff.ts) so the worker's
// URL imports judge bytes the same way.
export { SNIFF_BYTES, sniffContentType } from '../tools/lib/sniff.js';

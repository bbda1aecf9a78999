// The rule every PDF tool follows for an encrypted or signed input (docs/tools.md, "Encrypted and
// signed inputs"): the tool works on a decrypted copy and its PDF output gets the input's encryption
// back as it was (same R/V, permissions and both passwords); an output that cannot keep it says
// `encryption: "removed"` in its facts, and one that breaks the input's signatures says
// `signatures: "invalidated"`. Applied once, by the runner's opening (inputs.ts).
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { copyFile, open, stat } from 'node:fs/promises';
import type { EngineCallOptions } from '../../engines/call-options.js';
import type { EncryptionParameters, Qpdf } from '../../engines/qpdf/qpdf.js';
import { workFile } from './output-name.js';
import type { AnyToolDefinition, RunContext, ToolInput, ToolOutput, ToolPart } from './types.js';
import { writeZip } from './zip.js';

/** What the opening found about one PDF input, as received. */
export interface InputProtection {
  input: ToolInput;
  /** Its encryption, confirmed by qpdf; undefined for a file without. */
  encryption?: EncryptionParameters;
  /** It holds a signature (a `/ByteRange`). */
  signed: boolean;
}

const ENCRYPT = Buffer.from('/Encrypt');
const BYTE_RANGE = Buffer.from('/ByteRange');
const CHUNK_BYTES = 1024 * 1024;
/** Files up to this size are scanned by one read on this thread (readIfSmall says why). */
const SYNC_SCAN_BYTES = 256 * 1024;

/**
 * Whether `file` may be encrypted (the trailer key `/Encrypt`) and whether it is signed (a signature
 * dictionary's `/ByteRange`), by one read of its bytes: cheaper than a qpdf run, which confirms a
 * hit. Both keys are in the clear in every file that has them: a trailer or an xref stream's
 * dictionary is never compressed, and a signer writes its signature dictionary uncompressed to patch
 * the byte range in place. A key spelled with #-escapes passes unseen; its file then keeps nothing.
 */
export async function scanProtection(file: string): Promise<{ encrypted: boolean; signed: boolean }> {
  const small = readIfSmall(file);
  if (small) return { encrypted: small.includes(ENCRYPT), signed: small.includes(BYTE_RANGE) };
  const handle = await open(file, 'r');
  try {
    const overlap = BYTE_RANGE.length - 1;
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES + overlap);
    let carried = 0;
    let encrypted = false;
    let signed = false;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, carried, CHUNK_BYTES, null);
      if (bytesRead === 0) break;
      const view = buffer.subarray(0, carried + bytesRead);
      encrypted ||= view.includes(ENCRYPT);
      signed ||= view.includes(BYTE_RANGE);
      if (encrypted && signed) break;
      carried = Math.min(overlap, view.length);
      view.copyWithin(0, view.length - carried);
    }
    return { encrypted, signed };
  } finally {
    await handle.close();
  }
}

/**
 * The bytes of a file of at most SYNC_SCAN_BYTES, read on this thread; undefined for a larger one.
 * A small input (the common case) was just linked or written into the work dir, so it is in the page
 * cache: one read here costs µs, where the streamed scan's open, reads and close cost four
 * thread-pool round trips per file.
 */
function readIfSmall(file: string): Buffer | undefined {
  const fd = openSync(file, 'r');
  try {
    const { size } = fstatSync(fd);
    if (size > SYNC_SCAN_BYTES) return undefined;
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const read = readSync(fd, buffer, filled, size - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

/**
 * Each PDF input's protection from its scan (`scans`, in the order of the PDF inputs), confirmed by
 * qpdf (opened with `password`) where the scan saw `/Encrypt` or a password was given (qpdf then
 * reads the file whatever the scan saw).
 */
export async function protectionOf(
  pdfs: readonly ToolInput[],
  scans: readonly { encrypted: boolean; signed: boolean }[],
  qpdf: Pick<Qpdf, 'encryptionOf'>,
  call: EngineCallOptions & { password?: string | undefined },
): Promise<InputProtection[]> {
  const found: InputProtection[] = [];
  for (const [i, input] of pdfs.entries()) {
    const scan = scans[i]!;
    const encryption =
      scan.encrypted || call.password !== undefined ? await qpdf.encryptionOf(input.path, call) : undefined;
    found.push({ input, signed: scan.signed, ...(encryption ? { encryption } : {}) });
  }
  return found;
}

/**
 * The option every PDF-opening tool accepts for an encrypted input (the catalogue adds it to their
 * schemas and secret options, so no tool declares it).
 */
export const INPUT_PASSWORD_OPTION = 'password';

/**
 * Each encrypted PDF input replaced by a decrypted copy in the work dir (an owner-password file opens
 * without a password), and the password taken out of the options: the tool works on files that need
 * none, and `underEncryptionRule` encrypts its output again. `call.password` opens them.
 */
export async function decryptedInputs<O>(
  ctx: RunContext<O>,
  found: readonly InputProtection[],
  call: EngineCallOptions & { password?: string | undefined },
): Promise<RunContext<O>> {
  const inputs: ToolInput[] = [];
  for (const input of ctx.inputs) {
    if (!found.some((f) => f.encryption && f.input === input)) {
      inputs.push(input);
      continue;
    }
    const copy = workFile(ctx.workDir, 'decrypted');
    await ctx.engines.qpdf.decrypt(input.path, copy, call);
    inputs.push({ ...input, path: copy });
  }
  const { [INPUT_PASSWORD_OPTION]: _password, ...options } = ctx.options as Record<string, unknown>;
  return { ...ctx, inputs, options: options as O };
}

/** Whether the runner hands `tool` decrypted copies of the encrypted inputs. */
export function decryptsFor(
  tool: Pick<AnyToolDefinition, 'inputs' | 'encryption'>,
  password?: string,
): boolean {
  if (tool.inputs.passwordOption !== undefined) return false; // unlock decrypts itself
  // verify-signatures reads the signed bytes as they are; a password still decrypts, as it always did.
  return tool.encryption !== 'reads' || password !== undefined;
}

/**
 * `output` under the rule: its PDF (or each PDF part of its ZIP) encrypted as the first PDF input
 * was, or the facts saying what it could not keep. `call.password` is that input's password;
 * `handed` the file the tool read in its place (its decrypted copy), when it read one.
 */
export async function underEncryptionRule<O>(
  tool: Pick<AnyToolDefinition, 'encryption'>,
  ctx: RunContext<O>,
  found: readonly InputProtection[],
  output: ToolOutput,
  call: EngineCallOptions & { password?: string },
  handed?: string,
): Promise<ToolOutput> {
  const unchanged = await unchangedInput(tool, ctx, found, output, handed);
  if (unchanged) return call.password === undefined ? unchanged : { ...unchanged, password: call.password };
  const facts: Record<string, unknown> = { ...output.facts };
  const pdfs = pdfFiles(output);
  if (pdfs && (await invalidatesSignatures(found, output, pdfs))) facts.signatures = 'invalidated';
  const source = found[0];
  if (!found.some((f) => f.encryption) || tool.encryption === 'changes') return { ...output, facts };
  if (!pdfs || !source?.encryption || tool.encryption === 'drops') {
    return withoutPassword({ ...output, facts: { ...facts, encryption: 'removed' } });
  }
  const encrypt = async (file: string) => {
    const copy = workFile(ctx.workDir, 'encrypted');
    const linearize = await isLinearized(file);
    await ctx.engines.qpdf.copyEncryption(file, source.input.path, copy, call, { linearize });
    return copy;
  };
  const kept = { ...facts, encryption: 'kept' };
  const password = call.password === undefined ? {} : { password: call.password };
  if (!output.parts) return { ...output, path: await encrypt(output.path), facts: kept, ...password };
  const parts: ToolPart[] = [];
  for (const part of output.parts) parts.push({ ...part, path: await encrypt(part.path) });
  const zip = workFile(ctx.workDir, 'encrypted', 'zip');
  await writeZip(parts, zip, ctx.signal);
  return { ...output, path: zip, parts, facts: kept, ...password };
}

/**
 * The input as received, when the tool's PDF output is its decrypted copy byte for byte (compress
 * found no gain): encrypting that copy again would only make a file larger than the input.
 */
async function unchangedInput<O>(
  tool: Pick<AnyToolDefinition, 'encryption'>,
  ctx: RunContext<O>,
  found: readonly InputProtection[],
  output: ToolOutput,
  handed: string | undefined,
): Promise<ToolOutput | undefined> {
  const source = found[0];
  if (!source?.encryption || handed === undefined || tool.encryption !== undefined) return undefined;
  if (output.parts || output.contentType !== 'application/pdf') return undefined;
  const [made, read] = await Promise.all([stat(output.path), stat(handed)]);
  if (made.size !== read.size || !(await startsWith(output.path, handed))) return undefined;
  const copy = workFile(ctx.workDir, 'encrypted');
  await copyFile(source.input.path, copy);
  return { ...output, path: copy, facts: { ...output.facts, encryption: 'kept' } };
}

function withoutPassword(output: ToolOutput): ToolOutput {
  const { password: _password, ...rest } = output;
  return rest;
}

/** The PDFs the output is made of: itself, or the parts of its ZIP when all are PDFs; else undefined. */
function pdfFiles(output: ToolOutput): string[] | undefined {
  if (output.contentType === 'application/pdf') return [output.path];
  const parts = output.parts;
  if (!parts || parts.length === 0 || parts.some((p) => p.contentType !== 'application/pdf'))
    return undefined;
  return parts.map((p) => p.path);
}

/**
 * A signed input's signatures survive only in an output that is that input with an incremental
 * update after it (sign adds its own so); any other PDF made from it no longer matches them.
 */
async function invalidatesSignatures(
  found: readonly InputProtection[],
  output: ToolOutput,
  pdfs: readonly string[],
): Promise<boolean> {
  const signed = found.filter((f) => f.signed);
  if (signed.length === 0) return false;
  if (signed.length > 1 || pdfs.length !== 1 || output.parts) return true;
  return !(await startsWith(pdfs[0]!, signed[0]!.input.path));
}

/**
 * A linearized file says so in the dictionary of its first object, within its first 1024 bytes
 * (ISO 32000-1, Annex F.2); encrypting it again must linearize again (`linearize` keeps its purpose).
 */
async function isLinearized(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(1024);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    return head.subarray(0, bytesRead).includes('/Linearized');
  } finally {
    await handle.close();
  }
}

/** Whether `file`'s bytes begin with all of `head`'s. */
async function startsWith(file: string, head: string): Promise<boolean> {
  const [a, b] = await Promise.all([open(file, 'r'), open(head, 'r')]);
  try {
    const [sa, sb] = await Promise.all([a.stat(), b.stat()]);
    if (sa.size < sb.size) return false;
    const x = Buffer.alloc(CHUNK_BYTES);
    const y = Buffer.alloc(CHUNK_BYTES);
    for (let at = 0; at < sb.size; at += CHUNK_BYTES) {
      const length = Math.min(CHUNK_BYTES, sb.size - at);
      await Promise.all([a.read(x, 0, length, at), b.read(y, 0, length, at)]);
      if (!x.subarray(0, length).equals(y.subarray(0, length))) return false;
    }
    return true;
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
}

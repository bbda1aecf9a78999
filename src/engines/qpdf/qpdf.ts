// qpdf adapter: the lossless structural operations (count, check, merge, split, rotate, optimize,
// encrypt, decrypt, JSON inspection). Passwords travel in 0600 files, never on the command line.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../../errors/quire-error.js';
import { removeSecretFile, writeSecretFile } from '../../process/work-dir.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { encryptionCopying } from './copy-encryption.js';
import { type EncryptionSpec, encryptionJob } from './encrypt.js';
import { QPDF_EXIT } from './failure.js';
import { forkServerFor, viaForkServer } from './forkserver/binary.js';
import { type MergePart, mergeInOneRun } from './merge-one.js';
import { qpdfOpening } from './opening.js';
import { abs, JSON_MAX_BYTES, type QpdfCall, type QpdfProgram, qpdfProgram } from './run-qpdf.js';
import { OPTIMIZE, streamData } from './stream-data.js';

export type { EncryptionParameters } from './copy-encryption.js';
export type { EncryptionSpec } from './encrypt.js';
export type { MergedInput, MergePart } from './merge-one.js';
export type { Opening } from './opening.js';
export { JSON_MAX_BYTES, type QpdfCall } from './run-qpdf.js';
export type { StreamFile } from './stream-data.js';

/** How the input is protected, from `qpdf --requires-password` (exit 0 / 3 / 2). */
export type EncryptionState = 'user-password' | 'owner-only' | 'none';

/**
 * Measured (tools.md): qpdf's default pruning of unreferenced resources made a 10-file merge 13x
 * slower; page selection never leaves shared resources unreferenced enough to matter.
 */
const NO_PRUNE = '--remove-unreferenced-resources=no';

/** `forkServer`: as for qpdfProgram (null starts qpdf anew for every run). */
export function createQpdf(
  defaults: EngineDefaults,
  binary = 'qpdf',
  forkServer: string | null = forkServerFor(binary),
) {
  const qpdf = qpdfProgram(defaults, binary, forkServer);
  return {
    pageCount: qpdf.pageCount,
    ...qpdfOpening(qpdf),
    ...inspection(qpdf),
    ...pageOperations(qpdf),
    ...mergeInOneRun(qpdf),
    ...protection(qpdf),
    ...encryptionCopying(qpdf),
    ...rewrites(qpdf),
    ...streamData(qpdf),
  };
}

export type Qpdf = ReturnType<typeof createQpdf>;

/** Reading what a file is: checks, encryption, JSON. */
function inspection({ binary, forkServer, defaults, exec }: QpdfProgram) {
  return {
    /** Structural check (`qpdf --check`): true when qpdf found neither errors nor warnings. */
    async check(input: string, call: QpdfCall): Promise<{ clean: boolean }> {
      const result = await exec(['--check', abs(input)], call, { stdout: true });
      return { clean: result.exitCode === QPDF_EXIT.ok };
    },

    async encryptionState(input: string, call: EngineCallOptions): Promise<EncryptionState> {
      const result = await runEngine(
        defaults,
        binary,
        ['--requires-password', abs(input)],
        toRunOptions(defaults, call, viaForkServer(forkServer)),
      );
      if (result.exitCode === 0) return 'user-password';
      if (result.exitCode === 3) return 'owner-only';
      return 'none';
    },

    /**
     * `qpdf --json=2` restricted to `keys` (and `objects`, as `N G R` references or `trailer`, for
     * the `qpdf` key). The object list travels in an argument file (`@file`), so a long list never
     * meets the argv limit; the output is held in this process, hence bounded by JSON_MAX_BYTES.
     */
    async json(
      input: string,
      keys: readonly string[],
      call: QpdfCall,
      objects: readonly string[] = [],
    ): Promise<unknown> {
      const list = objects.map((o) => `--json-object=${o.replace(/^(\d+) (\d+) R$/, '$1,$2')}`).join('\n');
      const argFile = objects.length > 0 ? await writeSecretFile(call.workDir, list, 'objects') : undefined;
      try {
        const args = ['--json=2', ...keys.map((k) => `--json-key=${k}`), ...(argFile ? [`@${argFile}`] : [])];
        const result = await exec([...args, abs(input)], call, {
          stdout: true,
          stdoutMaxBytes: JSON_MAX_BYTES,
        });
        if (result.stdoutTruncated) {
          throw new QuireError(
            'engine_memory_exceeded',
            `The document's structure is larger than the ${JSON_MAX_BYTES / 1024 ** 2} MB the server reads`,
            { extras: { limit_bytes: JSON_MAX_BYTES } },
          );
        }
        return JSON.parse(result.stdout) as unknown;
      } finally {
        if (argFile) await removeSecretFile(argFile);
      }
    },

    /**
     * `qpdf --check-linearization`: qpdf exits 0 whether or not the file is linearized, and
     * 3 when the hint tables are wrong, so the verdict is its "no linearization errors" line.
     */
    async linearizationValid(input: string, call: QpdfCall): Promise<boolean> {
      const result = await exec(['--check-linearization', abs(input)], call, { stdout: true });
      return result.exitCode === QPDF_EXIT.ok && /: no linearization errors\s*$/m.test(result.stdout);
    },
  };
}

/** Choosing, splitting and turning pages. */
function pageOperations({ exec, write }: QpdfProgram) {
  return {
    /** Concatenates the given pages of each part, in order, into a new document. */
    merge(parts: readonly MergePart[], output: string, call: QpdfCall): Promise<void> {
      const selection = parts.flatMap((part) => [abs(part.path), ...(part.pages ? [part.pages] : [])]);
      return write(['--empty', NO_PRUNE, '--pages', ...selection, '--'], output, call);
    },

    /** Keeps only `pages` (qpdf range) of `input`, keeping its catalog (metadata, outlines). */
    selectPages(input: string, pages: string, output: string, call: QpdfCall): Promise<void> {
      return write([abs(input), NO_PRUNE, '--pages', '.', pages, '--'], output, call);
    },

    /**
     * Writes groups of `every` pages as `<prefix>-<range>.pdf` in one pass (much faster than one
     * run per part) and returns the files in page order (qpdf zero-pads the numbers).
     */
    async splitEvery(
      input: string,
      every: number,
      outputPrefix: string,
      parts: number,
      call: QpdfCall,
    ): Promise<string[]> {
      const dir = path.dirname(abs(outputPrefix));
      const base = path.basename(outputPrefix);
      // qpdf reports 0–100 % per part file; each 100 % line is one finished part.
      await exec([abs(input), NO_PRUNE, `--split-pages=${every}`, path.join(dir, `${base}.pdf`)], call, {
        progress: { parts },
      });
      const names = (await readdir(dir)).filter(
        (name) => name.startsWith(`${base}-`) && name.endsWith('.pdf'),
      );
      return names.sort().map((name) => path.join(dir, name));
    },

    /** Turns `pages` (qpdf range) clockwise by `angle` on top of their current /Rotate. */
    rotate(
      input: string,
      output: string,
      angle: 90 | 180 | 270,
      pages: string,
      call: QpdfCall,
    ): Promise<void> {
      return write([abs(input), `--rotate=+${angle}:${pages}`], output, call);
    },
  };
}

/** Adding and removing password protection. */
function protection({ exec, write, verifyWritten }: QpdfProgram) {
  return {
    /** Encrypts through a 0600 job-JSON file so neither password appears in argv. */
    async encrypt(input: string, output: string, spec: EncryptionSpec, call: QpdfCall): Promise<void> {
      const job = encryptionJob(abs(input), abs(output), spec, call.password);
      const jobFile = await writeSecretFile(call.workDir, JSON.stringify(job), 'job');
      try {
        const result = await exec(
          [`--job-json-file=${jobFile}`],
          { ...call, password: undefined },
          { progress: false },
        );
        // The output opens only with the new user password (when one was set).
        const reopen = spec.userPassword === '' ? undefined : spec.userPassword;
        await verifyWritten(result, output, call, reopen);
      } finally {
        await removeSecretFile(jobFile);
      }
    },

    /** Writes an unencrypted copy; the password is the user or the owner password. */
    decrypt(input: string, output: string, call: QpdfCall): Promise<void> {
      return write([abs(input), '--decrypt'], output, call);
    },
  };
}

/** Rewriting the whole file: optimising, updating objects, linearizing, repairing, flattening. */
function rewrites({ exec, write, writeCounted }: QpdfProgram) {
  return {
    /**
     * Lossless shrink: object streams, every stream recompressed at the highest zlib level. Returns
     * the written file's page count when qpdf warned (a damaged input) and it was counted.
     */
    optimize(input: string, output: string, call: QpdfCall): Promise<number | undefined> {
      return writeCounted([abs(input), ...OPTIMIZE], output, call);
    },

    /**
     * `optimize` without the page count that qpdf's warnings call for (a damaged input): returns
     * whether qpdf warned, and the caller counts the pages (`pageCount`) before it keeps the file.
     * For a rewrite written on speculation (compress), which is mostly discarded.
     */
    async optimizeUnverified(input: string, output: string, call: QpdfCall): Promise<{ warned: boolean }> {
      const result = await exec([abs(input), ...OPTIMIZE, abs(output)], call, { progress: true });
      return { warned: result.exitCode === QPDF_EXIT.warnings };
    },

    /**
     * Applies a qpdf JSON v2 update (new or replaced objects) and writes the result; with
     * `generateAppearances`, fields the update marked /NeedAppearances get appearance streams.
     */
    updateFromJson(
      input: string,
      updateFile: string,
      output: string,
      call: QpdfCall,
      options: { generateAppearances?: boolean } = {},
    ): Promise<void> {
      const appearances = options.generateAppearances ? ['--generate-appearances'] : [];
      return write([abs(input), `--update-from-json=${abs(updateFile)}`, ...appearances], output, call);
    },

    /** Rewrites the file for fast web view (first page first, with hint tables). */
    linearize(input: string, output: string, call: QpdfCall): Promise<void> {
      return write([abs(input), '--linearize'], output, call);
    },

    /**
     * A plain rewrite: opening reconstructs a damaged xref table and recovers stream lengths, and
     * writing produces fresh offsets, lengths and a new xref (qpdf manual, "Repairing PDF files").
     */
    rewrite(
      input: string,
      output: string,
      call: QpdfCall,
      options: { objectStreams?: 'disable' } = {},
    ): Promise<void> {
      const streams = options.objectStreams ? [`--object-streams=${options.objectStreams}`] : [];
      return write([abs(input), ...streams], output, call);
    },

    /**
     * Pushes annotation appearances into the page content (`--flatten-annotations=all`). With
     * `generateAppearances`, form fields that only say /NeedAppearances get appearances first;
     * without it qpdf refuses to flatten such fields. `updateFile` is applied before flattening.
     */
    flattenAnnotations(
      input: string,
      output: string,
      options: { generateAppearances: boolean; updateFile?: string },
      call: QpdfCall,
    ): Promise<void> {
      return write(
        [
          abs(input),
          ...(options.updateFile ? [`--update-from-json=${abs(options.updateFile)}`] : []),
          ...(options.generateAppearances ? ['--generate-appearances'] : []),
          '--flatten-annotations=all',
        ],
        output,
        call,
      );
    },
  };
}

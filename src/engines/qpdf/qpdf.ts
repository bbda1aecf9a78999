// qpdf adapter: the lossless structural operations (count, check, merge, split, rotate, optimize,
// encrypt, decrypt, JSON inspection). Passwords travel in 0600 files, never on the command line.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { QuireError } from '../errors/quire-error.js';
import { type RunResult, run } from '../process/runner.js';
import { removeSecretFile, writeSecretFile } from '../process/work-dir.js';
import type { EngineCallOptions, EngineDefaults } from './call-options.js';
import { toRunOptions } from './call-options.js';
import { QPDF_EXIT, qpdfFailure } from './failure-map.js';
import { parseQpdfProgress } from './progress-parsers.js';
import { type EncryptionSpec, encryptionJob } from './qpdf-encrypt.js';

export type { EncryptionSpec } from './qpdf-encrypt.js';

export interface QpdfCall extends EngineCallOptions {
  /** User or owner password of the input; written to a 0600 file for `--password-file`. */
  password?: string;
}

export interface MergePart {
  path: string;
  /** qpdf page range (see toQpdfRange); all pages when omitted. */
  pages?: string;
}

/** How the input is protected, from `qpdf --requires-password` (exit 0 / 3 / 2). */
export type EncryptionState = 'user-password' | 'owner-only' | 'none';

/**
 * Measured (tools.md): qpdf's default pruning of unreferenced resources made a 10-file merge 13x
 * slower; page selection never leaves shared resources unreferenced enough to matter.
 */
const NO_PRUNE = '--remove-unreferenced-resources=no';

export function createQpdf(defaults: EngineDefaults, binary = 'qpdf') {
  const exec = async (
    args: string[],
    call: QpdfCall,
    options: { stdout?: boolean; progress?: boolean } = {},
  ) => {
    const secret =
      call.password === undefined ? undefined : await writeSecretFile(call.workDir, call.password, 'pw');
    const argv = [
      ...(secret ? [`--password-file=${secret}`] : []),
      ...(options.progress ? ['--progress'] : []),
      ...args,
    ];
    try {
      const onProgress = call.onProgress;
      const result = await run(
        binary,
        argv,
        toRunOptions(defaults, call, {
          captureStdout: options.stdout === true,
          ...(options.progress && onProgress
            ? { onStdoutLine: (line: string) => reportPercent(line, onProgress) }
            : {}),
        }),
      );
      const failure = qpdfFailure(result, { passwordGiven: call.password !== undefined });
      if (failure) throw failure;
      return result;
    } finally {
      if (secret) await removeSecretFile(secret);
    }
  };

  /** Exit 3 means "written with warnings"; on damaged inputs that can be a file without pages. */
  const verifyWritten = async (
    result: RunResult,
    output: string,
    call: QpdfCall,
    outputPassword?: string,
  ) => {
    if (result.exitCode !== QPDF_EXIT.warnings) return;
    const pages = await pageCount(output, { ...call, password: outputPassword });
    if (pages === 0) throw new QuireError('pdf_corrupt', 'The PDF has no usable pages');
  };

  const write = async (args: string[], output: string, call: QpdfCall) => {
    const result = await exec([...args, abs(output)], call, { progress: true });
    await verifyWritten(result, output, call);
  };

  /**
   * Counts the pages qpdf really finds by walking the page tree (`--show-pages`). `--show-npages`
   * prints the root's /Count, which a damaged file can overstate (corpus: pdfium__document_aactions
   * says 3 and has 1), and every later page range would then fail.
   */
  async function pageCount(input: string, call: QpdfCall): Promise<number> {
    const result = await exec(['--show-pages', abs(input)], call, { stdout: true });
    if (result.stdoutTruncated) throw new QuireError('engine_failed', 'qpdf page list is too large');
    return result.stdout.match(/^page \d+: /gm)?.length ?? 0;
  }

  return {
    pageCount,

    /** Structural check (`qpdf --check`): true when qpdf found neither errors nor warnings. */
    async check(input: string, call: QpdfCall): Promise<{ clean: boolean }> {
      const result = await exec(['--check', abs(input)], call, { stdout: true });
      return { clean: result.exitCode === QPDF_EXIT.ok };
    },

    async encryptionState(input: string, call: EngineCallOptions): Promise<EncryptionState> {
      const result = await run(binary, ['--requires-password', abs(input)], toRunOptions(defaults, call));
      if (result.exitCode === 0) return 'user-password';
      if (result.exitCode === 3) return 'owner-only';
      return 'none';
    },

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
      let done = 0;
      const onProgress = call.onProgress;
      const perPart = onProgress
        ? {
            onProgress: (percent: number) => {
              if (percent === 100) onProgress(++done, parts);
            },
          }
        : {};
      await exec(
        [abs(input), NO_PRUNE, `--split-pages=${every}`, path.join(dir, `${base}.pdf`)],
        { ...call, ...perPart },
        {
          progress: true,
        },
      );
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

    /** Lossless shrink: object streams, every stream recompressed at the highest zlib level. */
    optimize(input: string, output: string, call: QpdfCall): Promise<void> {
      const args = [
        '--object-streams=generate',
        '--compress-streams=y',
        '--recompress-flate',
        '--compression-level=9',
      ];
      return write([abs(input), ...args], output, call);
    },

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

    /** `qpdf --json=2` restricted to `keys` (and `objects` for the `qpdf` key). */
    async json(
      input: string,
      keys: readonly string[],
      call: QpdfCall,
      objects: readonly string[] = [],
    ): Promise<unknown> {
      const args = [
        '--json=2',
        ...keys.map((k) => `--json-key=${k}`),
        ...objects.map((o) => `--json-object=${o}`),
      ];
      const result = await exec([...args, abs(input)], call, { stdout: true });
      if (result.stdoutTruncated) throw new QuireError('engine_failed', 'qpdf JSON output is too large');
      return JSON.parse(result.stdout) as unknown;
    },

    /** Applies a qpdf JSON v2 update (new or replaced objects) and writes the result. */
    updateFromJson(input: string, updateFile: string, output: string, call: QpdfCall): Promise<void> {
      return write([abs(input), `--update-from-json=${abs(updateFile)}`], output, call);
    },

    /** Rewrites the file for fast web view (first page first, with hint tables). */
    linearize(input: string, output: string, call: QpdfCall): Promise<void> {
      return write([abs(input), '--linearize'], output, call);
    },

    /**
     * `qpdf --check-linearization`: qpdf exits 0 whether or not the file is linearized, and
     * 3 when the hint tables are wrong, so the verdict is its "no linearization errors" line.
     */
    async linearizationValid(input: string, call: QpdfCall): Promise<boolean> {
      const result = await exec(['--check-linearization', abs(input)], call, { stdout: true });
      return result.exitCode === QPDF_EXIT.ok && /: no linearization errors\s*$/m.test(result.stdout);
    },

    /**
     * A plain rewrite: opening reconstructs a damaged xref table and recovers stream lengths, and
     * writing produces fresh offsets, lengths and a new xref (qpdf manual, "Repairing PDF files").
     */
    rewrite(input: string, output: string, call: QpdfCall): Promise<void> {
      return write([abs(input)], output, call);
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

    /**
     * Every object of the file as qpdf JSON v2, written to `output` (a file, not stdout, so large
     * documents are not cut off by the stdout cap). Stream data is left out: only dictionaries.
     */
    async jsonFile(input: string, output: string, call: QpdfCall): Promise<void> {
      await exec(['--json-output', '--json-stream-data=none', abs(input), abs(output)], call);
    },
  };
}

export type Qpdf = ReturnType<typeof createQpdf>;

function reportPercent(line: string, onProgress: (done: number, total: number) => void): void {
  const fraction = parseQpdfProgress(line);
  if (fraction !== undefined) onProgress(fraction * 100, 100);
}

/** Absolute paths only: a relative name starting with `-` or `@` would be read as an option or an argfile. */
function abs(file: string): string {
  return path.resolve(file);
}

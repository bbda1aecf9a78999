// How the qpdf adapter runs qpdf: the input password in a 0600 file (`--password-file`), `--progress`
// lines as progress, the exit mapped to a typed error, and outputs written with warnings re-checked.
import path from 'node:path';
import { QuireError } from '../../errors/quire-error.js';
import { LineBuffer } from '../../process/line-buffer.js';
import type { RunResult } from '../../process/runner.js';
import { removeSecretFile, writeSecretFile } from '../../process/work-dir.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { InputNeedsOpeningError, type ProgressSlot, runEngine, toRunOptions } from '../call-options.js';
import { QPDF_EXIT, QPDF_RECOVERED, qpdfFailure } from './failure.js';
import { forkServerFor, viaForkServer } from './forkserver/binary.js';
import { QpdfPartsTracker, QpdfPercentTracker } from './progress.js';

/**
 * The most qpdf JSON the service parses in its own process (tools run inside the API process in
 * the embedded default). Tools ask qpdf for the few objects they need, so real documents stay far
 * below it (a 5,000-page file's page dictionaries are ~5 MB); a file past it fails
 * `engine_memory_exceeded` instead of growing the server (issue 14: a whole-file dump of 1.5 M
 * objects took the server from 350 MB to 1.85 GB).
 */
export const JSON_MAX_BYTES = 16 * 1024 * 1024;

export interface QpdfCall extends EngineCallOptions {
  /** User or owner password of the input; written to a 0600 file for `--password-file`. */
  password?: string;
}

export interface QpdfProgram {
  readonly binary: string;
  /** The qpdf forkserver its runs fork from, or null (see qpdfProgram). */
  readonly forkServer: string | null;
  readonly defaults: EngineDefaults;
  /** Runs qpdf with `args`; throws the mapped error unless it exited 0 or 3 (warnings). */
  exec(
    args: string[],
    call: QpdfCall,
    options?: {
      stdout?: boolean;
      /** `--progress`, read as the write's percent, or as the parts written of a split's `parts`. */
      progress?: boolean | { parts: number };
      stdoutMaxBytes?: number;
      program?: string;
    },
  ): Promise<RunResult>;
  /**
   * Exit 3 means "written with warnings"; on damaged inputs that can be a file without pages. Returns
   * the written file's page count when it had to count them, so a caller need not count again.
   */
  verifyWritten(
    result: RunResult,
    output: string,
    call: QpdfCall,
    outputPassword?: string,
  ): Promise<number | undefined>;
  /** Runs `args` followed by the output path, with progress, and verifies what was written. */
  write(args: string[], output: string, call: QpdfCall): Promise<void>;
  /** `write`, returning the page count when the check counted them (qpdf warned). */
  writeCounted(args: string[], output: string, call: QpdfCall): Promise<number | undefined>;
  pageCount(input: string, call: QpdfCall): Promise<number>;
}

/**
 * `forkServer` runs the command lines through the qpdf forkserver (forkserver/qpdf-forkserver.c);
 * null starts `binary` for every run.
 */
export function qpdfProgram(
  defaults: EngineDefaults,
  binary: string,
  forkServer: string | null = forkServerFor(binary),
): QpdfProgram {
  const exec: QpdfProgram['exec'] = async (args, call, options = {}) => {
    const secret =
      call.password === undefined ? undefined : await writeSecretFile(call.workDir, call.password, 'pw');
    const argv = [
      ...(secret ? [`--password-file=${secret}`] : []),
      ...(options.progress ? ['--progress'] : []),
      ...args,
    ];
    try {
      const lines =
        options.progress && call.progress ? progressLines(call.progress, options.progress) : undefined;
      const result = await runEngine(
        defaults,
        options.program ?? binary,
        argv,
        toRunOptions(defaults, call, {
          captureStdout: options.stdout === true,
          ...(options.stdoutMaxBytes === undefined ? {} : { stdoutMaxBytes: options.stdoutMaxBytes }),
          ...(lines ? { stdoutLines: lines } : {}),
          ...viaForkServer(forkServer),
        }),
      );
      if (call.quickOpened && result.limitHit === undefined && opensCloser(result)) {
        throw new InputNeedsOpeningError(`qpdf exited ${result.exitCode} on a quickly opened input`);
      }
      const failure = qpdfFailure(result, { passwordGiven: call.password !== undefined });
      if (failure) throw failure;
      return result;
    } finally {
      if (secret) await removeSecretFile(secret);
    }
  };

  /**
   * Counts the pages qpdf really finds by walking the page tree (`--show-pages`). `--show-npages`
   * prints the root's /Count, which a damaged file can overstate (corpus: pdfium__document_aactions
   * says 3 and has 1), and every later page range would then fail.
   */
  const pageCount = async (input: string, call: QpdfCall): Promise<number> => {
    const result = await exec(['--show-pages', abs(input)], call, { stdout: true });
    if (result.stdoutTruncated) throw new QuireError('engine_failed', 'qpdf page list is too large');
    return result.stdout.match(/^page \d+: /gm)?.length ?? 0;
  };

  const verifyWritten: QpdfProgram['verifyWritten'] = async (result, output, call, outputPassword) => {
    if (result.exitCode !== QPDF_EXIT.warnings) return undefined;
    const pages = await pageCount(output, { ...call, password: outputPassword });
    if (pages === 0) throw new QuireError('pdf_corrupt', 'The PDF has no usable pages');
    return pages;
  };

  const writeCounted: QpdfProgram['writeCounted'] = async (args, output, call) => {
    const result = await exec([...args, abs(output)], call, { progress: true });
    return verifyWritten(result, output, call);
  };
  const write: QpdfProgram['write'] = async (args, output, call) => {
    await writeCounted(args, output, call);
  };

  return { binary, forkServer, defaults, exec, verifyWritten, write, writeCounted, pageCount };
}

/**
 * Whether the opening (opening.ts) would have looked closer at the input of this run: an error (the
 * opening names it), or warnings that qpdf had to repair the file (it writes a repaired copy). Other
 * warnings (a duplicated dictionary key, say) leave the file as it is there too.
 */
function opensCloser(result: RunResult): boolean {
  if (result.exitCode === QPDF_EXIT.ok) return false;
  return result.exitCode !== QPDF_EXIT.warnings || QPDF_RECOVERED.test(result.stderrTail);
}

/** Absolute paths only: a relative name starting with `-` or `@` would be read as an option or an argfile. */
export function abs(file: string): string {
  return path.resolve(file);
}

/**
 * The buffer a `--progress` run's lines go to, its tracker set into the call's slot: the write's
 * percent, or a split's parts written.
 */
function progressLines(slot: ProgressSlot, progress: true | { parts: number }): LineBuffer {
  if (typeof progress === 'object') {
    const parts = new QpdfPartsTracker(progress.parts);
    slot.set(parts);
    return parts.lines;
  }
  const lines = new LineBuffer();
  slot.set(new QpdfPercentTracker(lines));
  return lines;
}

// pdf2docx adapter: PDF to .docx with real paragraphs (LibreOffice's PDF import puts text in frames),
// run one-shot in the same bubblewrap sandbox as LibreOffice: no network, only its exchange folder.
import { chmod, copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { run, throwIfLimitHit } from '../../process/runner.js';
import { makeSandboxDir, requireSandbox, sandboxArgv, writeSandboxPasswd } from '../../process/sandbox.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { toRunOptions } from '../call-options.js';
import { describeExit } from '../program.js';

/** pdf2docx's own venv (scripts/setup.sh): it needs an older PyMuPDF than the redact engine's. */
export const PDF2DOCX_VENV = '/opt/quire-pdf2docx';
/** Beside this module in src/ and, copied by the build, in dist/ (scripts/copy-python.mjs). */
const DRIVER = fileURLToPath(new URL('./convert.py', import.meta.url));
const EXCHANGE = '/exchange';
const EXIT_UNREADABLE = 3;

export function createPdf2docx(defaults: EngineDefaults) {
  return {
    /** Converts `input` to a .docx at `output`. */
    async toDocx(input: string, output: string, call: EngineCallOptions): Promise<void> {
      const identity = await requireSandbox('pdf2docx');
      const dir = path.join(call.workDir, 'pdf2docx');
      await mkdir(dir, { recursive: true, mode: 0o700 });
      const exchange = await makeSandboxDir(path.join(dir, 'exchange'), identity);
      // Copies the sandboxed user can read: the job's files and the checkout may be private.
      for (const [from, name] of [
        [input, 'input.pdf'],
        [DRIVER, 'convert.py'],
      ] as const) {
        await copyFile(from, path.join(exchange, name));
        await chmod(path.join(exchange, name), 0o644);
      }
      const [command, args] = sandboxArgv(
        {
          identity,
          mounts: [
            { host: PDF2DOCX_VENV, at: PDF2DOCX_VENV },
            { host: exchange, at: EXCHANGE, writable: true },
          ],
          passwd: await writeSandboxPasswd(dir, identity),
          home: EXCHANGE,
        },
        `${PDF2DOCX_VENV}/bin/python`,
        ['-I', `${EXCHANGE}/convert.py`, `${EXCHANGE}/input.pdf`, `${EXCHANGE}/output.docx`],
      );
      // bwrap's own empty network namespace stands in for the runner's `network: false`.
      const result = await run(command, args, toRunOptions(defaults, call));
      throwIfLimitHit(result);
      if (result.exitCode === EXIT_UNREADABLE)
        throw new QuireError('pdf_corrupt', 'pdf2docx could not read the PDF');
      if (result.exitCode !== 0) throw new QuireError('engine_failed', describeExit('pdf2docx', result));
      await copyFile(path.join(exchange, 'output.docx'), output).catch(() => {
        throw new QuireError('engine_failed', 'pdf2docx wrote no document');
      });
    },
  };
}

export type Pdf2docx = ReturnType<typeof createPdf2docx>;

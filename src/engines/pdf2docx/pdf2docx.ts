// pdf2docx adapter: PDF to .docx with real paragraphs (LibreOffice's PDF import puts text in frames),
// run one-shot in the same bubblewrap sandbox as LibreOffice: no network, only its exchange folder.
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { QuireError } from '../../errors/quire-error.js';
import { throwIfLimitHit } from '../../process/runner.js';
import type { EngineCallOptions, EngineDefaults } from '../call-options.js';
import { runEngine, toRunOptions } from '../call-options.js';
import { describeExit } from '../program.js';
import { EXCHANGE, sandboxedPython } from '../sandboxed-python.js';

/** pdf2docx's own venv (scripts/setup.sh): it needs an older PyMuPDF than the redact engine's. */
export const PDF2DOCX_VENV = '/opt/quire-pdf2docx';
/** Beside this module in src/ and, copied by the build, in dist/ (scripts/copy-python.mjs). */
const DRIVER = fileURLToPath(new URL('./convert.py', import.meta.url));
const EXIT_UNREADABLE = 3;

export function createPdf2docx(defaults: EngineDefaults) {
  return {
    /** Converts `input` to a .docx at `output`. */
    async toDocx(input: string, output: string, call: EngineCallOptions): Promise<void> {
      const { exchange, command, args } = await sandboxedPython({
        engine: 'pdf2docx',
        workDir: call.workDir,
        venv: PDF2DOCX_VENV,
        copies: [
          [input, 'input.pdf'],
          [DRIVER, 'convert.py'],
        ],
        args: ['-I', `${EXCHANGE}/convert.py`, `${EXCHANGE}/input.pdf`, `${EXCHANGE}/output.docx`],
      });
      // bwrap's own empty network namespace stands in for the runner's `network: false`.
      const result = await runEngine(defaults, command, args, toRunOptions(defaults, call));
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

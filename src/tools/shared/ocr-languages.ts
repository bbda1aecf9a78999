// The OCR `languages` option shared by `ocr` and `pdf-to-markdown` (its `ocr: auto`): the enum is
// what this server's Tesseract has installed, so a request names only languages it can recognise.
import { Type } from '@sinclair/typebox';
import type { EngineStatus } from '../../engines/types.js';

/** What scripts/setup.sh installs: offered when the engine status names no languages (no Tesseract). */
const SETUP_LANGUAGES: readonly string[] = ['deu', 'eng', 'fra', 'spa'];

/** Tesseract refuses more at once in practice: each language multiplies recognition time. */
const MAX_LANGUAGES = 4;

export function ocrLanguagesSchema(engines: readonly EngineStatus[], description: string) {
  const probed = engines.find((e) => e.name === 'tesseract')?.languages ?? [];
  const installed = probed.length > 0 ? probed : SETUP_LANGUAGES;
  return Type.Array(Type.Unsafe<string>({ type: 'string', enum: [...installed] }), {
    minItems: 1,
    maxItems: MAX_LANGUAGES,
    uniqueItems: true,
    default: ['eng'],
    description,
  });
}

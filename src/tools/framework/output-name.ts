// Download names derived from client file names: display strings only, sanitized so they are
// safe in a Content-Disposition header, a ZIP entry and on any file system.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { takeMadeFile } from '../../process/work-dir.js';

const MAX_STEM_LENGTH = 100;

/**
 * The stem of a client file name: no directory part (either slash), no extension, no control or
 * reserved characters, no leading dots; `document` when nothing is left.
 */
export function fileStem(name: string): string {
  const base = name.split(/[\\/]/).pop() ?? '';
  const stem = base.slice(0, base.length - path.extname(base).length) || base;
  const clean = stem
    .normalize('NFC')
    .replace(/[\u0000-\u001f\u007f<>:"/\\|?*]+/g, '_')
    .replace(/\s+/g, ' ')
    .replace(/^[.\s]+|[.\s]+$/g, '');
  return [...clean].slice(0, MAX_STEM_LENGTH).join('') || 'document';
}

/** `<stem>-<suffix>.<ext>`, e.g. `report-rotated.pdf`. */
export function outputName(inputName: string, suffix: string, ext = 'pdf'): string {
  return `${fileStem(inputName)}-${suffix}.${ext}`;
}

/**
 * A fresh path inside the job's work dir for an intermediate or final file. Never derived from
 * the client's name, so it cannot collide with an input or escape the directory.
 */
export function workFile(workDir: string, label: string, ext = 'pdf'): string {
  const base = `${label}-${randomBytes(4).toString('hex')}`;
  return path.join(workDir, ext === '' ? base : `${base}.${ext}`);
}

/**
 * `workFile` for a tool's output that one engine run writes whole and whose failure the run's exit
 * status tells (qpdf's): it takes the empty file made ahead in the work dir when there is one, so the
 * run writes into a file that exists (process/work-dir.ts, `takeMadeFile`).
 */
export function engineOutputFile(workDir: string, label: string, ext = 'pdf'): string {
  const file = workFile(workDir, label, ext);
  takeMadeFile(file);
  return file;
}

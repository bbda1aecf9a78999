// The shared real-world corpus: CI has it beside the checkout at ../shared/corpus.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const corpusDir = path.resolve(repoRoot, '../shared/corpus');

export function corpusFile(name: string): string {
  return path.join(corpusDir, name);
}

export interface ManifestRow {
  file: string;
  pages: string;
  encrypted: string;
  password: string;
  features: string[];
  expected: 'opens' | 'repairable' | 'corrupt';
}

export function readManifest(dir = corpusDir): ManifestRow[] {
  const [header, ...lines] = readFileSync(path.join(dir, 'MANIFEST.tsv'), 'utf8').trim().split('\n');
  const columns = header!.split('\t');
  return lines.map((line) => {
    const cells = line.split('\t');
    const get = (name: string) => cells[columns.indexOf(name)] ?? '';
    return {
      file: get('file'),
      pages: get('pages'),
      encrypted: get('encrypted'),
      password: get('password'),
      features: get('features').split(',').filter(Boolean),
      expected: get('expected') as ManifestRow['expected'],
    };
  });
}

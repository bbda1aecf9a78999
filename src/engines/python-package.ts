// Start-up probes of the engines that are Python packages in their own venvs: the version comes from
// the venv's installed metadata (`<name>-<version>.dist-info`), read from disk. Importing the package
// in a fresh interpreter instead cost 0.4–1.1 s per engine at every start (pdf2docx loads OpenCV and
// NumPy), most of a second start's time to /readyz; a job still imports it and maps a failure.
import { constants } from 'node:fs';
import { access, readdir } from 'node:fs/promises';
import path from 'node:path';

/** PyPI's normal form of a name (PEP 503): case and runs of `-`, `_`, `.` alike. */
const normalise = (name: string) => name.toLowerCase().replace(/[-_.]+/g, '-');

/**
 * The installed version of each distribution in the venv, in order; undefined when the venv's
 * Python cannot be run or one of them is not installed.
 */
export async function installedVersions(
  venv: string,
  distributions: readonly string[],
): Promise<string[] | undefined> {
  // Follows the venv's symlink to the interpreter: a venv whose base Python is gone is not usable.
  if (
    !(await access(path.join(venv, 'bin', 'python'), constants.X_OK).then(
      () => true,
      () => false,
    ))
  )
    return undefined;
  const lib = path.join(venv, 'lib');
  const pythons = (await readdir(lib).catch(() => [] as string[])).filter((d) => d.startsWith('python3'));
  const found = new Map<string, string>();
  for (const python of pythons) {
    const entries = await readdir(path.join(lib, python, 'site-packages')).catch(() => [] as string[]);
    for (const entry of entries) {
      const match = /^(.+)-([^-]+)\.dist-info$/.exec(entry);
      if (match) found.set(normalise(match[1]!), match[2]!);
    }
  }
  const versions = distributions.map((name) => found.get(normalise(name)));
  return versions.every((v) => v !== undefined) ? (versions as string[]) : undefined;
}

// The private folders of one LibreOffice instance on the host side — its user profile with the
// settings every conversion relies on, the control socket's folder and the job exchange — and what a
// conversion may leave in them that the next job must not meet.
import { chmod, copyFile, mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeSandboxDir, type SandboxIdentity, writeSandboxPasswd } from '../../process/sandbox.js';
import { makeWorkDir } from '../../process/work-dir.js';

/** Beside this module in src/ and, copied by the build, in dist/ (scripts/copy-python.mjs). */
const BRIDGE = fileURLToPath(new URL('./office-bridge.py', import.meta.url));

/**
 * Macro security "very high" with macro execution disabled outright, written into each fresh
 * profile before LibreOffice first reads it (the load call also passes NEVER_EXECUTE).
 * BlockUntrustedRefererLinks stops a document from pulling in linked images and objects
 * (`file://`, `http://`, relative paths): the sandbox already hides the host's files, and this
 * keeps even the ones it must show (/usr) out of the output.
 */
const PROFILE_SETTINGS = `<?xml version="1.0" encoding="UTF-8"?>
<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="MacroSecurityLevel" oor:op="fuse"><value>3</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="DisableMacrosExecution" oor:op="fuse"><value>true</value></prop></item>
<item oor:path="/org.openoffice.Office.Common/Security/Scripting"><prop oor:name="BlockUntrustedRefererLinks" oor:op="fuse"><value>true</value></prop></item>
</oor:items>
`;

/**
 * Where LibreOffice writes the fonts a document carries before it registers them with its font
 * list, which keeps them for the process's life (vcl's EmbeddedFontsHelper): a later document asking
 * for the same family name — even "Arial" — would be drawn with them. A file here after a
 * conversion means the instance must not serve another job.
 */
const EMBEDDED_FONTS = path.join('user', 'temp', 'embeddedfonts', 'fromdocs');

/** Moves a file, copying when source and target sit on different file systems. */
export async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EXDEV') throw err;
    await copyFile(from, to);
    await rm(from, { force: true });
  }
}

/** True when a conversion left a document's fonts in the instance's profile (EMBEDDED_FONTS). */
export async function leftFonts(profile: string): Promise<boolean> {
  try {
    return (await readdir(path.join(profile, EMBEDDED_FONTS))).length > 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

export async function emptyDir(dir: string): Promise<void> {
  const names = await readdir(dir);
  await Promise.all(names.map((n) => rm(path.join(dir, n), { recursive: true, force: true })));
}

/** Host-side folders of one instance: profile, control socket and job exchange, all engine-owned. */
export async function prepareInstanceDir(workRoot: string, identity: SandboxIdentity) {
  await mkdir(workRoot, { recursive: true, mode: 0o700 });
  const dir = makeWorkDir(workRoot);
  const profile = await makeSandboxDir(path.join(dir, 'profile'), identity);
  await makeSandboxDir(path.join(profile, 'user'), identity);
  const settings = path.join(profile, 'user', 'registrymodifications.xcu');
  await writeFile(settings, PROFILE_SETTINGS, { mode: 0o644 });
  await chmod(settings, 0o644);
  // A copy, world-readable: the checkout may be private to the service's user (umask 077).
  const bridge = path.join(dir, 'office-bridge.py');
  await copyFile(BRIDGE, bridge);
  await chmod(bridge, 0o644);
  return {
    dir,
    bridge,
    profile,
    control: await makeSandboxDir(path.join(dir, 'control'), identity),
    exchange: await makeSandboxDir(path.join(dir, 'exchange'), identity),
    passwd: await writeSandboxPasswd(dir, identity),
  };
}

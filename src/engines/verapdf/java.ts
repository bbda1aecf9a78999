// Where veraPDF and its Java live on this host, and the JVM's flags: the installed release's jars
// (scripts/setup.sh), the worker compiled beside the native helpers (scripts/build-helpers.sh), and
// the real path of `java` with the /etc folders Debian's JDK links its settings from, since the
// sandbox shows /usr but neither /etc/alternatives nor /etc/java-*.
import { readdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const VERAPDF_VERSION = '1.28.2';
/** The pinned release, one jar per artifact of greenfield-apps' dependency closure (setup.sh). */
export const VERAPDF_JARS = `/opt/quire-verapdf/${VERAPDF_VERSION}`;
/** VeraWorker.class, built from VeraWorker.java beside this module into dist/bin/ (build-helpers.sh). */
export const WORKER_CLASSES = fileURLToPath(new URL('../../../dist/bin/verapdf', import.meta.url));

export interface JavaRuntime {
  /** The JVM launcher's real path under /usr/lib/jvm. */
  binary: string;
  /** /etc folders the JDK's files link into (bound read-only into the sandbox). */
  etc: string[];
}

let found: Promise<JavaRuntime> | undefined;

/** The host's Java, looked up once per process. */
export function javaRuntime(): Promise<JavaRuntime> {
  found ??= findJava();
  return found;
}

/** Resolves /usr/bin/java through the alternatives links, and the JDK's links into /etc. */
async function findJava(): Promise<JavaRuntime> {
  const binary = await realpath('/usr/bin/java');
  const home = path.dirname(path.dirname(binary));
  const etc = new Set<string>();
  for (const dir of ['lib', 'conf']) {
    const names = await readdir(path.join(home, dir)).catch(() => []);
    for (const name of names) {
      const real = await realpath(path.join(home, dir, name)).catch(() => '');
      const top = real.split('/').slice(0, 3).join('/');
      if (real.startsWith('/etc/')) etc.add(top);
    }
  }
  return { binary, etc: [...etc] };
}

const MiB = 1024 * 1024;

/**
 * The JVM under an address-space cap: by default it reserves a 1 GiB class space and a 240 MiB code
 * cache up front and would not start under the engine cap, so both are made small; the heap gets
 * half the cap (the rest is the JVM's own and Rhino's, which runs the profiles' rules). One GC
 * thread (serial collector) suits a host where other engines share two cores.
 */
export function jvmArgs(memoryBytes: number): string[] {
  const heapMiB = Math.max(128, Math.floor(memoryBytes / 2 / MiB));
  return [
    `-Xmx${heapMiB}m`,
    '-XX:+UseSerialGC',
    '-XX:CompressedClassSpaceSize=64m',
    '-XX:ReservedCodeCacheSize=64m',
    '-XX:MaxMetaspaceSize=192m',
    '-Djava.awt.headless=true',
  ];
}

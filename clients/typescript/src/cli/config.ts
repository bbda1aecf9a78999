// Where quirectl keeps the server URL and API key: one JSON file, mode 0600, under the XDG config
// dir ($XDG_CONFIG_HOME/quire/quirectl.json). QUIRE_URL and QUIRE_API_KEY override it.
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from './exit-codes.js';

export interface Credentials {
  url: string;
  apiKey: string;
}

export function configFile(): string {
  const base = process.env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return path.join(base, 'quire', 'quirectl.json');
}

export async function saveCredentials(credentials: Credentials): Promise<string> {
  const file = configFile();
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, `${JSON.stringify(credentials, null, 2)}\n`, { mode: 0o600 });
  // writeFile keeps the mode of a file that already exists: make sure it is 0600 either way.
  await chmod(file, 0o600);
  return file;
}

async function stored(): Promise<Partial<Credentials>> {
  try {
    return JSON.parse(await readFile(configFile(), 'utf8')) as Partial<Credentials>;
  } catch {
    return {};
  }
}

/** The environment first, then the file; a missing value is a usage error naming `login`. */
export async function loadCredentials(): Promise<Credentials> {
  const file = await stored();
  const url = process.env.QUIRE_URL || file.url;
  const apiKey = process.env.QUIRE_API_KEY || file.apiKey;
  if (!url || !apiKey)
    throw new UsageError(
      'not logged in: run `quirectl login --url <server>` or set QUIRE_URL and QUIRE_API_KEY',
    );
  return { url, apiKey };
}

/** The key from stdin: piped (`… | quirectl login`) or typed at a prompt. Never from argv. */
export async function readKey(stdin: NodeJS.ReadStream): Promise<string> {
  if (stdin.isTTY) process.stderr.write('API key: ');
  let text = '';
  for await (const chunk of stdin) {
    text += String(chunk);
    if (stdin.isTTY && text.includes('\n')) break;
  }
  const key = text.trim().split('\n')[0]?.trim() ?? '';
  if (!key) throw new UsageError('no API key on stdin');
  return key;
}

// The S3 storage URL: what parses, what is refused (and that refusals never echo a value), the config
// check at start, and that the embedded default never loads the AWS SDK.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseS3Url } from '../../src/blobs/s3-location.js';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { repoRoot } from '../support/corpus.js';

describe('S3 storage URL', () => {
  it.each([
    ['s3://quire-results', { bucket: 'quire-results', prefix: '', forcePathStyle: false }],
    ['s3://quire.results/tenant-a/blobs/', { bucket: 'quire.results', prefix: 'tenant-a/blobs' }],
    [
      's3://b01/p?endpoint=http%3A%2F%2F127.0.0.1%3A8333&region=eu-west-1&force_path_style=true',
      {
        bucket: 'b01',
        prefix: 'p',
        endpoint: 'http://127.0.0.1:8333',
        region: 'eu-west-1',
        forcePathStyle: true,
      },
    ],
    ['s3://b01/p?endpoint=https://minio.internal:9000', { endpoint: 'https://minio.internal:9000' }],
  ])('parses %s', (url, expected) => {
    expect(parseS3Url(url)).toMatchObject(expected);
  });

  it.each([
    ['s3://AKIAEXAMPLE:wJalrXUtnFEMI@bucket/p', /must not carry credentials/],
    ['s3://bucket/p?secret_access_key=wJalrXUtnFEMI', /unknown parameter "secret_access_key"/],
    ['s3://Bad_Bucket/p', /valid bucket name/],
    ['s3://ab/p', /valid bucket name/],
    ['s3://bucket:9000/p', /valid bucket name/],
    ['s3://bucket/../etc', /prefix/],
    ['s3://bucket/a//b', /prefix/],
    ['s3://bucket/p?endpoint=ftp://host', /endpoint/],
    ['s3://bucket/p?endpoint=http://host/path', /endpoint/],
    ['s3://bucket/p?force_path_style=yes', /force_path_style/],
  ])('refuses %s', (url, message) => {
    expect(() => parseS3Url(url)).toThrow(message);
    // A secret pasted into the URL must not reach the error (and so the start-up log).
    expect(() => parseS3Url(url)).not.toThrow(/wJalrXUtnFEMI|AKIAEXAMPLE/);
  });

  it('is accepted by the configuration, and a bad one stops the start naming the variable', () => {
    const url = 's3://quire-results/prod?region=eu-west-1';
    expect(loadConfig({ QUIRE_STORAGE_URL: url }).storageUrl).toBe(url);
    expect(() => loadConfig({ QUIRE_STORAGE_URL: 's3://x/p' })).toThrow(ConfigError);
    expect(() => loadConfig({ QUIRE_STORAGE_URL: 's3://x/p' })).toThrow(/^QUIRE_STORAGE_URL: /);
    expect(() => loadConfig({ QUIRE_STORAGE_URL: 'gs://bucket' })).toThrow(/QUIRE_STORAGE_URL.*"gs"/);
  });
});

/**
 * Runs `body` in a fresh Node process whose module resolver throws on any `@aws-sdk/` import, after
 * importing the composition root's modules from dist/ (their whole static import graph).
 */
async function withSdkForbidden(body: string): Promise<{ ok: boolean; output: string }> {
  const hook = `export async function resolve(specifier, context, next) {
    if (specifier.startsWith('@aws-sdk/')) throw new Error('AWS SDK loaded: ' + specifier);
    return next(specifier, context);
  }`;
  const dist = (file: string) => JSON.stringify(pathToFileURL(path.join(repoRoot, 'dist', file)).href);
  const script = `
    import { register } from 'node:module';
    register('data:text/javascript,' + encodeURIComponent(${JSON.stringify(hook)}));
    await import(${dist('cli/runtime.js')});
    await import(${dist('http/app.js')});
    const { openBlobStore } = await import(${dist('blobs/open.js')});
    ${body}
  `;
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--input-type=module', '-e', script],
      { cwd: repoRoot, timeout: 30_000 },
    );
    return { ok: true, output: stdout + stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

describe('lazy loading of the AWS SDK', () => {
  it('the embedded default (file:// storage) runs without ever resolving @aws-sdk', async () => {
    const result = await withSdkForbidden(`
      const os = await import('node:os');
      const { Readable } = await import('node:stream');
      const fs = await import('node:fs');
      const dir = fs.mkdtempSync(os.tmpdir() + '/quire-lazy-');
      const store = await openBlobStore('file://' + dir, { secret: 'x'.repeat(32) });
      await store.put('a', Readable.from([Buffer.from('x')]));
      await store.ping();
      fs.rmSync(dir, { recursive: true });
    `);
    expect(result.output).not.toMatch(/AWS SDK loaded/);
    expect(result.ok).toBe(true);
  });

  it('an s3:// store does resolve it (so the check above can fail)', async () => {
    const result = await withSdkForbidden(`
      await openBlobStore('s3://quire-results/p?region=us-east-1', { secret: 'x'.repeat(32) });
    `);
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/AWS SDK loaded: @aws-sdk\//);
  });
});

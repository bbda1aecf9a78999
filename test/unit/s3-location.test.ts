// The S3 storage URL: what parses, what is refused (and that refusals never echo a value), and the
// config check at start (that only s3:// loads the AWS SDK: lazy-drivers.test.ts).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { ConfigError } from '../../src/config/section.js';
import { parseS3Url } from '../../src/config/storage-url.js';

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

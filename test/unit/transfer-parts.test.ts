// The transfer parts of a job request and the export's headers (docs/api.md §2): what a client may
// send as file_url / export / webhook_url, and the Azure blob type added for SAS URLs.
import { describe, expect, test } from 'vitest';
import { TransferParts } from '../../src/http/job-request/transfer-parts.js';
import { exportHeaders } from '../../src/jobs/export.js';

describe('transfer parts', () => {
  test('a file_url is a plain URL or JSON with headers; the view keeps the host only', async () => {
    const parts = new TransferParts();
    const first = await parts.read(
      'file_url',
      'https://files.example.com/dir/scan%20one.pdf?sig=1',
      0,
      false,
    );
    await parts.read(
      'file_url',
      '{"url":"https://b.example.com/x","headers":{"Authorization":"Bearer t"}}',
      1,
      false,
    );
    // The URL's last path segment never names the input (docs/api.md): the place it takes does.
    expect(first).toMatchObject({ name: 'file-1', size: 0, contentType: '', source: 'url' });
    const { transfers, secrets } = parts.result();
    expect(transfers.imports).toEqual([
      { input: 0, host: 'files.example.com' },
      { input: 1, host: 'b.example.com' },
    ]);
    expect(secrets.imports[1]).toEqual({
      input: 1,
      url: 'https://b.example.com/x',
      headers: { Authorization: 'Bearer t' },
    });
  });

  test.each([
    ['file_url', 'ftp://files.example.com/a.pdf', 'must use http or https'],
    ['file_url', 'not a url', 'is not an absolute URL'],
    ['file_url', '{"url": 5}', 'needs a url'],
    ['file_url', '{"url":"https://a.example/x","headers":{"Host":"evil"}}', 'header "Host" may not be set'],
    [
      'file_url',
      '{"url":"https://a.example/x","headers":{"X":"a\\r\\nB: c"}}',
      'header "X" must be a single-line string',
    ],
    ['export', '{"url":"https://a.example/x","keep_result":"no"}', 'keep_result must be a boolean'],
  ])('%s %s is refused: %s', async (name, value, detail) => {
    await expect(new TransferParts().read(name, value, 0, false)).rejects.toMatchObject({
      code: 'invalid_request',
      errors: [{ field: name, detail }],
    });
  });

  test('webhook_url to a non-public address is refused unless private addresses are allowed', async () => {
    await expect(
      new TransferParts().read('webhook_url', 'http://10.1.2.3/hook', 0, false),
    ).rejects.toMatchObject({
      code: 'webhook_url_not_allowed',
    });
    const parts = new TransferParts();
    await parts.read('webhook_url', 'http://10.1.2.3/hook', 0, true);
    expect(parts.result().transfers.webhookHost).toBe('10.1.2.3');
  });

  test('export keeps the result unless keep_result is false; twice is refused', async () => {
    const parts = new TransferParts();
    await parts.read('export', '{"url":"https://a.example/out?sig=1","keep_result":false}', 0, false);
    expect(parts.result().transfers.export).toEqual({ host: 'a.example', keepResult: false });
    await expect(parts.read('export', 'https://a.example/again', 0, false)).rejects.toMatchObject({
      code: 'invalid_request',
    });
  });
});

describe('export headers', () => {
  test.each([
    ['https://acct.blob.core.windows.net/c/out.pdf?sv=1&sig=2', {}, { 'x-ms-blob-type': 'BlockBlob' }],
    [
      'https://acct.blob.core.windows.net/c/o?sig=2',
      { 'X-Ms-Blob-Type': 'AppendBlob' },
      { 'X-Ms-Blob-Type': 'AppendBlob' },
    ],
    ['https://bucket.s3.amazonaws.com/o?X-Amz-Signature=1', {}, {}],
    [
      'https://storage.googleapis.com/b/o?X-Goog-Signature=1',
      { 'Content-Type': 'application/pdf' },
      { 'Content-Type': 'application/pdf' },
    ],
  ])('%s', (url, headers, expected) => {
    expect(exportHeaders({ url, headers })).toEqual(expected);
  });
});

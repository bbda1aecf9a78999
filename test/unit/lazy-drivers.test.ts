// The embedded default never loads the scale-out drivers: the AWS SDK only for s3:// storage, pg only
// for a postgres:// database (STYLE: stores load their drivers lazily).
import { describe, expect, it } from 'vitest';
import { runWithImportsForbidden } from '../support/forbidden-imports.js';

describe('lazy loading of the scale-out drivers', () => {
  it('the embedded default (file:// storage) runs without ever resolving @aws-sdk', async () => {
    const result = await runWithImportsForbidden(
      ['@aws-sdk/'],
      `
      const os = await import('node:os');
      const { Readable } = await import('node:stream');
      const fs = await import('node:fs');
      const dir = fs.mkdtempSync(os.tmpdir() + '/quire-lazy-');
      const store = await openBlobStore('file://' + dir, { secret: 'x'.repeat(32) });
      await store.put('a', Readable.from([Buffer.from('x')]));
      await store.ping();
      fs.rmSync(dir, { recursive: true });
    `,
    );
    expect(result.output).not.toMatch(/forbidden import/);
    expect(result.ok).toBe(true);
  });

  it('an s3:// store does resolve it (so the check above can fail)', async () => {
    const result = await runWithImportsForbidden(
      ['@aws-sdk/'],
      `
      await openBlobStore('s3://quire-results/p?region=us-east-1', { secret: 'x'.repeat(32) });
    `,
    );
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/forbidden import: @aws-sdk\//);
  });

  it('the embedded SQLite database queues, claims and finishes a job without ever resolving pg', async () => {
    const result = await runWithImportsForbidden(
      ['pg', 'pg-pool', 'pg-protocol'],
      `
      const db = await openDatabase('sqlite://:memory:');
      await db.migrate();
      await db.accounts.createAccount({ id: 'acct_a', name: 'A', plan: 'free', createdAt: 1 });
      await db.jobs.create({ id: 'job_a', accountId: 'acct_a', tool: 'rotate', options: {}, secretOptions: [],
        metadata: {}, inputs: [], createdAt: 1 });
      const claim = await db.jobs.claimNext('w', 1000);
      const error = { code: 'pdf_corrupt', message: 'x', retryable: false };
      if (!(await db.jobs.fail(claim.job.id, claim.leaseToken, error))) throw new Error('not failed');
      await db.close();
    `,
    );
    expect(result.output).not.toMatch(/forbidden import|Error/);
    expect(result.ok).toBe(true);
  });

  it('a postgres:// database does resolve it (so the check above can fail)', async () => {
    const result = await runWithImportsForbidden(
      ['pg'],
      `
      await openDatabase('postgres://quire@127.0.0.1:1/none');
    `,
    );
    expect(result.ok).toBe(false);
    expect(result.output).toMatch(/forbidden import: pg/);
  });
});

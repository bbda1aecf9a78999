// Runs one (file, tool) pair through the public API: create the job, long-poll it to a terminal
// state under a deadline (cancelling it if it is stuck), and for `repair` check the download with
// `qpdf --check`. Only documented HTTP behaviour is used.
import { spawnSync } from 'node:child_process';
import { openAsBlob } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export interface Outcome {
  /** `ok`, a job or request error code, `stuck`, or `transport` (the server did not answer). */
  outcome: string;
  seconds: number;
  /** For successful repairs: whether the output passes `qpdf --check` (exit 0). */
  checkClean?: boolean;
}

interface Job {
  id: string;
  status: string;
  error?: { code: string };
}

const TERMINAL = new Set(['succeeded', 'failed', 'canceled']);

export class Api {
  constructor(
    readonly url: string,
    readonly key: string,
  ) {}

  async fetch(pathname: string, init: RequestInit = {}): Promise<Response> {
    for (;;) {
      const response = await fetch(new URL(pathname, this.url), {
        ...init,
        redirect: 'manual',
        headers: { authorization: `Bearer ${this.key}`, ...(init.headers as Record<string, string>) },
      });
      // A plan's request budget is not a failure of the file under test: wait as told and retry.
      if (response.status !== 429) return response;
      await response.body?.cancel();
      const wait = Number(response.headers.get('retry-after') ?? '1');
      await new Promise((r) => setTimeout(r, Math.max(1, wait) * 1000));
    }
  }

  async runJob(file: string, tool: string, options: object, deadlineMs: number): Promise<Outcome> {
    const started = Date.now();
    const seconds = () => (Date.now() - started) / 1000;
    const form = new FormData();
    form.set('tool', tool);
    form.set('options', JSON.stringify(options));
    form.append('file', await openAsBlob(file), path.basename(file));
    const created = await this.fetch('/api/v1/jobs', { method: 'POST', body: form });
    const body = (await created.json()) as Job & { code?: string };
    if (created.status !== 201) return { outcome: body.code ?? `http_${created.status}`, seconds: seconds() };

    let job: Job = body;
    while (!TERMINAL.has(job.status)) {
      const left = Math.ceil((started + deadlineMs - Date.now()) / 1000);
      if (left <= 0) {
        await this.fetch(`/api/v1/jobs/${job.id}/cancel`, { method: 'POST' });
        return { outcome: 'stuck', seconds: seconds() };
      }
      job = (await (await this.fetch(`/api/v1/jobs/${job.id}?wait=${Math.min(30, left)}`)).json()) as Job;
    }
    const elapsed = seconds();
    if (job.status !== 'succeeded') return { outcome: job.error?.code ?? job.status, seconds: elapsed };
    if (tool !== 'repair') return { outcome: 'ok', seconds: elapsed };
    // The repaired file keeps the input's encryption (docs/tools.md): checked with the password it opens with.
    const password = (options as { password?: string }).password;
    return { outcome: 'ok', seconds: elapsed, checkClean: await this.checkDownload(job.id, password) };
  }

  /** Downloads the result through its temporary link and runs `qpdf --check` on it. */
  private async checkDownload(id: string, password?: string): Promise<boolean> {
    const link = await this.fetch(`/api/v1/jobs/${id}/download`, { headers: { accept: 'application/json' } });
    const { url } = (await link.json()) as { url: string };
    const bytes = Buffer.from(await (await fetch(new URL(url, this.url))).arrayBuffer());
    const dir = await mkdtemp(path.join(os.tmpdir(), 'quire-corpus-check-'));
    try {
      const file = path.join(dir, 'repaired.pdf');
      await writeFile(file, bytes);
      const args = password === undefined ? ['--check', file] : ['--check', `--password=${password}`, file];
      return spawnSync('qpdf', args, { stdio: 'ignore' }).status === 0;
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

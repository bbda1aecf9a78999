// quirectl's fixed commands: login, tools, jobs, batches and uploads. The per-tool commands are built
// from the live catalogue in tool-commands.ts.
import type { Command } from 'commander';
import { Quire } from '../client.js';
import { configFile, loadCredentials, readKey, saveCredentials } from './config.js';
import { UsageError } from './exit-codes.js';

export async function client(): Promise<Quire> {
  const { url, apiKey } = await loadCredentials();
  // QUIRE_RETRIES: how many times to retry a request (default 5); 0 fails at the first error.
  const retries = process.env.QUIRE_RETRIES === undefined ? undefined : Number(process.env.QUIRE_RETRIES);
  return new Quire({
    url,
    apiKey,
    ...(retries === undefined || Number.isNaN(retries) ? {} : { retry: { maxRetries: retries } }),
  });
}

const print = (json: boolean, value: unknown, text: () => string) =>
  process.stdout.write(`${json ? JSON.stringify(value) : text()}\n`);

export function addFixedCommands(program: Command, json: () => boolean): void {
  program
    .command('login')
    .description('store the server URL and an API key (read from stdin, never an argument) in a 0600 file')
    .requiredOption('--url <url>', 'the Quire server, e.g. http://localhost:8080')
    .action(async (opts: { url: string }) => {
      const apiKey = await readKey(process.stdin);
      await new Quire({ url: opts.url, apiKey, retry: { maxRetries: 1 } }).tools.list();
      const file = await saveCredentials({ url: opts.url, apiKey });
      process.stderr.write(`logged in to ${opts.url}; saved to ${file}\n`);
    });

  program
    .command('tools')
    .description('list the server’s tools')
    .action(async () => {
      const { data } = await (await client()).tools.list();
      for (const tool of data)
        print(
          json(),
          tool,
          () => `${tool.name.padEnd(20)} ${tool.available ? '' : '(unavailable) '}${tool.title}`,
        );
    });

  const jobs = program.command('jobs').description('list, show, cancel and download jobs');
  jobs
    .command('list')
    .option('--status <status>', 'only jobs in this status')
    .option('--limit <n>', 'at most this many (1–100)', '20')
    .action(async (opts: { status?: string; limit: string }) => {
      const query = {
        limit: Number(opts.limit),
        ...(opts.status ? { status: opts.status as 'queued' } : {}),
      };
      for (const job of (await (await client()).jobs.list(query)).data)
        print(
          json(),
          job,
          () => `${job.id}  ${job.tool.padEnd(16)} ${job.status.padEnd(10)} ${job.created_at}`,
        );
    });
  jobs.command('show <id>').action(async (id: string) => {
    const job = await (await client()).jobs.get(id);
    print(json(), job, () => JSON.stringify(job, null, 2));
  });
  jobs.command('cancel <id>').action(async (id: string) => {
    const job = await (await client()).jobs.cancel(id);
    print(json(), job, () => `${job.id} ${job.status}`);
  });
  jobs
    .command('download <id>')
    .requiredOption('-o, --output <file>', 'where to write the result')
    .action(async (id: string, opts: { output: string }) => {
      const result = await (await client()).jobs.download(id, { to: opts.output });
      print(
        json(),
        { id, output: opts.output, bytes: result.bytes },
        () => `${opts.output} (${result.bytes} bytes)`,
      );
    });

  const batches = program.command('batches').description('run one tool over many files as a batch');
  batches
    .command('create <tool> <files...>')
    .option('--options <json>', 'the tool’s options as JSON', '{}')
    .action(async (tool: string, files: string[], opts: { options: string }) => {
      let options: Record<string, unknown>;
      try {
        options = JSON.parse(opts.options) as Record<string, unknown>;
      } catch {
        throw new UsageError('--options is not JSON');
      }
      const batch = await (await client()).batches.create({ tool, options, inputs: files });
      print(json(), batch, () => `${batch.id} ${batch.total} jobs`);
    });
  batches.command('show <id>').action(async (id: string) => {
    const batch = await (await client()).batches.get(id);
    print(json(), batch, () => `${batch.id} ${batch.status} ${JSON.stringify(batch.counts)}`);
  });
  batches.command('cancel <id>').action(async (id: string) => {
    const batch = await (await client()).batches.cancel(id);
    print(json(), batch, () => `${batch.id} ${batch.status}`);
  });
  batches
    .command('download <id>')
    .requiredOption('-o, --output <file>', 'where to write the ZIP')
    .action(async (id: string, opts: { output: string }) => {
      await (await client()).batches.download(id, { to: opts.output });
      print(json(), { id, output: opts.output }, () => opts.output);
    });

  const uploads = program.command('uploads').description('resumable (tus) uploads for large files');
  uploads.command('create <file>').action(async (file: string) => {
    const upload = await (await client()).uploads.upload(file);
    print(json(), upload, () => upload.id);
  });
  uploads.command('show <id>').action(async (id: string) => {
    const status = await (await client()).uploads.status(id);
    print(json(), { id, ...status }, () => `${id} ${status.offset} of ${status.length} bytes`);
  });
  uploads.command('delete <id>').action(async (id: string) => {
    await (await client()).uploads.delete(id);
    print(json(), { id, deleted: true }, () => `${id} deleted`);
  });

  program
    .command('mcp')
    .description('serve the server’s MCP tools on stdin/stdout for an MCP client (docs/agents.md)')
    .option('--allow <dirs...>', 'directories whose files the tools may read and write (none by default)', [])
    .action(async (opts: { allow: string[] }) => {
      // Loaded here: the MCP SDK is needed by this command only.
      const [{ runBridge }, { AllowedDirs }] = await Promise.all([
        import('./mcp/bridge.js'),
        import('./mcp/local-files.js'),
      ]);
      const { url, apiKey } = await loadCredentials();
      const allowed = await AllowedDirs.open(opts.allow);
      await runBridge({ url, apiKey, quire: await client(), allowed });
    });

  program
    .command('config-path', { hidden: true })
    .description('print where login stores its file')
    .action(() => {
      process.stdout.write(`${configFile()}\n`);
    });
}

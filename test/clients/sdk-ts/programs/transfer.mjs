// A client process for the SDK's transfer tests, run by large-files.test.ts with the compiled SDK.
// Usage: node transfer.mjs <sdk-index.js> <url> <key> <store> run <input> <output>
//        node transfer.mjs <sdk-index.js> <url> <key> <store> upload <input>
// Prints `ready` once loaded (the parent reads its RSS then), progress lines, then one JSON result.
const [sdk, url, apiKey, store, mode, input, output] = process.argv.slice(2);
const { Quire } = await import(sdk);
const quire = new Quire({
  url,
  apiKey,
  uploadStore: store,
  tusThresholdBytes: mode === 'run' ? Number.POSITIVE_INFINITY : undefined,
});
// One request first, so the baseline RSS includes what loading fetch costs once (undici loads lazily).
await quire.tools.list();
process.stdout.write('ready\n');
await new Promise((resolve) => process.stdin.once('data', resolve));
let last = -1;
const onProgress = ({ bytesSent, bytesTotal }) => {
  const percent = Math.floor((bytesSent / bytesTotal) * 100);
  if (percent !== last) process.stdout.write(`progress ${bytesSent} ${bytesTotal}\n`);
  last = percent;
};
if (mode === 'run') {
  const { job, download } = await quire.run(
    'fake',
    [input],
    { behaviour: 'copy' },
    { to: output, onUploadProgress: onProgress },
  );
  process.stdout.write(`${JSON.stringify({ id: job.id, bytes: download.bytes })}\n`);
} else {
  const upload = await quire.uploads.upload(input, { onProgress });
  process.stdout.write(`${JSON.stringify(upload)}\n`);
}
process.stdin.destroy();

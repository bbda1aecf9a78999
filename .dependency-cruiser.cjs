// The layer picture of docs/architecture.md, checked: a folder of src/ may import only the folders
// listed for it (and itself). `npm run arch` fails on an import that runs upward or on a cycle.
/** The job layer sits on every room below http; http adds jobs itself. */
const jobsMayImport = [
  'errors',
  'model',
  'config',
  'observability',
  'process',
  'engines',
  'tools',
  'sniff',
  'blobs',
  'store',
  'auth',
  'webhooks',
  'uploads',
  'outbound',
];

/** The only modules beside store/ and cli/ that may hold the job and batch stores' writes. */
const jobServices = ['job-service', 'batch-service', 'services'];

const allowed = {
  errors: [],
  model: ['errors'],
  config: ['errors', 'model'],
  observability: ['errors', 'model', 'config'],
  process: ['errors', 'model', 'config'],
  engines: ['errors', 'model', 'process'],
  tools: ['errors', 'model', 'engines', 'process'],
  sniff: ['tools'],
  blobs: ['errors', 'model', 'config'],
  store: ['errors', 'model', 'config'],
  auth: ['errors', 'model', 'config', 'store'],
  outbound: [],
  webhooks: ['errors', 'model', 'config', 'observability', 'store', 'process', 'outbound'],
  uploads: ['errors', 'model', 'config', 'observability', 'store', 'blobs'],
  jobs: jobsMayImport,
  http: [...jobsMayImport, 'jobs'],
  cli: null, // the composition root may import anything
};

const folders = Object.keys(allowed);

const layerRules = folders
  .filter((folder) => allowed[folder] !== null)
  .map((folder) => {
    const forbidden = folders.filter((other) => other !== folder && !allowed[folder].includes(other));
    return {
      name: `layer-${folder}`,
      comment: `src/${folder} may import only: ${allowed[folder].join(', ') || 'nothing of ours'} (docs/architecture.md)`,
      severity: 'error',
      from: { path: `^src/${folder}/` },
      to: { path: `^src/(${forbidden.join('|')})/` },
    };
  });

// Inside src/tools (docs/architecture.md, "Tools by owner"): framework/ is the contract between a
// tool and the rest of Quire, so it knows no tool; shared/ holds helpers of several tools on top of
// it; a tool (one file, or a folder with its helpers) uses framework/ and shared/, never another
// tool; and the rest of Quire reaches tools only through framework/ and the list in registry.ts.
const toolRules = [
  {
    name: 'tools-framework-knows-no-tool',
    comment: 'src/tools/framework imports nothing else of src/tools (docs/architecture.md)',
    severity: 'error',
    from: { path: '^src/tools/framework/' },
    to: { path: '^src/tools/', pathNot: '^src/tools/framework/' },
  },
  {
    name: 'tools-shared-below-tools',
    comment: 'src/tools/shared imports only src/tools/framework and itself of src/tools (docs/architecture.md)',
    severity: 'error',
    from: { path: '^src/tools/shared/' },
    to: { path: '^src/tools/', pathNot: '^src/tools/(framework|shared)/' },
  },
  {
    name: 'tool-folder-imports-no-other-tool',
    comment: 'a tool folder imports only itself, src/tools/framework and src/tools/shared (docs/architecture.md)',
    severity: 'error',
    from: { path: '^src/tools/([^/]+)/', pathNot: '^src/tools/(framework|shared)/' },
    to: { path: '^src/tools/', pathNot: ['^src/tools/$1/', '^src/tools/(framework|shared)/'] },
  },
  {
    name: 'tool-file-imports-no-other-tool',
    comment: 'a one-file tool imports only src/tools/framework and src/tools/shared (docs/architecture.md)',
    severity: 'error',
    from: { path: '^src/tools/[^/]+[.]ts$', pathNot: '^src/tools/registry[.]ts$' },
    to: { path: '^src/tools/', pathNot: '^src/tools/(framework|shared)/' },
  },
  {
    name: 'tools-entered-through-framework',
    comment: 'outside src/tools, only src/tools/framework and src/tools/registry.ts are imported (docs/architecture.md)',
    severity: 'error',
    from: { path: '^src/', pathNot: '^src/tools/' },
    to: { path: '^src/tools/', pathNot: '^src/tools/(framework/|registry[.]ts$)' },
  },
];

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-cycles',
      comment: 'src/ has no import cycles (docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'one-outbound-client',
      comment:
        'requests leave Quire only through src/outbound (the guarded client): no other module opens an http(s) or TLS client; net stays for local sockets (docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(outbound|http|cli)/' },
      to: { dependencyTypes: ['core'], path: '^(node:)?(https?|http2|tls)$', dependencyTypesNot: ['type-only'] },
    },
    ...toolRules,
    {
      name: 'services-write-job-state',
      comment:
        'job and batch state is written only by the job services (jobs/job-service.ts, batch-service.ts, built by services.ts): no other module outside store/ and cli/ imports the stores with their writes (store/job-stores.ts) or opens a database (store/open.ts, the SQL implementations); routes and the worker read through store/job-reads.ts (docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(store|cli)/|^src/jobs/(${jobServices.join('|')})\\.ts$` },
      to: { path: '^src/store/((job-stores|open)\\.ts|(sql|sqlite|postgres)/)' },
    },
    {
      name: 'job-request-reads-down',
      comment:
        'the job request reader (src/http/job-request) calls only its own files and the folders below http, so the path of a request never goes back up into http/ (docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/http/job-request/' },
      to: { path: '^src/(http|jobs|cli)/', pathNot: '^src/http/job-request/' },
    },
    {
      name: 'known-folders-only',
      comment: 'every module of src/ lives in a folder of the layer picture (docs/architecture.md)',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${folders.join('|')})/` },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};

// Folder-level import rules of src/ and bridge/, checked in the lint step by dependency-cruiser
// (docs/architecture.md, "Layers"). The layers themselves are listed once, in
// scripts/folder-imports.mjs, which checks the same rules from the sources without the tool.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- dependency-cruiser reads a CommonJS config; the layers are the ES module's.
const { COMPOSITION, LAYERS, TYPE_MODULE, WORKER_SDK_MAY_IMPORT } = require('./scripts/folder-imports.mjs');

const composition = [...COMPOSITION].map((f) => f.replace(/\.ts$/, '').replace(/\./g, '\\.')).join('|');

/** The path pattern of one folder of LAYERS (the type modules and src/lanes/ share a folder). */
function pattern(folder) {
  if (folder === '(root)') return `^src/(?!(?:${composition}|metrics)\\.ts$)[^/]+\\.ts$`;
  if (folder === '(composition)') return `^src/(?:${composition})\\.ts$`;
  if (folder === 'type modules') return TYPE_MODULE.source.replace(/\\\//g, '/');
  if (folder === 'metrics') return '^src/metrics(?:/|\\.ts$)';
  if (folder === 'bridge') return '^bridge/';
  return `^src/${folder}/`;
}

const any = (folders) => folders.map((f) => `(?:${pattern(f)})`).join('|');
const typeModules = pattern('type modules');

const layerRules = LAYERS.slice(0, -1).map((folders, i) => {
  const above = LAYERS.slice(i + 1).flat();
  // src/lanes/ holds both the type modules (low) and the lanes' code (high): name each side exactly.
  const from = folders.includes('lanes') ? { path: any(folders), pathNot: typeModules } : { path: any(folders) };
  const to = above.includes('lanes') && !above.includes('type modules') ? { path: any(above), pathNot: typeModules } : { path: any(above) };
  return {
    name: `layer-${i}-imports-no-higher-layer`,
    comment: `${folders.join(', ')} import only their own layer and those below (scripts/folder-imports.mjs, LAYERS)`,
    severity: 'error',
    from,
    to,
  };
});

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'worker-sdk-imports-nothing-of-the-service',
      comment: 'Worker processes load the SDK: it imports only the shared kernel (domain, common) and the type modules with their kit.',
      severity: 'error',
      from: { path: '^src/worker-sdk/' },
      to: { path: '^(?:src|bridge)/', pathNot: any(['worker-sdk', ...WORKER_SDK_MAY_IMPORT]) },
    },
    {
      name: 'no-circular',
      comment: 'Module cycles. Warn until the four listed in docs/architecture.md ("Layers") are cut.',
      severity: 'warn',
      from: { path: '^(?:src|bridge)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(?:dist|node_modules|console|test|agents|bench)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
  },
};

import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { tempDir } from './config.js';

/**
 * A small realistic workspace: a docs folder (runbooks, guides, a text note) and the source files
 * the docs describe. The deployment guide and the configuration reference disagree on the port
 * (3000 vs 3312) and on ORCH_RETRY_LIMIT: the planted contradictions.
 */
export const FIXTURE_DOCS: Record<string, string> = {
  'README.md': `# Orchestrator handbook

The orchestrator admits tasks, queues them and runs them through workers. Start with the
[configuration reference](reference/configuration.md) and the [deployment guide](guides/deployment.md).

## Layout

- \`src/app.ts\` wires the service together.
- Runbooks live under [runbooks](runbooks/rotate-keys.md).
`,
  'reference/configuration.md': `# Configuration reference

Every setting can be given in the JSON config file or as an environment variable.

| Setting | Value |
|---|---|
| \`port\` | \`3000\` |
| \`logLevel\` | \`info\` |

The service listens on port 3000 unless PORT is set.
\`ORCH_RETRY_LIMIT\` defaults to \`3\`.

Retries back off exponentially. See [the loader](../../src/config.ts) for the exact rules.
`,
  'guides/deployment.md': `# Deployment guide

Deploy the **systemd unit** on the host and point it at the config file.

\`\`\`sh
PORT=3312 ORCH_RETRY_LIMIT=5 npm start
\`\`\`

The service listens on port 3312 on the always-on host. Rollback is a restart of the previous
release. Deployment keeps the **systemd unit** enabled.
`,
  'runbooks/rotate-keys.md': `# Rotate API keys

Rotating keys replaces the bearer keys without downtime.

1. Add the new key to API_KEY_ROTATION.
2. Restart the service.
3. Remove the old key once clients moved.

Key rotation is audited. Rotation of keys never logs a key.
`,
  'notes.txt': `Release notes kept by the operators.
The nightly batch selects drafts for community response.
`,
};

export const FIXTURE_SOURCES: Record<string, string> = {
  'src/app.ts': 'export const app = 1;\n',
  'src/config.ts': 'export const config = {};\n',
};

export interface KnowledgeFixture {
  base: string;
  workspaceRoot: string;
  docsPath: string;
  logsDir: string;
  knowledgePackDir: string;
  write(path: string, content: string): void;
  /** Sets a doc's or workspace file's mtime (seconds since epoch). */
  touch(path: string, epochSeconds: number, root?: 'docs' | 'workspace'): void;
}

/** Writes the fixture into a fresh temp workspace; doc mtimes are set to a fixed past date. */
export function knowledgeFixture(docMtime = Date.parse('2024-04-01T00:00:00Z') / 1000): KnowledgeFixture {
  const base = tempDir('knowledge-');
  const workspaceRoot = join(base, 'workspace');
  const docsPath = join(workspaceRoot, 'docs');
  const logsDir = join(base, 'logs');
  const put = (root: string, path: string, content: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  };
  for (const [path, content] of Object.entries(FIXTURE_SOURCES)) put(workspaceRoot, path, content);
  for (const path of Object.keys(FIXTURE_SOURCES)) utimesSync(join(workspaceRoot, path), docMtime - 3600, docMtime - 3600);
  for (const [path, content] of Object.entries(FIXTURE_DOCS)) put(docsPath, path, content);
  for (const path of Object.keys(FIXTURE_DOCS)) utimesSync(join(docsPath, path), docMtime, docMtime);
  return {
    base,
    workspaceRoot,
    docsPath,
    logsDir,
    knowledgePackDir: join(logsDir, 'knowledge-packs'),
    write: (path, content) => put(docsPath, path, content),
    touch: (path, epochSeconds, root = 'docs') => utimesSync(join(root === 'docs' ? docsPath : workspaceRoot, path), epochSeconds, epochSeconds),
  };
}

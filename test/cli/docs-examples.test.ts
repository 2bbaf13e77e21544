import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenize } from '../../bridge/tokenize.js';
import { tempDir } from '../support/config.js';
import { orch } from '../support/cli.js';
import { TEST_KEYS } from '../support/keys.js';
import { REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** The `orch` lines of docs/cli.md's Examples block, with the exit code each expects. */
function examples(): Array<{ line: string; argv: string[]; exit: number }> {
  const doc = readFileSync(join(REPO_ROOT, 'docs', 'cli.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Examples'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split('\n')
    .filter((l) => l.startsWith('orch '))
    .map((line) => {
      const [command, comment] = line.split(/\s+#\s*/);
      const { words, error } = tokenize(command!);
      if (error) throw new Error(`${line}: ${error}`);
      return { line, argv: words.slice(1), exit: comment ? Number(/exit (\d+)/.exec(comment)![1]) : 0 };
    });
}

describe('docs/cli.md examples, run as written', () => {
  let svc: RuntimeService;
  beforeAll(async () => {
    svc = await startRuntimeService();
  });
  afterAll(async () => {
    await svc?.service.kill();
  });

  it('has examples', () => {
    expect(examples().length).toBeGreaterThan(10);
  });

  it('every example exits as documented', async () => {
    const env = { ORCH_URL: svc.service.url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-docs-') };
    for (const example of examples()) {
      const result = await orch(example.argv, env);
      expect({ line: example.line, code: result.code, stderr: example.exit === 0 ? result.stderr : '' }).toEqual({ line: example.line, code: example.exit, stderr: '' });
    }
  }, 120_000);
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');

/** A few TypeScript modules importing each other, plus one package import. */
function writeFixtureProject(dir: string): void {
  mkdirSync(join(dir, 'src', 'store'), { recursive: true });
  writeFileSync(join(dir, 'src', 'types.ts'), 'export interface Order {\n  id: string;\n  total: number;\n}\nexport type OrderId = Order["id"];\n');
  writeFileSync(
    join(dir, 'src', 'store', 'orders.ts'),
    "import type { Order, OrderId } from '../types.js';\n\nexport class OrderStore {\n  private readonly orders = new Map<OrderId, Order>();\n  get(id: OrderId): Order | undefined {\n    return this.orders.get(id);\n  }\n}\n",
  );
  writeFileSync(
    join(dir, 'src', 'main.ts'),
    "import { createServer } from 'node:http';\nimport { OrderStore } from './store/orders.js';\n\nexport const store = new OrderStore();\nexport default createServer(() => undefined);\n",
  );
}

describe('code-index lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    writeFixtureProject(join(base, 'workspace', 'repos', 'orders'));
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('indexes the files, their exported symbols and the import edges between them', async () => {
    const res = await api.trigger('code-index', { scope: 'repos/orders' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      posture: 'ready',
      stats: { files: 3, typescript: 3, edges: 2, externalPackages: 1 },
      specialistContract: { role: 'code-index-agent', status: 'completed' },
    });
    expect(run.result.files).toContainEqual(
      expect.objectContaining({
        path: 'repos/orders/src/types.ts',
        symbols: [
          { name: 'Order', kind: 'interface', line: 1 },
          { name: 'OrderId', kind: 'type', line: 5 },
        ],
      }),
    );
    expect(run.result.edges).toEqual([
      { from: 'repos/orders/src/main.ts', to: 'repos/orders/src/store/orders.ts' },
      { from: 'repos/orders/src/store/orders.ts', to: 'repos/orders/src/types.ts' },
    ]);
    expect(run.result.externalImports).toEqual([{ package: 'node:http', builtin: true, importedBy: ['repos/orders/src/main.ts'] }]);
  });

  it('fails the run, posture blocked, when the scope does not exist', async () => {
    const res = await api.trigger('code-index', { scope: 'repos/missing' });
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('failed');
    expect(run.specialistContract).toMatchObject({ status: 'refused', refusalReason: expect.stringMatching(/does not exist/) });
    expect(run.result).toMatchObject({ success: false, posture: 'blocked' });
  });
});

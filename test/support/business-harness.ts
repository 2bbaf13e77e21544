import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import pino from 'pino';
import { createBusinessModule, type BusinessModule } from '../../src/business/module.js';
import type { AppConfig } from '../../src/config/types.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import type { Coordination } from '../../src/coordination/types.js';
import { SAMPLE_BUSINESS_REGISTRY } from '../../src/demo/sample-business-registry.js';
import { seedDemoWorkspace } from '../../src/demo/seed-workspace.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission, type AdmissionRequest, type Admit } from '../../src/runtime/admission.js';
import type { HandlerOutcome } from '../../src/runtime/handler-types.js';
import { emptyOrchestratorState } from '../../src/domain/orchestrator-state.js';
import { TestClock } from './clocks.js';
import { testConfig } from './config.js';

/** Writes the business registry file the config names (the demo's sample registry by default). */
export function writeRegistry(config: AppConfig, registry: unknown = SAMPLE_BUSINESS_REGISTRY): void {
  mkdirSync(dirname(config.businessRegistryPath), { recursive: true });
  writeFileSync(config.businessRegistryPath, JSON.stringify(registry));
}

export interface Harness {
  config: AppConfig;
  store: StateStore;
  clock: TestClock;
  coordination: Coordination;
  business: BusinessModule;
  /** The one admission path as the module sees it. */
  admit: Admit;
  /** Every admission request, in order (the business module's only way to start work). */
  admitted: AdmissionRequest[];
  /** When set, admitting a task of this type throws (to make a cycle fail). */
  failAdmissionOf: { type: string | null };
  /** Runs a module handler on an admitted run the way the executor would. */
  execute(runId: string): Promise<HandlerOutcome>;
  /** A second module on the same store (and the same coordination unless given): another instance. */
  another(coordination?: Coordination): BusinessModule;
  close(): Promise<void>;
}

export async function businessHarness(options: { config?: AppConfig; store?: StateStore; clock?: TestClock; coordination?: Coordination } = {}): Promise<Harness> {
  const config = options.config ?? testConfig();
  const clock = options.clock ?? new TestClock(new Date('2026-11-23T10:00:00.000Z'));
  const store = options.store ?? openStateStore(config.stateTarget);
  if (!options.store) await store.open();
  const coordination: Coordination = options.coordination ?? new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
  const logger = pino({ level: 'silent' });
  const realAdmit = createAdmission({ store, clock, invalidator: { invalidate: async () => undefined }, onReady: () => undefined, telemetryRetention: 100 });
  const admitted: AdmissionRequest[] = [];
  const failAdmissionOf = { type: null as string | null };
  const admit: Admit = async (request) => {
    if (request.type === failAdmissionOf.type) throw new Error(`admission of ${request.type} failed for the test`);
    admitted.push(request);
    return realAdmit(request);
  };
  const build = (shared: Coordination = coordination) => createBusinessModule({ config, store, coordination: shared, clock, logger, admit });
  const business = build();
  return {
    config,
    store,
    clock,
    coordination,
    business,
    admit,
    admitted,
    failAdmissionOf,
    another: build,
    async execute(runId) {
      const run = await store.getRun(runId);
      if (!run) throw new Error(`no run ${runId}`);
      const handler = business.lanes.find((lane) => lane.type === run.type)?.handler;
      if (!handler) throw new Error(`the business module has no handler for ${run.type}`);
      return handler.run(emptyOrchestratorState(), {
        runId: run.runId,
        taskId: run.taskId,
        type: run.type,
        payload: run.payload,
        signal: new AbortController().signal,
        logger,
        clock,
      });
    },
    async close() {
      await store.close();
    },
  };
}

/** A harness whose workspace holds the demo's sample project and docs: what a work cycle inspects. */
export async function seededBusinessHarness(): Promise<Harness> {
  const harness = await businessHarness();
  seedDemoWorkspace({ workspaceRoot: harness.config.workspaceRoot, docsPath: harness.config.docsPath });
  return harness;
}

import { createServer, type Server } from 'node:net';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { LlmConfig } from '../../src/config/types.js';
import { createModelChannel, type ModelChannel } from '../../src/models/channel.js';
import type { ModelGateway } from '../../src/models/types.js';
import { openStateStore } from '../../src/store/open.js';
import { getCatalogEntry } from '../../src/runtime/catalog.js';
import { executeRun } from '../../src/runtime/executor.js';
import type { WorkerSpawner } from '../../src/workers/spawn-worker.js';
import { tempDir, testConfig, writeConfigFile } from '../support/config.js';
import { testLaneRegistry } from '../support/lanes.js';
import { admittedRun, markRunning } from '../support/runs.js';

const logger = pino({ level: 'silent' });
/** A gateway that answers every call: these tests are about where the channel listens. */
const gateway: ModelGateway = { complete: async () => ({ ok: true, text: 'fine', model: 'm' }) as never };

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** Listens on 127.0.0.1:`port` (0: any); resolves the server, or null when the port is taken. */
function occupy(port: number): Promise<Server | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(null));
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const release = (server: Server) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Two consecutive ports free on loopback right now (the first of them is returned). */
async function freePortPair(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const probe = (await occupy(0))!;
    const first = (probe.address() as { port: number }).port;
    await release(probe);
    if (first >= 65535) continue;
    const a = await occupy(first);
    const b = await occupy(first + 1);
    for (const s of [a, b]) if (s) await release(s);
    if (a && b) return first;
  }
  throw new Error('no two consecutive free loopback ports');
}

function channelOver(ports: LlmConfig['channelPorts']): ModelChannel {
  const channel = createModelChannel({ gateway, logger, unavailable: () => null, ports: ports ?? null });
  cleanup.push(() => channel.close());
  return channel;
}

async function endpointOf(channel: ModelChannel, runId: string): Promise<URL> {
  const opened = await channel.open(markRunning(admittedRun({ runId, type: 'summarize-content' })), new AbortController().signal);
  cleanup.push(async () => opened.close());
  return new URL((opened.input.__model as { endpoint: string }).endpoint);
}

describe('where the model channel listens', () => {
  it('listens on the configured port, on loopback', async () => {
    const port = await freePortPair();
    const endpoint = await endpointOf(channelOver({ first: port, last: port, setting: `llm.channelPort ${port}` }), 'port-run');
    expect(endpoint.hostname).toBe('127.0.0.1');
    expect(Number(endpoint.port)).toBe(port);
  });

  it('takes the first free port of the configured range', async () => {
    const first = await freePortPair();
    const taken = (await occupy(first))!;
    cleanup.push(() => release(taken));
    const endpoint = await endpointOf(channelOver({ first, last: first + 1, setting: `llm.channelPortRange ${first}-${first + 1}` }), 'range-run');
    expect(Number(endpoint.port)).toBe(first + 1);
  });

  it('fails the attempt with the setting named when no port of the range is free, and tries again for the next one', async () => {
    const port = await freePortPair();
    const taken = (await occupy(port))!;
    const channel = channelOver({ first: port, last: port, setting: `llm.channelPortRange ${port}-${port}` });
    const refused = channel.open(markRunning(admittedRun({ runId: 'busy-run', type: 'summarize-content' })), new AbortController().signal);
    await expect(refused).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining(`no port of llm.channelPortRange ${port}-${port} is free`) });

    // The executor turns it into the attempt's failure; no worker is spawned and nothing throws.
    const store = openStateStore(`${tempDir('channel-port-')}/state.json`);
    await store.open();
    cleanup.push(() => store.close());
    let spawned = 0;
    const spawner = { run: async () => ((spawned += 1), { ok: true, durationMs: 0 }) } as unknown as WorkerSpawner;
    const entry = { ...getCatalogEntry('summarize-content')!, toolGatePreflight: false };
    const run = markRunning(admittedRun({ runId: 'busy-attempt', type: 'summarize-content' }));
    const outcome = await executeRun({ store, clock: systemClock, logger, lanes: testLaneRegistry(), spawner, ownerId: 'owner-1', modelChannel: channel }, entry, run, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, failureReason: 'executor-error', error: expect.stringContaining(`llm.channelPortRange ${port}-${port}`) });
    expect(spawned).toBe(0);

    await release(taken);
    expect(Number((await endpointOf(channel, 'freed-run')).port)).toBe(port);
  });

  it('refuses a request body nested past the JSON depth bound with 400, before the gateway', async () => {
    let called = 0;
    const channel = createModelChannel({ gateway: { complete: async () => ((called += 1), { ok: true }) as never }, logger, unavailable: () => null });
    cleanup.push(() => channel.close());
    const opened = await channel.open(markRunning(admittedRun({ runId: 'deep-run', type: 'summarize-content' })), new AbortController().signal);
    cleanup.push(async () => opened.close());
    const { endpoint, token } = opened.input.__model as { endpoint: string; token: string };
    const deep = `${'['.repeat(5_000)}1${']'.repeat(5_000)}`;
    const res = await fetch(endpoint, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: `{"messages":${deep},"maxTokens":10}` });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: string }).error).toBe('The body nests deeper than 64 levels of arrays and objects');
    expect(called).toBe(0);
  });
});

describe('the channel port settings', () => {
  const llmOf = (llm: Record<string, unknown>) => {
    const dir = tempDir('channel-config-');
    return () => testConfig({ ORCHESTRATOR_CONFIG: writeConfigFile(dir, { llm }) }, dir).llm;
  };

  it('reads a port or a range, and leaves the choice to the system when neither is set', () => {
    expect(llmOf({ channelPort: 41234 })().channelPorts).toEqual({ first: 41234, last: 41234, setting: 'llm.channelPort 41234' });
    expect(llmOf({ channelPortRange: '40000-40100' })().channelPorts).toEqual({ first: 40000, last: 40100, setting: 'llm.channelPortRange 40000-40100' });
    expect(llmOf({})().channelPorts).toBeUndefined();
  });

  it('refuses both at once, a reversed or out-of-range range, and a port that is no port, at start-up', () => {
    expect(llmOf({ channelPort: 41234, channelPortRange: '40000-40100' })).toThrow(/llm.channelPort and llm.channelPortRange are both set/);
    expect(llmOf({ channelPortRange: '40100-40000' })).toThrow(/llm.channelPortRange must be "first-last"/);
    expect(llmOf({ channelPortRange: '0-10' })).toThrow(/llm.channelPortRange must be "first-last"/);
    expect(llmOf({ channelPortRange: '65000-70000' })).toThrow(/llm.channelPortRange must be "first-last"/);
    expect(llmOf({ channelPortRange: 'any' })).toThrow(/llm/);
    expect(llmOf({ channelPort: 70000 })).toThrow(/llm/);
  });
});

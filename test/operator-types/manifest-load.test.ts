import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN_REGISTRY } from '../../src/lanes/built-in.js';
import { schemaProblems } from '../../src/task-types/schema-check.js';
import { loadOperatorTypes, readOperatorFolder } from '../../src/operator-types/load.js';
import { tempDir } from '../support/config.js';
import { shellManifest, writeOperatorType } from '../support/operator-types.js';

const BUILT_INS = new Set(BUILT_IN_REGISTRY.all().map((t) => t.type));
const folderWith = (...types: Array<[string, Record<string, unknown>]>) => {
  const dir = tempDir('orch-manifests-');
  for (const [folder, manifest] of types) writeOperatorType(dir, folder, manifest);
  return dir;
};
const startProblem = (dir: string) => {
  try {
    loadOperatorTypes(dir, BUILT_INS);
  } catch (err) {
    return err as Error & { code?: string };
  }
  throw new Error('the folder loaded');
};

describe('operator task type manifests', () => {
  it('an absent folder holds no types, and a folder without a manifest is not a type', () => {
    expect(loadOperatorTypes(join(tempDir(), 'nowhere'), BUILT_INS)).toEqual([]);
    const dir = folderWith(['ok', shellManifest('ok-type')]);
    mkdirSync(join(dir, 'shared-files'));
    const types = loadOperatorTypes(dir, BUILT_INS);
    expect(types.map((t) => [t.folder, t.taskType.type, t.taskType.source, t.taskType.executor])).toEqual([['ok', 'ok-type', 'operator', 'worker']]);
    expect(types[0]!.version).toMatch(/^[0-9a-f]{16}$/);
  });

  it('a bad manifest stops the start naming its file and field', () => {
    const dir = folderWith(['a', shellManifest('a-type', { timeoutMs: 'soon', comand: ['x'] })]);
    const err = startProblem(dir);
    expect(err.code).toBe('invalid_config');
    expect(err.message).toContain(join(dir, 'a', 'task-type.json'));
    expect(err.message).toContain('/timeoutMs');
    expect(err.message).toContain('comand');
  });

  it('a manifest that is not JSON names its file', () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'broken'));
    writeFileSync(join(dir, 'broken', 'task-type.json'), '{"type": ');
    expect(startProblem(dir).message).toContain(join(dir, 'broken', 'task-type.json'));
  });

  it('a type that is a built-in or another folder’s is refused, naming both', () => {
    expect(startProblem(folderWith(['mine', shellManifest('heartbeat')])).message).toMatch(/\/type 'heartbeat' is a built-in task type/);
    const dir = folderWith(['first', shellManifest('twice')], ['second', shellManifest('twice')]);
    const err = startProblem(dir);
    expect(err.message).toContain(join(dir, 'second', 'task-type.json'));
    expect(err.message).toContain(`already declared by ${join(dir, 'first', 'task-type.json')}`);
  });

  it('a JSON Schema the checker cannot compile, or that is no object schema, is a manifest error', () => {
    const badPattern = shellManifest('p', { payloadSchema: { type: 'object', properties: { a: { type: 'string', pattern: '([' } } } });
    expect(startProblem(folderWith(['p', badPattern])).message).toMatch(/\/payloadSchema cannot be compiled/);
    const notObject = shellManifest('q', { resultSchema: { type: 'array' } });
    expect(startProblem(folderWith(['q', notObject])).message).toMatch(/\/resultSchema must be a JSON Schema of an object/);
  });

  it('a schema may not declare the service fields, and scope fields must be payload fields', () => {
    const declares = shellManifest('d', { payloadSchema: { type: 'object', properties: { idempotencyKey: { type: 'string' } } } });
    expect(startProblem(folderWith(['d', declares])).message).toMatch(/\/payloadSchema\/properties\/idempotencyKey is the service's own field/);
    const scope = shellManifest('s', { scopeFields: ['folder'] });
    expect(startProblem(folderWith(['s', scope])).message).toMatch(/\/scopeFields\/0 names 'folder'/);
  });

  it('a model tier needs the network: the gateway is on the host\'s loopback', () => {
    const tier = shellManifest('m', { model: { tier: 'standard' } });
    expect(startProblem(folderWith(['m', tier])).message).toMatch(/\/model\/tier 'standard' needs "network": true/);
    expect(loadOperatorTypes(folderWith(['m', { ...tier, network: true }]), BUILT_INS)[0]!.taskType.model.tier).toBe('standard');
  });

  it('a closed payload schema still accepts and checks the service fields', () => {
    const dir = folderWith(['c', shellManifest('closed', { payloadSchema: { type: 'object', properties: { n: { type: 'integer' } }, additionalProperties: false } })]);
    const schema = loadOperatorTypes(dir, BUILT_INS)[0]!.taskType.payloadSchema;
    expect(schemaProblems(schema, { n: 1, idempotencyKey: 'k-1', requiresApproval: true })).toEqual([]);
    expect(schemaProblems(schema, { n: 1, idempotencyKey: 'has space' })).toEqual([expect.objectContaining({ path: '/idempotencyKey' })]);
    expect(schemaProblems(schema, { n: 1, other: 1 })).toEqual([{ path: '/other', message: 'is not an accepted field here' }]);
  });

  it('reading for a reload refuses the bad folders and keeps the good ones', () => {
    const dir = folderWith(['good', shellManifest('good')], ['bad', shellManifest('bad', { command: [] })]);
    const reading = readOperatorFolder(dir, BUILT_INS);
    expect(reading.types.map((t) => t.taskType.type)).toEqual(['good']);
    expect(reading.refused).toEqual([{ folder: 'bad', message: expect.stringContaining('/command') }]);
  });
});

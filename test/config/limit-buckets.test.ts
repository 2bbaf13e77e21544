import { describe, expect, it } from 'vitest';
import { tempDir, testConfig, writeConfigFile } from '../support/config.js';

/** Config `limits` as loaded: named buckets in config order, each with at least one cap. */
function configWithLimits(limits: unknown) {
  const dir = tempDir('limits-config-');
  return testConfig({ ORCHESTRATOR_CONFIG: writeConfigFile(dir, { limits }) }, dir);
}

describe('config limits', () => {
  it('loads named buckets in order, with an empty match where none is given', () => {
    const config = configWithLimits({
      deploys: { match: { types: ['deploy'], keyPrefix: 'env/' }, perKey: 2 },
      everything: { concurrency: 10, rate: { max: 5, windowSeconds: 60 } },
    });
    expect(config.limits).toEqual([
      { name: 'deploys', match: { types: ['deploy'], keyPrefix: 'env/' }, perKey: 2 },
      { name: 'everything', match: {}, concurrency: 10, rate: { max: 5, windowSeconds: 60 } },
    ]);
    expect(testConfig().limits).toEqual([]);
  });

  it('refuses a bucket that caps nothing, a bad cap, an unknown field or a bad name, naming it', () => {
    expect(() => configWithLimits({ idle: { match: { types: ['deploy'] } } })).toThrow(/limits\.idle caps nothing/);
    expect(() => configWithLimits({ zero: { concurrency: 0 } })).toThrow(/limits/);
    expect(() => configWithLimits({ odd: { concurrency: 1, burst: 3 } })).toThrow(/limits/);
    expect(() => configWithLimits({ 'bad name!': { concurrency: 1 } })).toThrow(/limits/);
    expect(() => configWithLimits({ slow: { rate: { max: 1 } } })).toThrow(/limits/);
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';
import { shellManifest, startOperatorService, writeOperatorType, type OperatorService } from '../support/operator-types.js';

const PROVIDER_KEY = 'sk-operator-type-model-key-0123456789abcdef';

/** Asks the gateway through the attempt's channel and answers what it got and what its environment held. */
const ASK = `import json, os, urllib.request
request = urllib.request.Request(os.environ["ORCH_MODEL_URL"], method="POST",
    data=json.dumps({"messages": [{"role": "user", "content": "Say hello"}], "maxTokens": 20}).encode(),
    headers={"content-type": "application/json", "authorization": "Bearer " + os.environ["ORCH_MODEL_TOKEN"]})
answer = json.load(urllib.request.urlopen(request))
print(json.dumps({"text": answer.get("text"), "envNames": sorted(os.environ)}))
`;

/** An operator type with a model tier reaches the model gateway through its attempt's channel, metered into its run. */
describe('an operator type with a model tier', () => {
  let svc: OperatorService;
  let fake: FakeOpenAi;

  beforeAll(async () => {
    fake = await startFakeOpenAi();
    fake.fallback = () => ({ text: 'Hello from the provider.', usage: { prompt_tokens: 7, completion_tokens: 4 } });
    svc = await startOperatorService(
      (dir) => {
        writeOperatorType(dir, 'asks-model', shellManifest('asks-model', { command: ['python3', 'ask.py'], model: { tier: 'standard' }, network: true }), {
          'ask.py': { text: ASK },
        });
      },
      { llm: { allowPrivateBaseUrl: true, models: { standard: 'small-model' } } },
      { OPENAI_API_KEY: PROVIDER_KEY, OPENAI_BASE_URL: fake.baseUrl },
    );
  });
  afterAll(async () => {
    await svc?.close();
    await fake?.close();
  });

  it('gets the endpoint and a token, never the key; the call is made and metered for its run', async () => {
    const run = await svc.runToEnd('asks-model');
    expect(run.status).toBe('success');
    expect(run.result.text).toBe('Hello from the provider.');
    expect(run.result.envNames).toEqual(expect.arrayContaining(['ORCH_MODEL_URL', 'ORCH_MODEL_TOKEN']));
    expect((run.result.envNames as string[]).filter((n) => /OPENAI|API_KEY|DATABASE|WEBHOOK/.test(n))).toEqual([]);
    expect(fake.received).toHaveLength(1);
    expect(fake.received[0]!.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
    const stored = await svc.store.getRun(run.runId as string);
    expect(stored!.modelCalls).toEqual([expect.objectContaining({ lane: 'asks-model', model: 'small-model', inputTokens: 7, outputTokens: 4 })]);
  });
});

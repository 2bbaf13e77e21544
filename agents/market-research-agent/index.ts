// Worker entrypoint of the market-research lane: the orchestrator runs the compiled file as
// `node dist/agents/market-research-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { marketResearch } from './research.js';

await runAgentMain(defineLane('market-research', marketResearch));

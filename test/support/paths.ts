import { join } from 'node:path';

/** The repository root (where package.json, agents/, dist/ and docs/ are). */
export const REPO_ROOT = join(import.meta.dirname, '..', '..');

/** The shipped agents: one folder per agent under agents/, each with its agent.config.json. */
export const AGENTS_DIR = join(REPO_ROOT, 'agents');

/** On-disk fixtures: fixture agents, lane inputs and outputs (test/fixtures/). */
export const FIXTURES_DIR = join(REPO_ROOT, 'test', 'fixtures');

/** Fixture agents with fixed behaviours (crash, flood, timeout, ...), for the worker spawner's tests. */
export const FIXTURE_AGENTS_DIR = join(FIXTURES_DIR, 'agents');

/**
 * The agents folder the built service runs with in runtime tests. It holds one agent, a scripted
 * stand-in for summarization-agent (summarization-agent/scripted-summarization-stand-in.mjs) that
 * follows its payload's `mode` and logs every execution. It keeps summarization-agent's id, which
 * the task catalog runs summarize-content on.
 */
export const STAND_IN_AGENTS_DIR = join(FIXTURES_DIR, 'stand-in-agents');

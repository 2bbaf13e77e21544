import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The project root (bench/lib/ is two levels down). */
export const ROOT = join(import.meta.dirname, '..', '..');
export const BENCH_DIR = join(ROOT, 'bench');
export const PEERS_DIR = join(BENCH_DIR, 'peers');
export const SERVICE_ENTRY = join(ROOT, 'dist', 'src', 'main.js');
export const SUMMARIZATION_AGENT_ENTRY = join(ROOT, 'dist', 'agents', 'summarization-agent', 'index.js');

export const serviceBuilt = () => existsSync(SERVICE_ENTRY);
export const summarizationAgentBuilt = () => existsSync(SUMMARIZATION_AGENT_ENTRY);

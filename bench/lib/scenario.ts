import type { RowSink } from './results.js';
import type { Settings } from './settings.js';

export interface ScenarioContext {
  mode: 'quick' | 'full';
  settings: Settings;
  rows: RowSink;
  /** Raw figures for the JSON output. */
  details: Record<string, unknown>;
  /** Epoch ms by which this scenario must be done; loads are capped against it. */
  deadline: number;
  remainingMs(): number;
  log(message: string): void;
}

export interface Scenario {
  name: string;
  title: string;
  run(ctx: ScenarioContext): Promise<void>;
}

/**
 * The configured business registry as the cycle roles see it: loaded afresh on every call (an
 * edit takes effect without a restart) and named by its path relative to the service's base
 * folder, the way evidence, blockers and the read models show it to an operator.
 */

import { relative } from 'node:path';
import type { AppConfig } from '../config/types.js';
import { loadRegistry, type RegistryLoad } from './registry.js';

export interface RegistrySource {
  load(): Promise<RegistryLoad>;
  /** The registry's path as shown to an operator. */
  name(): string;
}

export function registrySource(config: Pick<AppConfig, 'baseDir' | 'businessRegistryPath' | 'workspaceRoot'>): RegistrySource {
  return {
    load: () => loadRegistry(config.businessRegistryPath, config.workspaceRoot),
    name: () => relative(config.baseDir, config.businessRegistryPath) || config.businessRegistryPath,
  };
}

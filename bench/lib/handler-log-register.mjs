// Preloaded into the service process by the bench (NODE_OPTIONS=--import): installs the loader
// hook that gives the doc-sync handler an execution log of its own (see handler-log.ts).
import { register } from 'node:module';

register('./handler-log-hook.mjs', import.meta.url);

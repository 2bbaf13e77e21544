import type { AppConfig } from '../../config/types.js';
import { displayPath } from '../../common/display-path.js';
import { configuredPathProblem } from '../../workspace/configured-folder.js';
import type { StateHandler } from '../../runtime/handler-types.js';
import { walkDocs } from '../../knowledge/docs-walk.js';
import { typeWithRole } from '../built-in.js';

/**
 * startup: runs once per start. The configuration reaching the handler means it loaded and
 * validated; the state passed in means the store initialized. It lists the docs folder (no
 * hashing: that is doc-sync's job) and stamps lastStartedAt. With fastStart the listing is
 * skipped so the service answers at once, and a doc-sync is queued to index in the background.
 */
export type StartupContext = Pick<AppConfig, 'fastStart' | 'docsPath' | 'workspaceRoot' | 'logsDir'>;

export const startup: StateHandler<StartupContext> = async (state, config, input) => {
  const startedAt = input.clock.now().toISOString();
  if (config.fastStart) {
    return {
      status: 'completed',
      result: {
        configLoaded: true,
        docsIndexed: state.docsIndexed.length,
        stateInitialized: true,
        indexDeferred: true,
        note: 'fast start: the docs index runs as a queued doc-sync',
      },
      stateUpdate: (s) => ({ ...s, lastStartedAt: startedAt }),
      // The type that indexes the docs (its module declares the role), whichever it is.
      followUps: [{ type: typeWithRole('indexes-docs'), payload: {} }],
    };
  }

  // A docs folder that is a link (or reached through one) in the workspace is not listed.
  const refused = configuredPathProblem(config.docsPath, 'docs folder', config);
  const walk = refused ? { exists: false, files: [] } : await walkDocs(config.docsPath);
  const paths = walk.files.map((f) => f.path);
  return {
    status: 'completed',
    result: {
      configLoaded: true,
      docsIndexed: paths.length,
      stateInitialized: true,
      ...(refused ? { note: `docs not listed: ${refused}` } : walk.exists ? {} : { note: `docsPath ${displayPath(config.docsPath, config)} does not exist` }),
    },
    stateUpdate: (s) => ({ ...s, lastStartedAt: startedAt, docsIndexed: paths }),
  };
};

import { bubblewrapAvailable, decideSandbox, type SandboxDecider } from '../../src/worker-sdk/project-command.js';

/** Whether this host can run project code in bubblewrap (`.ci/run` installs it). */
export const BUBBLEWRAP = bubblewrapAvailable();

/** The title suffix of a sandboxed case: empty where it runs, the reason where it is skipped. */
export const NEEDS_BUBBLEWRAP = BUBBLEWRAP ? '' : ' (skipped: bubblewrap is not available on this host; apt-get install bubblewrap)';

/**
 * For lane tests about something other than the sandbox: bubblewrap where this host has it,
 * else unsandboxed (the projects they run are the tests' own).
 */
export const hostSandbox: SandboxDecider = () => decideSandbox({ allowUnsandboxed: true });

/** A host without bubblewrap, whatever this one has: the operator's policy alone decides. */
export const withoutBubblewrap: SandboxDecider = (policy) => decideSandbox(policy, false);

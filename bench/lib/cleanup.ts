/**
 * A registry of things to undo (spawned processes, temp dirs, queues, schemas). Scenarios
 * register as they create; `runCleanups` runs newest first and never throws. The run entry
 * point also calls it on SIGINT/SIGTERM so an interrupted run leaves nothing behind.
 */
type CleanupFn = () => Promise<void> | void;

interface Entry {
  id: number;
  label: string;
  fn: CleanupFn;
}

let nextId = 1;
const entries: Entry[] = [];

/** Registers `fn`; returns a function that runs it now (once) and unregisters it. */
export function onCleanup(label: string, fn: CleanupFn): () => Promise<void> {
  const entry: Entry = { id: nextId++, label, fn };
  entries.push(entry);
  return async () => {
    const index = entries.findIndex((e) => e.id === entry.id);
    if (index === -1) return;
    entries.splice(index, 1);
    await safely(entry);
  };
}

async function safely(entry: Entry): Promise<void> {
  try {
    await entry.fn();
  } catch (err) {
    console.error(`cleanup "${entry.label}" failed: ${(err as Error).message}`);
  }
}

/** Runs every registered cleanup, newest first. */
export async function runCleanups(): Promise<void> {
  while (entries.length > 0) {
    const entry = entries.pop()!;
    await safely(entry);
  }
}

export function pendingCleanups(): string[] {
  return entries.map((e) => e.label);
}

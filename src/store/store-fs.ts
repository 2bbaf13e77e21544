import { copyFile, link, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';

/** An open file, reduced to what the file store does with one. */
export interface StoreFileHandle {
  /** Appends at the end of the file (journal lines). */
  append(data: string): Promise<void>;
  /** Writes at the current position (a file just opened with `w`: its whole content). */
  write(data: string): Promise<void>;
  datasync(): Promise<void>;
  sync(): Promise<void>;
  truncate(length: number): Promise<void>;
  close(): Promise<void>;
}

/**
 * Every file-system call the JSON file store makes, behind one small interface. The store uses
 * the real file system; tests put a double behind it that keeps what was written since the last
 * fsync apart and drops it on a simulated power cut, which kill -9 cannot show (the page cache
 * survives a killed process). Errors carry Node's `code` (ENOENT, EEXIST, ...).
 */
export interface StoreFs {
  open(path: string, flags: 'a' | 'w' | 'r+'): Promise<StoreFileHandle>;
  readFile(path: string): Promise<Buffer>;
  exists(path: string): Promise<boolean>;
  rename(from: string, to: string): Promise<void>;
  link(existing: string, created: string): Promise<void>;
  copyFile(from: string, to: string): Promise<void>;
  /** Removes a file; a missing one is not an error. */
  remove(path: string): Promise<void>;
  mkdirp(dir: string): Promise<void>;
  /** Makes the creations, renames and removals of names inside `dir` durable. */
  syncDirectory(dir: string): Promise<void>;
}

export const nodeStoreFs: StoreFs = {
  async open(path, flags) {
    const handle = await open(path, flags);
    return {
      append: (data) => handle.appendFile(data, 'utf8'),
      write: (data) => handle.writeFile(data, 'utf8'),
      datasync: () => handle.datasync(),
      sync: () => handle.sync(),
      truncate: (length) => handle.truncate(length),
      close: () => handle.close(),
    };
  },
  readFile: (path) => readFile(path),
  async exists(path) {
    try {
      await stat(path);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
  },
  rename: (from, to) => rename(from, to),
  link: (existing, created) => link(existing, created),
  copyFile: (from, to) => copyFile(from, to),
  remove: (path) => rm(path, { force: true }),
  mkdirp: async (dir) => {
    await mkdir(dir, { recursive: true });
  },
  async syncDirectory(dir) {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  },
};

/** Opens `path`, runs `use` on it and closes it whatever `use` did. */
export async function withOpenFile<T>(fs: StoreFs, path: string, flags: 'a' | 'w' | 'r+', use: (handle: StoreFileHandle) => Promise<T>): Promise<T> {
  const handle = await fs.open(path, flags);
  try {
    return await use(handle);
  } finally {
    await handle.close();
  }
}

/** Writes `data` to a new file (replacing one left over) and fsyncs it before closing. */
export async function writeFileSyncedOn(fs: StoreFs, path: string, data: string): Promise<void> {
  await withOpenFile(fs, path, 'w', async (handle) => {
    await handle.write(data);
    await handle.sync();
  });
}

import { dirname } from 'node:path';
import type { StoreFileHandle, StoreFs } from '../../src/store/store-fs.js';

/** A file's bytes: what the page cache holds now, and what an fsync last put on the platter. */
interface Inode {
  current: Buffer;
  durable: Buffer;
}

function errno(code: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${path}`), { code });
}

/** Never settles: a call made by a store whose machine has lost power. */
const dead = <T>(): Promise<T> => new Promise<T>(() => undefined);

/**
 * An in-memory disk with a page cache. Writes change a file's `current` bytes; fsync/fdatasync
 * copy them to `durable`. Names (creations, renames, links, removals) change the live directory
 * and reach the durable one only when that directory is fsynced. `powerCut()` throws away
 * everything not yet durable (optionally keeping a torn prefix of each file's unsynced tail, as a
 * disk may) and fences the store that was running: each of its calls from then on never settles.
 * `mount()` hands the next store a view of what survived.
 */
export class PowerCutDisk {
  private names = new Map<string, Inode>();
  private durableNames = new Map<string, Inode>();
  private epoch = 0;
  /** fsync calls seen, to show that a test exercised them. */
  syncs = 0;
  /** renames seen (each compaction renames its new snapshot into place). */
  renames = 0;

  /** Called before every file-system call; returning true cuts the power right there. */
  private trigger: ((op: string, path: string) => boolean) | null = null;
  /** Power cuts fired by an armed trigger. */
  triggeredCuts = 0;

  constructor(private readonly random: () => number = Math.random) {}

  /** Cuts the power (torn tails kept) at the first call for which `when` returns true. */
  armCut(when: (op: string, path: string) => boolean): void {
    this.trigger = when;
  }

  disarm(): void {
    this.trigger = null;
  }

  powerCut(options: { tornTails?: boolean } = {}): void {
    this.epoch += 1;
    const survivors = new Set(this.durableNames.values());
    for (const inode of survivors) {
      let kept = inode.durable;
      const extra = inode.current.length - inode.durable.length;
      // Only a pure append can leave a torn tail behind; any other unsynced change is simply gone.
      if (options.tornTails && extra > 0 && inode.current.subarray(0, inode.durable.length).equals(inode.durable)) {
        kept = inode.current.subarray(0, inode.durable.length + Math.floor(this.random() * extra));
      }
      inode.current = Buffer.from(kept);
      inode.durable = Buffer.from(kept);
    }
    this.names = new Map(this.durableNames);
  }

  /** The file's live bytes, or null. */
  peek(path: string): Buffer | null {
    return this.names.get(path)?.current ?? null;
  }

  mount(): StoreFs {
    const epoch = this.epoch;
    const alive = () => epoch === this.epoch;
    const guard = <T>(op: string, path: string, work: () => T | Promise<T>): Promise<T> => {
      if (!alive()) return dead<T>();
      if (this.trigger?.(op, path)) {
        this.trigger = null;
        this.triggeredCuts += 1;
        this.powerCut({ tornTails: true });
        return dead<T>();
      }
      return Promise.resolve()
        .then(work)
        .then(
          (value) => (alive() ? value : dead<T>()),
          (err: unknown) => (alive() ? Promise.reject(err) : dead<T>()),
        );
    };
    const lookup = (path: string): Inode => {
      const inode = this.names.get(path);
      if (!inode) throw errno('ENOENT', path);
      return inode;
    };
    const handleOn = (inode: Inode, path: string): StoreFileHandle => ({
      append: (data) =>
        guard('append', path, () => {
          inode.current = Buffer.concat([inode.current, Buffer.from(data, 'utf8')]);
        }),
      write: (data) =>
        guard('write', path, () => {
          inode.current = Buffer.concat([inode.current, Buffer.from(data, 'utf8')]);
        }),
      datasync: () => guard('datasync', path, () => this.sync(inode)),
      sync: () => guard('sync', path, () => this.sync(inode)),
      truncate: (length) =>
        guard('truncate', path, () => {
          inode.current = Buffer.from(inode.current.subarray(0, length));
        }),
      close: () => guard('close', path, () => undefined),
    });
    return {
      open: (path, flags) =>
        guard('open', path, () => {
          let inode = this.names.get(path);
          if (!inode) {
            if (flags === 'r+') throw errno('ENOENT', path);
            inode = { current: Buffer.alloc(0), durable: Buffer.alloc(0) };
            this.names.set(path, inode);
          } else if (flags === 'w') {
            inode.current = Buffer.alloc(0);
          }
          return handleOn(inode, path);
        }),
      readFile: (path) => guard('readFile', path, () => Buffer.from(lookup(path).current)),
      exists: (path) => guard('exists', path, () => this.names.has(path)),
      rename: (from, to) =>
        guard('rename', from, () => {
          const inode = lookup(from);
          this.renames += 1;
          this.names.delete(from);
          this.names.set(to, inode);
        }),
      link: (existing, created) =>
        guard('link', created, () => {
          const inode = lookup(existing);
          if (this.names.has(created)) throw errno('EEXIST', created);
          this.names.set(created, inode);
        }),
      copyFile: (from, to) =>
        guard('copyFile', to, () => {
          this.names.set(to, { current: Buffer.from(lookup(from).current), durable: Buffer.alloc(0) });
        }),
      remove: (path) =>
        guard('remove', path, () => {
          this.names.delete(path);
        }),
      mkdirp: (dir) => guard('mkdirp', dir, () => undefined),
      syncDirectory: (dir) =>
        guard('syncDirectory', dir, () => {
          for (const path of new Set([...this.names.keys(), ...this.durableNames.keys()])) {
            if (dirname(path) !== dir) continue;
            const inode = this.names.get(path);
            if (inode) this.durableNames.set(path, inode);
            else this.durableNames.delete(path);
          }
        }),
    };
  }

  private sync(inode: Inode): void {
    this.syncs += 1;
    inode.durable = Buffer.from(inode.current);
  }
}

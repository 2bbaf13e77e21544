import { describe, expect, it } from 'vitest';
import { mainThreadCpuMs } from '../../bench/lib/util.js';

describe('mainThreadCpuMs', () => {
  it.skipIf(process.platform !== 'linux')('reads the main thread CPU time of a process, and it grows with work', () => {
    const before = mainThreadCpuMs(process.pid);
    expect(before).not.toBeNull();
    // Spin until this process has used 100 ms more CPU by its own count (the test runs on the
    // main thread of a forked worker), however long a busy host takes to give it that.
    const start = process.cpuUsage();
    let spin = 0;
    for (;;) {
      spin++;
      const used = process.cpuUsage(start);
      if (used.user + used.system >= 100_000) break;
    }
    const after = mainThreadCpuMs(process.pid)!;
    expect(spin).toBeGreaterThan(0);
    // 100 ms of CPU at 10 ms ticks, less what other threads of the process took meanwhile.
    expect(after - before!).toBeGreaterThanOrEqual(50);
  });

  it('is null for a process that does not exist or no pid', () => {
    expect(mainThreadCpuMs(undefined)).toBeNull();
    expect(mainThreadCpuMs(2 ** 22 + 12345)).toBeNull();
  });
});

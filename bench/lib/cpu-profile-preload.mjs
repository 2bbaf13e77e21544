// Preloaded into a service (NODE_OPTIONS=--import, where --cpu-prof is refused): profiles its main
// thread from start to exit and writes a .cpuprofile into CPU_PROFILE_DIR. The same-thread
// inspector session answers synchronously, so the profile is taken even in the 'exit' handler.
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

const dir = process.env.CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 200 });
  session.post('Profiler.start');
  process.on('exit', () => {
    session.post('Profiler.stop', (err, result) => {
      if (!err) writeFileSync(join(dir, `service-${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

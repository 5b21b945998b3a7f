/**
 * `waymark serve` for restart tests: the real server in its own process (so that a test can
 * SIGKILL it), configured from the environment like bin/waymark.js, whose clock runs
 * `<data dir>/clock-offset-ms` milliseconds ahead (written by the test to let timers come due).
 * Prints `listening <url>` once it answers requests.
 */
import fs from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createWaymark } from '../../src/server.ts';

const config = loadConfig(process.env);
const offsetFile = path.join(config.dataDir, 'clock-offset-ms');
let offset = 0;
function readOffset(): void {
  try {
    offset = Number(fs.readFileSync(offsetFile, 'utf8')) || 0;
  } catch {
    offset = 0;
  }
}
readOffset();
setInterval(readOffset, 50).unref();

const waymark = await createWaymark(config, { now: () => Date.now() + offset });
const url = await waymark.listen();
process.stdout.write(`listening ${url}\n`);
process.on('SIGTERM', () => {
  void waymark.close().then(() => process.exit(0));
});

/**
 * Database files in temporary directories, each removed when the test file ends:
 * `const tempDb = tempDbFiles('waymark-store-')` at the top of a file, then `tempDb()` per test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after } from 'node:test';

export function tempDbFiles(prefix: string): () => string {
  const dirs: string[] = [];
  after(() => {
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });
  return () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return path.join(dir, 'w.db');
  };
}

/** Writes src/store/schema.sql; with --check, fails when it is out of date. */
import fs from 'node:fs';
import path from 'node:path';
import { dumpSchema } from '../src/store/dumpSchema.ts';

const file = path.join(import.meta.dirname, '..', 'src', 'store', 'schema.sql');
const fresh = await dumpSchema();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== fresh) {
    process.stderr.write('src/store/schema.sql is out of date: run npm run schema:dump\n');
    process.exit(1);
  }
} else {
  fs.writeFileSync(file, fresh);
}

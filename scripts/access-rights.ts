/** Writes docs/access-rights.md from ACCESS_POLICY; with --check, fails when it is out of date. */
import fs from 'node:fs';
import path from 'node:path';
import { renderAccessRightsDoc } from '../src/api/accessRightsDoc.ts';

const file = path.join(import.meta.dirname, '..', 'docs', 'access-rights.md');
const fresh = renderAccessRightsDoc();
if (process.argv.includes('--check')) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current !== fresh) {
    process.stderr.write('docs/access-rights.md is out of date: run npm run docs:rights\n');
    process.exit(1);
  }
} else {
  fs.writeFileSync(file, fresh);
}

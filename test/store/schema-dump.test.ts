import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { dumpSchema } from '../../src/store/dumpSchema.ts';

test('the committed schema dump matches the migrations (npm run schema:dump)', async () => {
  const committed = fs.readFileSync(path.join(import.meta.dirname, '..', '..', 'src', 'store', 'schema.sql'), 'utf8');
  assert.equal(committed, await dumpSchema());
});

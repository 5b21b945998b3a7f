import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseUserName, userKey } from '../../src/domain/userNames.ts';

describe('parseUserName', () => {
  test('splits DOMAIN\\user and keeps the name as given', () => {
    assert.deepEqual(parseUserName('LOCAL\\alice'), { domain: 'LOCAL', user: 'alice', full: 'LOCAL\\alice' });
    assert.deepEqual(parseUserName('AP-424\\Admin'), { domain: 'AP-424', user: 'Admin', full: 'AP-424\\Admin' });
    assert.deepEqual(parseUserName('Équipe\\josé maría'), { domain: 'Équipe', user: 'josé maría', full: 'Équipe\\josé maría' });
    assert.deepEqual(parseUserName('corp.example.com\\first.last@example.com')?.user, 'first.last@example.com');
  });

  test('accepts exactly 256 characters and refuses 257', () => {
    const name256 = 'D\\' + 'u'.repeat(254);
    assert.equal(name256.length, 256);
    assert.equal(parseUserName(name256)?.full, name256);
    assert.equal(parseUserName(name256 + 'u'), null);
  });

  test('refuses names without exactly one backslash or with an empty part', () => {
    for (const bad of ['alice', 'LOCAL/alice', 'LOCAL\\', '\\alice', '\\', 'A\\B\\C', 'LOCAL\\\\alice', '']) {
      assert.equal(parseUserName(bad), null, JSON.stringify(bad));
    }
  });

  test('refuses parts with white space around them', () => {
    for (const bad of [' LOCAL\\alice', 'LOCAL \\alice', 'LOCAL\\ alice', 'LOCAL\\alice ', ' \\alice', 'LOCAL\\ ', 'LOCAL\\\u00A0alice']) {
      assert.equal(parseUserName(bad), null, JSON.stringify(bad));
    }
  });

  test('refuses control characters anywhere', () => {
    for (const bad of ['LOCAL\\al\tice', 'LOCAL\\alice\n', 'LO\u0000CAL\\alice', 'LOCAL\\a\u007Flice', 'LOCAL\\a\u0085lice', 'LOCAL\\a\u001Blice']) {
      assert.equal(parseUserName(bad), null, JSON.stringify(bad));
    }
  });

  test('refuses values that are not strings', () => {
    for (const bad of [null, undefined, 5, {}, ['LOCAL\\alice']]) assert.equal(parseUserName(bad), null);
  });
});

describe('userKey', () => {
  test('makes names that differ only in case equal', () => {
    assert.equal(userKey('LOCAL\\Alice'), userKey('local\\ALICE'));
    assert.equal(userKey('LOCAL\\Alice'), 'local\\alice');
    assert.notEqual(userKey('LOCAL\\alice'), userKey('LOCAL\\alice2'));
  });

  test('makes composed and decomposed accents equal', () => {
    assert.equal(userKey('LOCAL\\Jos\u00E9'), userKey('local\\jose\u0301'));
  });
});

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DUMMY_HASH, checkPasswordRules, hashPassword, verifyPassword } from '../../src/domain/passwords.ts';

const HASH_FORMAT = /^scrypt\$16384\$8\$1\$([A-Za-z0-9+/]{22}==)\$([A-Za-z0-9+/]{43}=)$/;

describe('hashPassword / verifyPassword', () => {
  test('writes scrypt$16384$8$1$<16-byte salt>$<32-byte key>', async () => {
    const hash = await hashPassword('correct horse battery staple');
    const m = HASH_FORMAT.exec(hash);
    assert.ok(m, hash);
    assert.equal(Buffer.from(m[1], 'base64').length, 16);
    assert.equal(Buffer.from(m[2], 'base64').length, 32);
  });

  test('verifies the right password and refuses others', async () => {
    const hash = await hashPassword('correct horse battery staple');
    assert.equal(await verifyPassword('correct horse battery staple', hash), true);
    assert.equal(await verifyPassword('Correct horse battery staple', hash), false);
    assert.equal(await verifyPassword('correct horse battery staple ', hash), false);
    assert.equal(await verifyPassword('', hash), false);
  });

  test('salts every hash', async () => {
    const [a, b] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    assert.notEqual(a, b);
    assert.equal(await verifyPassword('same password', a), true);
    assert.equal(await verifyPassword('same password', b), true);
  });

  test('treats composed and decomposed accents as the same password', async () => {
    const hash = await hashPassword('caf\u00E9 au lait');
    assert.equal(await verifyPassword('cafe\u0301 au lait', hash), true);
  });

  test('answers false, without throwing, for malformed stored hashes', async () => {
    const good = await hashPassword('some password');
    const [, , , , salt, key] = good.split('$');
    for (const stored of [
      '',
      'plain text',
      'scrypt$16384$8$1$$',
      `bcrypt$16384$8$1$${salt}$${key}`,
      `scrypt$16383$8$1$${salt}$${key}`,
      `scrypt$1073741824$8$1$${salt}$${key}`,
      `scrypt$16384$0$1$${salt}$${key}`,
      `scrypt$16384$8$99$${salt}$${key}`,
      `scrypt$16384$8$1$${salt}$not*base64`,
      `scrypt$16384$8$1$${salt}$${key}$extra`,
      `scrypt$16384$8$1$${salt}$QUJD`,
    ]) {
      assert.equal(await verifyPassword('some password', stored), false, stored);
    }
  });

  test('DUMMY_HASH is a well-formed hash that no ordinary password matches', async () => {
    const m = HASH_FORMAT.exec(DUMMY_HASH);
    assert.ok(m, DUMMY_HASH);
    for (const guess of ['', 'password', 'admin', 'changeme']) assert.equal(await verifyPassword(guess, DUMMY_HASH), false);
  });

  test('verifying against DUMMY_HASH costs a real scrypt run', async () => {
    const started = performance.now();
    await verifyPassword('password', 'malformed');
    const malformed = performance.now() - started;
    const again = performance.now();
    await verifyPassword('password', DUMMY_HASH);
    const dummy = performance.now() - again;
    assert.ok(dummy > malformed, `dummy ${dummy} ms should exceed malformed ${malformed} ms`);
    assert.ok(dummy > 2, `dummy verification took only ${dummy} ms`);
  });
});

describe('checkPasswordRules', () => {
  test('accepts 8 to 1024 characters with some variety', () => {
    for (const ok of ['correct horse', 'abcdefgh', 'a'.repeat(1023) + 'b', '😀😀😀😀😀😀😀a', ' a      ']) {
      assert.equal(checkPasswordRules(ok), null, ok.slice(0, 20));
    }
  });

  test('refuses short, long, blank and monotonous passwords with a sentence', () => {
    const cases: Array<[unknown, RegExp]> = [
      ['short', /at least 8 characters/],
      ['1234567', /at least 8 characters/],
      ['😀😀😀😀', /at least 8 characters/],
      ['ab'.repeat(513), /at most 1024 characters/],
      [' '.repeat(10), /white space/],
      ['\t\n \t\n \t\n', /white space/],
      ['aaaaaaaa', /single character repeated/],
      ['😀'.repeat(9), /single character repeated/],
      [12345678, /must be a string/],
      [null, /must be a string/],
    ];
    for (const [pw, message] of cases) {
      const answer = checkPasswordRules(pw);
      assert.ok(answer !== null, String(pw));
      assert.match(answer, message);
      assert.match(answer, /^The password .*\.$/);
    }
  });
});

describe('checkPasswordRules: common passwords and the user name', () => {
  test('refuses the most common passwords in any case, and the user name with or without its domain', () => {
    for (const pw of ['password1', 'PASSWORD123', 'Qwerty123', '123456789', 'iloveyou']) {
      assert.match(checkPasswordRules(pw) ?? '', /most common passwords/, pw);
    }
    assert.match(checkPasswordRules('Margarethe', 'LOCAL\\margarethe') ?? '', /not be the user name/);
    assert.match(checkPasswordRules('local\\MARGARETHE', 'LOCAL\\margarethe') ?? '', /not be the user name/);
    assert.equal(checkPasswordRules('margarethe-1', 'LOCAL\\margarethe'), null, 'containing the name is allowed');
    assert.equal(checkPasswordRules('Margarethe'), null, 'without a user name only the other rules apply');
  });
});

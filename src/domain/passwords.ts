/**
 * Password hashing with scrypt (node:crypto). Stored form:
 * `scrypt$<N>$<r>$<p>$<salt base64>$<key base64>`. Passwords are NFC-normalised first so that
 * the same characters typed on different systems give the same hash.
 */
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const COST = 16384;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
const MIN_PASSWORD_LENGTH = 8;
const MAX_PASSWORD_LENGTH = 1024;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/**
 * A valid hash of a random password nobody knows. Verify against it when a user does not exist,
 * so that the answer takes as long as for a user who does.
 */
export const DUMMY_HASH =
  'scrypt$16384$8$1$inCewaslsnE3msx/X3LRWg==$Gfssfuw9J2KnTMh+BjOIqiwg5jwICd+LJfFyr277YWs=';

interface StoredHash {
  options: ScryptOptions;
  salt: Buffer;
  key: Buffer;
}

function deriveKey(pw: string, salt: Buffer, keyLength: number, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(pw.normalize('NFC'), salt, keyLength, options, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

/** A new salted scrypt hash of the password, in the stored form. */
export async function hashPassword(pw: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await deriveKey(pw, salt, KEY_BYTES, { N: COST, r: BLOCK_SIZE, p: PARALLELISM });
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64'), key.toString('base64')].join('$');
}

/** True when the password matches the stored hash; false for a wrong password or a malformed hash. */
export async function verifyPassword(pw: string, stored: string): Promise<boolean> {
  const hash = parseStoredHash(stored);
  if (!hash || typeof pw !== 'string') return false;
  const key = await deriveKey(pw, hash.salt, hash.key.length, hash.options);
  return timingSafeEqual(key, hash.key);
}

/** The parts of a stored hash, or null when it is not one this module could have written. */
function parseStoredHash(stored: unknown): StoredHash | null {
  if (typeof stored !== 'string') return null;
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return null;
  const [N, r, p] = parts.slice(1, 4).map((n) => (/^\d{1,7}$/.test(n) ? Number(n) : 0));
  const isPowerOfTwo = N > 1 && (N & (N - 1)) === 0;
  if (!isPowerOfTwo || N > 2 ** 20 || r < 1 || r > 32 || p < 1 || p > 16) return null;
  if (!BASE64.test(parts[4]) || !BASE64.test(parts[5])) return null;
  const salt = Buffer.from(parts[4], 'base64');
  const key = Buffer.from(parts[5], 'base64');
  if (salt.length < 8 || key.length < 16 || key.length > 64) return null;
  return { options: { N, r, p, maxmem: 256 * N * r + 1024 * 1024 }, salt, key };
}

/**
 * Passwords of at least 8 characters found at the top of leaked-password lists: the first ones
 * an attacker tries. Compared case-insensitively.
 */
const COMMON_PASSWORDS = new Set([
  'password', 'password1', 'password12', 'password123', 'password!', 'passw0rd', 'p@ssw0rd', 'p@ssword',
  '12345678', '123456789', '1234567890', '0123456789', '87654321', '12341234', '11223344', '12121212',
  'qwertyui', 'qwertyuiop', 'qwerty123', 'qwerty12', '1q2w3e4r', '1qaz2wsx', 'zaq12wsx', 'asdfghjk', 'asdfasdf',
  'iloveyou', 'sunshine', 'princess', 'football', 'baseball', 'superman', 'starwars', 'whatever', 'trustno1',
  'welcome1', 'welcome123', 'letmein1', 'letmein123', 'admin123', 'admin1234', 'administrator', 'changeme',
  'abc12345', 'abcd1234', 'monkey123', 'dragon123', 'master123', 'computer', 'internet', 'michelle',
  'jennifer', 'secret123', 'test1234', 'testtest', 'default1', 'waymark1',
]);

/**
 * Null when the password meets the rules, else a sentence saying which rule it breaks: a string
 * of 8 to 1024 characters, not only white space, not one character repeated, not one of the most
 * common passwords, and not the user's own name (`DOMAIN\user` or `user`, in any case).
 */
export function checkPasswordRules(pw: unknown, userName?: string): string | null {
  if (typeof pw !== 'string') return 'The password must be a string.';
  const characters = [...pw];
  if (characters.length < MIN_PASSWORD_LENGTH) return `The password must be at least ${MIN_PASSWORD_LENGTH} characters long.`;
  if (characters.length > MAX_PASSWORD_LENGTH) return `The password must be at most ${MAX_PASSWORD_LENGTH} characters long.`;
  if (pw.trim() === '') return 'The password must not consist of white space only.';
  if (new Set(characters).size === 1) return 'The password must not be a single character repeated.';
  const lower = pw.normalize('NFC').toLowerCase();
  if (COMMON_PASSWORDS.has(lower)) return 'The password is one of the most common passwords; choose another.';
  if (userName !== undefined) {
    const name = userName.normalize('NFC').toLowerCase();
    if (lower === name || lower === name.slice(name.indexOf('\\') + 1)) return 'The password must not be the user name.';
  }
  return null;
}

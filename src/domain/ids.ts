/**
 * Ids: 32 upper-case hexadecimal characters in the UUIDv7 layout, written without dashes
 * (WIRE.md §Values). Time-ordered so that inserts land at the end of an index instead of
 * scattering pages; still unguessable thanks to 74 random bits.
 */
import { randomFillSync } from 'node:crypto';

/** The all-zero id (role member ObjectID of type `All`, "no id" placeholders). */
export const ZERO_ID = '0'.repeat(32);

const MAX_TIMESTAMP_MS = 2 ** 48 - 1;
const RANDOM_BYTES_PER_ID = 10;
const POOL_IDS = 256;
const pool = Buffer.allocUnsafe(RANDOM_BYTES_PER_ID * POOL_IDS);
let poolOffset = pool.length;

const ID_PATTERN = /^[0-9a-fA-F]{32}$/;

/**
 * How an id is built (twenty-seventh round, docs/performance-log.md): its 32 characters are
 * written as ASCII into one buffer and read out as one flat string. Made by concatenating twelve
 * pieces, an id was a rope that V8 flattened again wherever it was hashed (a Map key) or bound
 * to a statement, and `ms.toString(16)` of a time beyond 2^31 took V8's slow path for doubles:
 * ~500 ns an id, ~10 ids per completed e2e instance, `timestampHex` 0.8 % of the writer thread.
 * The millisecond's 12 characters are kept while it lasts.
 */
const HEX_DIGITS = Buffer.from('0123456789ABCDEF', 'latin1');
const idBytes = Buffer.alloc(32);
let lastMs = -1;

/** Hands out the next 10 random bytes, refilling the shared pool with one system call when it runs dry. */
function takeRandomBytes(): number {
  if (poolOffset + RANDOM_BYTES_PER_ID > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const start = poolOffset;
  poolOffset += RANDOM_BYTES_PER_ID;
  return start;
}

/** Writes the 48-bit millisecond timestamp as 12 upper-case hex characters at the start of idBytes. */
function writeTimestamp(now: number): void {
  const ms = Math.floor(now);
  if (ms === lastMs) return;
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_TIMESTAMP_MS) {
    throw new RangeError(`Cannot make an id for time ${now}: it must be between 0 and 2^48-1 milliseconds.`);
  }
  // 48 bits do not fit JavaScript's 32-bit operators: the high 16 bits and the low 32 apart.
  const high = Math.floor(ms / 2 ** 32);
  const low = ms - high * 2 ** 32;
  for (let i = 0; i < 4; i++) idBytes[3 - i] = HEX_DIGITS[(high >>> (4 * i)) & 0xf];
  for (let i = 0; i < 8; i++) idBytes[11 - i] = HEX_DIGITS[(low >>> (4 * i)) & 0xf];
  lastMs = ms;
}

/** Writes byte `b` as two upper-case hex characters at `at` in idBytes. */
function writeByte(at: number, b: number): void {
  idBytes[at] = HEX_DIGITS[b >>> 4];
  idBytes[at + 1] = HEX_DIGITS[b & 0xf];
}

/**
 * A new id: 48 bits of milliseconds since the epoch, the version nibble 7, 12 random bits,
 * the variant bits `10` and 62 random bits, as 32 upper-case hex characters.
 * Ids made in a later millisecond sort after earlier ones (plain string order).
 */
export function newId(now: number = Date.now()): string {
  writeTimestamp(now);
  const o = takeRandomBytes();
  const p = pool;
  idBytes[12] = 0x37; // '7'
  idBytes[13] = HEX_DIGITS[p[o] & 0x0f];
  writeByte(14, p[o + 1]);
  writeByte(16, (p[o + 2] & 0x3f) | 0x80);
  for (let i = 3; i < RANDOM_BYTES_PER_ID; i++) writeByte(12 + 2 * i, p[o + i]);
  return idBytes.toString('latin1', 0, 32);
}

/** True for exactly 32 hexadecimal characters, in any case. */
export function isId(s: unknown): s is string {
  return typeof s === 'string' && ID_PATTERN.test(s);
}

/** The stored spelling of an id: upper-case. */
export function normalizeId(s: string): string {
  return s.toUpperCase();
}

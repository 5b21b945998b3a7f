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

const HEX_BYTE: readonly string[] = Array.from({ length: 256 }, (_, b) =>
  b.toString(16).toUpperCase().padStart(2, '0'),
);
const ID_PATTERN = /^[0-9a-fA-F]{32}$/;

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

/** The 48-bit millisecond timestamp as 12 upper-case hex characters. */
function timestampHex(now: number): string {
  const ms = Math.floor(now);
  if (!Number.isFinite(ms) || ms < 0 || ms > MAX_TIMESTAMP_MS) {
    throw new RangeError(`Cannot make an id for time ${now}: it must be between 0 and 2^48-1 milliseconds.`);
  }
  return ms.toString(16).toUpperCase().padStart(12, '0');
}

/**
 * A new id: 48 bits of milliseconds since the epoch, the version nibble 7, 12 random bits,
 * the variant bits `10` and 62 random bits, as 32 upper-case hex characters.
 * Ids made in a later millisecond sort after earlier ones (plain string order).
 */
export function newId(now: number = Date.now()): string {
  const time = timestampHex(now);
  const o = takeRandomBytes();
  const p = pool;
  return (
    time +
    '7' +
    HEX_BYTE[p[o] & 0x0f].charAt(1) +
    HEX_BYTE[p[o + 1]] +
    HEX_BYTE[(p[o + 2] & 0x3f) | 0x80] +
    HEX_BYTE[p[o + 3]] +
    HEX_BYTE[p[o + 4]] +
    HEX_BYTE[p[o + 5]] +
    HEX_BYTE[p[o + 6]] +
    HEX_BYTE[p[o + 7]] +
    HEX_BYTE[p[o + 8]] +
    HEX_BYTE[p[o + 9]]
  );
}

/** True for exactly 32 hexadecimal characters, in any case. */
export function isId(s: unknown): s is string {
  return typeof s === 'string' && ID_PATTERN.test(s);
}

/** The stored spelling of an id: upper-case. */
export function normalizeId(s: string): string {
  return s.toUpperCase();
}

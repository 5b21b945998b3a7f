/**
 * A caller's rights as they cross to the writer thread (writerThread.ts): as text, not as a Set.
 *
 * Why: a structured clone of a Set is rebuilt on the receiving side one `Set.prototype.add` call
 * at a time, each entered from C++. For an administrator's 87 rights that was ~63 thousand
 * instructions of the writer thread per command, and ~16 thousand on the request thread to write
 * it (`npm run bench -- instructions-writes`, 2026-11-24: 7 % of the writer thread's count per
 * AssignWorkItem). A string is copied as bytes. Both sides keep what they made: the request thread
 * per Set (the Authenticator keeps one caller, and its Set, per cached login), the writer thread
 * per text (callers' rights come from a few roles, so there are few distinct texts).
 */

/** Texts per Set already encoded: a Set is read-only once it belongs to a caller. */
const encoded = new WeakMap<ReadonlySet<number>, string>();

/** Sets per text already decoded; emptied when it reaches this many (a bound, never reached by real role sets). */
const MAX_DECODED = 1000;
const decoded = new Map<string, ReadonlySet<number>>();

/** The rights as text: their indexes in ascending order, comma-separated (`''` for none). */
export function encodeRights(rights: ReadonlySet<number>): string {
  let text = encoded.get(rights);
  if (text === undefined) {
    text = [...rights].sort((a, b) => a - b).join(',');
    encoded.set(rights, text);
  }
  return text;
}

/** The rights encoded by encodeRights; the same text gives the same Set, which must not be changed. */
export function decodeRights(text: string): ReadonlySet<number> {
  let rights = decoded.get(text);
  if (rights === undefined) {
    rights = new Set(text === '' ? [] : text.split(',').map(Number));
    if (decoded.size >= MAX_DECODED) decoded.clear();
    decoded.set(text, rights);
  }
  return rights;
}

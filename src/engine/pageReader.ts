/**
 * A list read a page at a time, for an answer that streams (GetRegisterUsers): `next()` answers
 * the next page, or null after the last.
 *
 * Not an async generator: a generator suspended at its `yield` kept its last page — the rows and
 * the records made from them — alive while the answer waited for the socket, long enough for
 * young-generation collections to promote them. With ten clients downloading 10,000 users, the
 * old generation then grew by ~50 MB before a full collection (`bench users10k`, `--trace-gc`,
 * 2026-11-22). A reader keeps only its cursor between calls.
 */
export interface PageReader<T> {
  next(): Promise<T[] | null>;
}

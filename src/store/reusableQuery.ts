/**
 * Queries of a fixed shape, built and compiled by Kysely once per database handle and then run
 * with new values. The read operations' queries never change shape, only their values; building
 * and compiling them anew on every call was part of the 7 % of the server's CPU that Kysely took
 * in `bench reads` (beside the statements themselves), for text that is the same every time.
 */
import { CompiledQuery, type Compilable } from 'kysely';
import type { Executor } from './Store.ts';

/**
 * `build` must turn exactly its `values`, in order, into the query's parameters (checked on the
 * first call: a query that inlines a value or binds a constant is refused). The compiled text is
 * kept per handle, so SQLite and PostgreSQL each get their own.
 */
export function reusableQuery<A extends unknown[], R>(
  build: (db: Executor, ...values: A) => Compilable<R>,
): (db: Executor, ...values: A) => Promise<R[]> {
  const texts = new WeakMap<Executor, string>();
  return async (db, ...values) => {
    const text = texts.get(db);
    if (text !== undefined) return (await db.executeQuery<R>(CompiledQuery.raw(text, values))).rows;
    const query = build(db, ...values).compile();
    if (query.parameters.length !== values.length || query.parameters.some((p, i) => p !== values[i])) {
      throw new Error(`reusableQuery: the parameters of "${query.sql}" are not the values given, in order`);
    }
    texts.set(db, query.sql);
    return (await db.executeQuery(query)).rows;
  };
}

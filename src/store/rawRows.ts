/**
 * Rows of a better-sqlite3 statement built in JavaScript from its raw arrays.
 *
 * better-sqlite3 builds each row object in C++: a new empty object, then one property per column,
 * with the column's name turned into a V8 string again for every row. For a 21-column row that is
 * 4-6 of the 10-13 µs a primary-key SELECT costs (a micro-benchmark on this machine: 10.5-12.6 µs
 * per row as objects, 6.1-6.5 µs as raw arrays turned into objects here). The object is made by
 * a function generated once per statement from its column names, so every row of a statement has
 * the same shape, which V8 handles faster afterwards than the objects made property by property.
 *
 * The statement handed to `rawRunner` must be its caller's own: it is switched to raw mode for
 * good (statements shared with Kysely's driver, which expects objects, must not come here).
 */
import type SQLite from 'better-sqlite3';

export type RowsRunner = (values: readonly unknown[]) => unknown[];

/** A function running `stmt` with its values and answering its rows as objects (or [] for a write). */
export function rawRunner(stmt: SQLite.Statement): RowsRunner {
  if (!stmt.reader) {
    return (values) => {
      stmt.run(...values);
      return [];
    };
  }
  stmt.raw(true);
  const make = rowMaker(stmt.columns().map((c) => c.name));
  return (values) => {
    const rows = stmt.all(...values) as unknown[][];
    const out = new Array<unknown>(rows.length);
    for (let i = 0; i < rows.length; i++) out[i] = make(rows[i]);
    return out;
  };
}

/**
 * `(a) => ({ "col0": a[0], "col1": a[1], ... })`. A repeated name keeps the last column's value,
 * as better-sqlite3's own rows do. The names are JSON-quoted, so no name can be read as code; a
 * column named `__proto__` (which an object literal would take as the prototype) gets the plain
 * loop instead.
 */
export function rowMaker(names: readonly string[]): (a: unknown[]) => Record<string, unknown> {
  if (names.includes('__proto__')) {
    return (a) => {
      const row: Record<string, unknown> = {};
      for (let i = 0; i < names.length; i++) Object.defineProperty(row, names[i], { value: a[i], enumerable: true, writable: true, configurable: true });
      return row;
    };
  }
  const last = new Map<string, number>();
  names.forEach((name, i) => last.set(name, i));
  const fields = [...last].map(([name, i]) => `${JSON.stringify(name)}: a[${i}]`).join(', ');
  return new Function('a', `return { ${fields} };`) as (a: unknown[]) => Record<string, unknown>;
}

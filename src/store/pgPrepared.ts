/**
 * PostgreSQL: the statements compiled once (reusableQuery.ts) run as named prepared statements,
 * parsed and planned once per connection instead of on every call. Kysely sends every query as
 * an unnamed statement (Parse, Bind, Execute each time); for the engine's hot statements, most of
 * them one-row lookups and updates by key, parsing and planning is a large part of PostgreSQL's
 * work per statement.
 *
 * Only texts the store compiled once are named: their number is fixed by the code (a few hundred
 * at most, bounded here all the same), so the statements each connection keeps stay few. Any other
 * query (the WHERE grammar of the query operations, admin lists) goes unnamed, as before.
 */
import type pg from 'pg';

/** Upper bound of named texts: beyond it a text runs unnamed (the code compiles far fewer). */
const MAX_NAMED = 1000;

export class PreparedTexts {
  private readonly names = new Map<string, string>();

  /** A text compiled once: from now on it runs as a named statement on every connection. */
  add(text: string): void {
    if (this.names.has(text) || this.names.size >= MAX_NAMED) return;
    this.names.set(text, `waymark_${this.names.size}`);
  }

  /**
   * Make `client` run the named texts as prepared statements: a query given as (text, values),
   * as Kysely's driver calls it, goes as { name, text, values }. pg parses a name once per
   * connection and forgets it if the parse fails.
   */
  attach(client: pg.PoolClient): void {
    const names = this.names;
    const query = client.query as (...args: unknown[]) => unknown;
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      const [text, values] = args;
      if (args.length === 2 && typeof text === 'string' && Array.isArray(values)) {
        const name = names.get(text);
        if (name !== undefined) return query.call(this, { name, text, values });
      }
      return query.apply(this, args);
    } as typeof client.query;
  }
}

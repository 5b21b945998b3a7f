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
 *
 * Every query through an attached client also answers its rows in an array of its own, the
 * driver's left empty (ownRows below).
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
      const name = args.length === 2 && typeof text === 'string' && Array.isArray(values) ? names.get(text) : undefined;
      const answer = name !== undefined ? query.call(this, { name, text, values }) : query.apply(this, args);
      return answer instanceof Promise ? answer.then(ownRows) : answer;
    } as typeof client.query;
  }
}

/**
 * A query's result with its rows in an array of its own, made when they are handed over, and the
 * driver's array left empty. pg makes a result and its rows array when the statement is sent;
 * under load a young collection often runs (and promotes both to V8's old generation) before the
 * answer arrives, and a row then referenced from that old array survived every later young
 * collection, with its texts, until it was promoted in turn, and only a full collection freed it.
 * GetRegisterUsers' pages of ~31 KB of text all went that way: with ten clients reading 10,000
 * users, 340-370 MB promoted in 3 s and the RSS grew by 55-130 MB; with the rows moved out,
 * 8.6 MB promoted and +18-29 MB (docs/performance-log.md, fortieth round). The result object is
 * new too: the driver's may be old as well.
 */
function ownRows(result: unknown): unknown {
  const r = result as pg.QueryResult | undefined;
  if (!r || !Array.isArray(r.rows)) return result;
  const rows = r.rows.slice();
  r.rows.length = 0;
  return { command: r.command, rowCount: r.rowCount, oid: r.oid, fields: r.fields, rows };
}

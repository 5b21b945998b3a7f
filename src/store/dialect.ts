/**
 * What differs between the databases Waymark runs on, as capability values.
 * Engine code never asks which database it is on; store code asks these flags.
 */
export interface DialectCaps {
  name: 'sqlite' | 'postgres';
  /** Column type of an auto-incrementing integer primary key. */
  serialType: 'integer' | 'bigserial';
  /** Column type for millisecond timestamps. */
  timeType: 'integer' | 'bigint';
}

export const SQLITE_CAPS: DialectCaps = { name: 'sqlite', serialType: 'integer', timeType: 'integer' };

/** Immutability helpers for the parsed model: it is shared by every running instance. */

function refuse(): never {
  throw new TypeError('A process model is immutable.');
}

/** A Map whose set/delete/clear throw, frozen. Still `instanceof Map`. */
export function frozenMap<K, V>(entries: Iterable<readonly [K, V]>): ReadonlyMap<K, V> {
  const map = new Map<K, V>(entries);
  for (const method of ['set', 'delete', 'clear'] as const) {
    Object.defineProperty(map, method, { value: refuse, enumerable: false });
  }
  return Object.freeze(map);
}

/** Object.freeze on a plain object or array and everything plain inside it (Maps are left to frozenMap). */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !(value instanceof Map) && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

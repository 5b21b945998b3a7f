/**
 * Reading request bodies the way long-lived clients of this interface send them (WIRE.md §Bodies):
 * JSON with `application/json`, any `+json` type, or no Content-Type at all; property names
 * matched case-insensitively onto the operation's schema; booleans also as "true"/"false" strings.
 */
import type { FastifyInstance } from 'fastify';
import { WaymarkError } from '../domain/errors.ts';

export const BODY_LIMIT = 1024 * 1024;

export function registerJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    const type = String(request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
    if (type !== '' && !isJsonType(type)) {
      done(new WaymarkError('UnsupportedMediaType', `Content-Type ${type} is not accepted; send JSON (application/json).`), undefined);
      return;
    }
    const text = String(body);
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      const why = e instanceof SyntaxError ? e.message : 'it is nested too deeply';
      done(new WaymarkError('InvalidJson', `The body is not valid JSON: ${why}.`), undefined);
      return;
    }
    // PostgreSQL cannot store U+0000 in text; refusing it everywhere keeps both databases alike.
    if (text.includes('\\u0000') && containsNul(value)) {
      done(new WaymarkError('InvalidRequest', 'Strings must not contain the NUL character (U+0000).'), undefined);
      return;
    }
    done(null, value);
  });
}

function containsNul(value: unknown): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === 'string') {
      if (v.includes('\0')) return true;
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        if (k.includes('\0')) return true;
        stack.push(item);
      }
    }
  }
  return false;
}

function isJsonType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, { type: string | string[]; [k: string]: unknown }>;
  required?: string[];
}

/**
 * Rewrites a body onto the schema's property names: case-insensitive match, unknown properties
 * dropped, boolean strings turned into booleans. Only own, known keys are copied, so prototype
 * keys (`__proto__`, `constructor`) never reach the engine.
 */
export function canonicalBody(body: unknown, schema: JsonSchemaObject | undefined): Record<string, unknown> {
  if (!schema) return {};
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new WaymarkError('InvalidRequest', 'The body must be a JSON object.');
  }
  const byLower = namesOf(schema);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    const name = byLower.get(key.toLowerCase());
    if (!name || name in out) continue;
    out[name] = coerce(value, schema.properties[name].type);
  }
  return out;
}

/** Each schema's property names by their lower-case form, made once per schema, not per request. */
const NAMES = new WeakMap<JsonSchemaObject, Map<string, string>>();

function namesOf(schema: JsonSchemaObject): Map<string, string> {
  let byLower = NAMES.get(schema);
  if (!byLower) {
    byLower = new Map(Object.keys(schema.properties).map((name) => [name.toLowerCase(), name]));
    NAMES.set(schema, byLower);
  }
  return byLower;
}

function coerce(value: unknown, type: string | string[]): unknown {
  const types = Array.isArray(type) ? type : [type];
  if (types.includes('boolean') && typeof value === 'string') {
    const v = value.trim().toLowerCase();
    if (v === 'true') return true;
    if (v === 'false') return false;
  }
  return value;
}

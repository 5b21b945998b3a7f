/**
 * User names of the form `DOMAIN\user` (WIRE.md §Values): exactly one backslash, both parts
 * non-empty, no control characters. Compared case-insensitively, returned as registered.
 */

/** The longest user name accepted, as for every name and id on the wire. */
export const MAX_USER_NAME_LENGTH = 256;

/** The parts of a qualified user name; `full` is the name exactly as given. */
export interface UserName {
  domain: string;
  user: string;
  full: string;
}

const CONTROL_CHARACTER = /[\u0000-\u001F\u007F-\u009F]/;

/**
 * The parts of `DOMAIN\user`, or null when the value is not such a name: not a string, longer
 * than 256 characters, holding no or several backslashes, a control character, an empty part,
 * or a part that starts or ends with white space.
 */
export function parseUserName(s: unknown): UserName | null {
  if (typeof s !== 'string' || s.length > MAX_USER_NAME_LENGTH || CONTROL_CHARACTER.test(s)) return null;
  const slash = s.indexOf('\\');
  if (slash < 0 || s.indexOf('\\', slash + 1) >= 0) return null;
  const domain = s.slice(0, slash);
  const user = s.slice(slash + 1);
  if (!isCleanPart(domain) || !isCleanPart(user)) return null;
  return { domain, user, full: s };
}

function isCleanPart(part: string): boolean {
  return part !== '' && part.trim() === part;
}

/** The key two user names are compared by: Unicode NFC, lower-case (`LOCAL\Alice` and `local\alice` are one user). */
export function userKey(name: string): string {
  return name.normalize('NFC').toLowerCase();
}

/**
 * WFEvent.ParamsXml (WIRE.md §Events): `<WFEvent><param name="..." value="..."/>...</WFEvent>`,
 * no XML declaration, attribute values escaped, booleans `True`/`False`.
 */

/** A value a param may carry; null and undefined are written as the empty string. */
export type ParamValue = string | number | boolean | null | undefined;

/**
 * Characters that need work in an attribute value: the five markup characters, tab/LF/CR
 * (which attribute-value normalisation would turn into spaces) and everything XML 1.0 forbids:
 * other C0 controls, U+FFFE, U+FFFF and unpaired surrogates.
 */
const NEEDS_ESCAPE =
  /[&<>"'\x00-\x1F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source, 'g');

const REPLACEMENTS: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&apos;',
  '\t': '&#9;',
  '\n': '&#10;',
  '\r': '&#13;',
};

/** An attribute value safe between double quotes; characters XML 1.0 does not allow are dropped. */
export function escapeXmlAttribute(text: string): string {
  if (!NEEDS_ESCAPE.test(text)) return text;
  return text.replace(ESCAPE_ALL, (ch) => REPLACEMENTS[ch] ?? '');
}

/** The text of a param value: `True`/`False` for booleans, '' for null/undefined. */
function paramText(value: ParamValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return typeof value === 'string' ? value : String(value);
}

/** The ParamsXml of an event, params in the order given. */
export function buildParamsXml(params: ReadonlyArray<readonly [string, ParamValue]>): string {
  let xml = '<WFEvent>';
  for (const [name, value] of params) {
    xml += `<param name="${escapeXmlAttribute(name)}" value="${escapeXmlAttribute(paramText(value))}"/>`;
  }
  return xml + '</WFEvent>';
}

const DECLARATION = /^\s*<\?xml[^?]*\?>/;
const DOCUMENT = /^\s*(?:<WFEvent\s*\/>|<WFEvent\s*>([\s\S]*)<\/WFEvent\s*>)\s*$/;
const PARAM = /<param\b((?:\s+[A-Za-z_][\w.-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*\/>/y;
const ATTRIBUTE = /([A-Za-z_][\w.-]*)\s*=\s*(?:"([^"<]*)"|'([^'<]*)')/g;
const WHITESPACE = /\s*/y;
const ENTITY = /&(?:#x([0-9a-fA-F]+)|#(\d+)|(amp|lt|gt|quot|apos));/g;
const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * The [name, value] pairs of a ParamsXml document, in document order, entities decoded.
 * Reads what buildParamsXml writes, and tolerates an XML declaration, whitespace between
 * elements, single quotes and either attribute order. Throws an Error for anything else.
 */
export function parseParamsXml(xml: string): Array<[string, string]> {
  const document = DOCUMENT.exec(xml.replace(DECLARATION, ''));
  if (!document) throw new Error('ParamsXml must be a <WFEvent> element holding <param name="..." value="..."/> elements.');
  const body = document[1] ?? '';
  const params: Array<[string, string]> = [];
  let position = skipWhitespace(body, 0);
  while (position < body.length) {
    PARAM.lastIndex = position;
    const match = PARAM.exec(body);
    if (!match) throw new Error(`ParamsXml has unexpected content at character ${position}: ${body.slice(position, position + 40)}`);
    params.push(readParam(match[1]));
    position = skipWhitespace(body, PARAM.lastIndex);
  }
  return params;
}

function skipWhitespace(text: string, from: number): number {
  WHITESPACE.lastIndex = from;
  WHITESPACE.exec(text);
  return WHITESPACE.lastIndex;
}

function readParam(attributeText: string): [string, string] {
  const attributes = new Map<string, string>();
  for (const m of attributeText.matchAll(ATTRIBUTE)) attributes.set(m[1], decodeEntities(m[2] ?? m[3]));
  const name = attributes.get('name');
  if (name === undefined) throw new Error('ParamsXml has a <param> element without a name attribute.');
  return [name, attributes.get('value') ?? ''];
}

function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(ENTITY, (whole, hex: string | undefined, dec: string | undefined, named: string | undefined) => {
    if (named) return NAMED_ENTITIES[named];
    const codePoint = hex !== undefined ? parseInt(hex, 16) : Number(dec);
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
  });
}

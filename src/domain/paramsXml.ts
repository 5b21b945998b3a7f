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

/*
 * Stored form. An event row keeps its ParamsXml "packed" (the column params_xml_packed): a param
 * whose value is one of the row's own columns is a single reference letter, the others are
 * literals `"name>value"` holding the escaped attribute texts (which never contain `"`, `<` or
 * `>`). `PAHW` is the whole ParamsXml of an AssignWorkItem event (4 bytes instead of 266). A
 * document that has no such form (only possible in rows written before the packed form) is kept
 * verbatim after a `!`. The empty string is `<WFEvent></WFEvent>`.
 */

/** The columns of an event row that params may refer to (high_priority: 1 renders `True`). */
export interface ParamsXmlColumns {
  readonly proc_inst_id: string;
  readonly activity_inst_id: string;
  readonly high_priority: number;
  readonly work_item_id: string;
  readonly source_work_item_id: string;
  readonly user_id: string;
  readonly proc_def_id: string;
  readonly proc_inst_name: string;
  readonly parent_proc_inst_id: string;
}

interface Reference {
  readonly code: string;
  readonly name: string;
  readonly column: keyof ParamsXmlColumns;
}

/** Reference letters: a param of this name whose value equals the column is stored as the letter. */
const REFERENCES: readonly Reference[] = [
  { code: 'P', name: 'ProcInstID', column: 'proc_inst_id' },
  { code: 'A', name: 'ActivityInstID', column: 'activity_inst_id' },
  { code: 'H', name: 'HighPriority', column: 'high_priority' },
  { code: 'W', name: 'WorkItemID', column: 'work_item_id' },
  { code: 'S', name: 'SourceWorkItemID', column: 'source_work_item_id' },
  { code: 'U', name: 'UserID', column: 'user_id' },
  { code: 'I', name: 'Initiator', column: 'user_id' },
  { code: 'D', name: 'ProcDefID', column: 'proc_def_id' },
  { code: 'N', name: 'ProcInstName', column: 'proc_inst_name' },
  { code: 'X', name: 'SuperProcInstID', column: 'parent_proc_inst_id' },
];
const BY_CODE = new Map(REFERENCES.map((r) => [r.code, r]));
const BY_NAME = new Map(REFERENCES.map((r) => [r.name, r]));
const VERBATIM = '!';

/** The escaped attribute text a reference stands for in this row. */
function referencedText(ref: Reference, row: ParamsXmlColumns): string {
  const value = row[ref.column];
  return escapeXmlAttribute(typeof value === 'number' ? (value === 1 ? 'True' : 'False') : value);
}

/** One param, from its escaped name and value: a reference letter when the row holds the value. */
function packParam(name: string, value: string, row: ParamsXmlColumns): string {
  const ref = BY_NAME.get(name);
  return ref !== undefined && referencedText(ref, row) === value ? ref.code : `"${name}>${value}"`;
}

/** The stored form of the ParamsXml that buildParamsXml(params) writes, for the event row `row`. */
export function packParamsXml(params: ReadonlyArray<readonly [string, ParamValue]>, row: ParamsXmlColumns): string {
  let packed = '';
  for (const [name, value] of params) packed += packParam(escapeXmlAttribute(name), escapeXmlAttribute(paramText(value)), row);
  return packed;
}

const STORED_DOCUMENT = /^<WFEvent>((?:<param name="[^"<>]*" value="[^"<>]*"\/>)*)<\/WFEvent>$/;
const STORED_PARAM = /<param name="([^"<>]*)" value="([^"<>]*)"\/>/g;

/**
 * The stored form of a ParamsXml document kept as text (rows written before the packed form),
 * such that renderParamsXml gives back exactly `xml`: verbatim when it is not in the shape
 * buildParamsXml writes.
 */
export function packStoredParamsXml(xml: string, row: ParamsXmlColumns): string {
  const document = STORED_DOCUMENT.exec(xml);
  if (document) {
    let packed = '';
    for (const m of document[1].matchAll(STORED_PARAM)) packed += packParam(m[1], m[2], row);
    if (renderParamsXml(packed, row) === xml) return packed;
  }
  return VERBATIM + xml;
}

/** The ParamsXml of an event row from its stored form (the inverse of packParamsXml). */
export function renderParamsXml(packed: string, row: ParamsXmlColumns): string {
  if (packed.startsWith(VERBATIM)) return packed.slice(1);
  let xml = '<WFEvent>';
  let i = 0;
  while (i < packed.length) {
    if (packed[i] === '"') {
      const separator = packed.indexOf('>', i + 1);
      const end = packed.indexOf('"', i + 1);
      if (separator < 0 || end < separator) throw new Error(`Stored ParamsXml has a malformed literal at character ${i}: ${packed}`);
      xml += `<param name="${packed.slice(i + 1, separator)}" value="${packed.slice(separator + 1, end)}"/>`;
      i = end + 1;
    } else {
      const ref = BY_CODE.get(packed[i]);
      if (ref === undefined) throw new Error(`Stored ParamsXml has an unknown reference ${JSON.stringify(packed[i])}: ${packed}`);
      xml += `<param name="${ref.name}" value="${referencedText(ref, row)}"/>`;
      i++;
    }
  }
  return xml + '</WFEvent>';
}

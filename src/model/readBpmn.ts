/**
 * Step one of parsing: BPMN XML text -> bpmn-moddle's object tree, or a readable
 * InvalidProcessDefinition. Nothing here knows which elements Waymark runs.
 */
import { BpmnModdle, type ModdleReference } from 'bpmn-moddle';
import type { BpmnElement } from './bpmnElement.ts';
import { EXTENSION_PREFIXES } from './extensionAttributes.ts';
import { invalid } from './invalid.ts';

/** Largest definition accepted, in UTF-8 bytes. Real process models are a few dozen KiB. */
export const MAX_DEFINITION_BYTES = 1024 * 1024;

export interface BpmnDocument {
  definitions: BpmnElement;
  /** Every id reference in the file, resolved or not (unresolved ones name ids that do not exist). */
  references: readonly ModdleReference[];
}

export async function readBpmn(xml: unknown): Promise<BpmnDocument> {
  if (typeof xml !== 'string') {
    throw invalid('The process definition must be BPMN 2.0 XML text.');
  }
  if (xml.trim() === '') {
    throw invalid('The process definition is empty: expected BPMN 2.0 XML.');
  }
  const bytes = Buffer.byteLength(xml, 'utf8');
  if (bytes > MAX_DEFINITION_BYTES) {
    throw invalid(
      `The process definition is ${bytes} bytes long; Waymark accepts at most ${MAX_DEFINITION_BYTES} bytes (1 MiB).`,
    );
  }
  // BPMN files never need a DTD; refusing one rules out entity tricks whatever the XML parser does.
  if (/<!DOCTYPE/i.test(xml)) {
    throw invalid('The process definition contains a <!DOCTYPE> declaration, which BPMN 2.0 files do not use and Waymark does not accept.');
  }

  let result;
  try {
    result = await new BpmnModdle({}, { nsMap: { ...EXTENSION_PREFIXES } }).fromXML(xml);
  } catch (e) {
    const error = e as { message?: unknown; warnings?: { message: string }[] };
    const headline = readable(typeof error.message === 'string' ? error.message : String(e));
    const first = error.warnings?.[0]?.message;
    const cause = first && readable(first) !== headline ? ` (${readable(first)})` : '';
    throw invalid(`The process definition is not valid BPMN 2.0 XML: ${headline}${cause}.`);
  }

  // moddle drops elements it cannot read and keeps going; running a model with silently
  // missing parts would be worse than refusing it.
  for (const warning of result.warnings) {
    const duplicate = /nested error: duplicate ID <([^>]*)>/.exec(warning.message);
    if (duplicate) {
      throw invalid(`The id ${duplicate[1]} is used by more than one element (${position(warning.message)}); every id in a BPMN file must be unique.`);
    }
    if (warning.message.startsWith('unparsable content')) {
      throw invalid(`The process definition is not valid BPMN 2.0: ${readable(warning.message)}.`);
    }
  }

  const definitions = result.rootElement as BpmnElement | undefined;
  if (!definitions || definitions.$type !== 'bpmn:Definitions') {
    throw invalid('The process definition is not BPMN 2.0: its root element is not <definitions>.');
  }
  return { definitions, references: result.references };
}

/**
 * moddle messages look like "unparsable content <x> detected\n\tline: 2\n\tcolumn: 4\n\tnested error: ...",
 * with 0-based line and column. Turn that into one line with 1-based positions.
 */
function readable(message: string): string {
  const [headline = '', ...rest] = message.split('\n').map((line) => line.trim());
  const nested = rest.find((line) => line.startsWith('nested error:'))?.slice('nested error:'.length).trim();
  const where = rest.some((line) => line.startsWith('line:')) ? position(message) : '';
  const details = [where, nested].filter(Boolean).join(': ');
  return details ? `${headline} (${details})` : headline;
}

function position(message: string): string {
  const line = /\bline: (\d+)/.exec(message);
  const column = /\bcolumn: (\d+)/.exec(message);
  if (!line) return 'position unknown';
  return column ? `line ${Number(line[1]) + 1}, column ${Number(column[1]) + 1}` : `line ${Number(line[1]) + 1}`;
}

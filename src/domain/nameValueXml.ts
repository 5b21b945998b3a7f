/**
 * The XML form of custom attributes that GetCustomAttrsbyID answers inside its JSON string
 * (api-facts §2.10): an `ArrayOfNameValue` as .NET's XmlSerializer writes it, every value typed
 * `xsd:string`.
 */
import { escapeXmlAttribute } from './paramsXml.ts';

const OPEN =
  '<?xml version="1.0" encoding="utf-8"?>' +
  '<ArrayOfNameValue xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:xsd="http://www.w3.org/2001/XMLSchema">';

export function buildNameValueXml(attributes: ReadonlyArray<{ name: string; value: string }>): string {
  let xml = OPEN;
  for (const a of attributes) {
    xml += `<NameValue><Name>${escapeXmlAttribute(a.name)}</Name><Value xsi:type="xsd:string">${escapeXmlAttribute(a.value)}</Value></NameValue>`;
  }
  return `${xml}</ArrayOfNameValue>`;
}

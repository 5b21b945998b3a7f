/** waymark:expectedTime / waymark:businessTime on a human task -> ExpectedTime. */
import type { BpmnElement } from './bpmnElement.ts';
import { describe } from './bpmnElement.ts';
import type { AttributesOf } from './extensionAttributes.ts';
import { booleanAttribute } from './extensionAttributes.ts';
import { invalid } from './invalid.ts';
import type { ExpectedTime } from './ProcessModel.ts';

export const TIME_UNITS = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;

export function parseExpectedTime(el: BpmnElement, waymark: AttributesOf): ExpectedTime | undefined {
  const expected = waymark.get('expectedTime');
  const businessTime = booleanAttribute(el, waymark.get('businessTime'));
  if (!expected) {
    if (businessTime !== undefined) {
      const name = waymark.get('businessTime')!.qualifiedName;
      throw invalid(`${describe(el)} has ${name} but no expectedTime: business time only applies to an expected time such as expectedTime="2 DAY".`);
    }
    return undefined;
  }
  const match = /^(\d+)\s*([A-Za-z]+)$/.exec(expected.value.trim());
  const length = match ? Number(match[1]) : NaN;
  const unit = match ? match[2].toUpperCase() : '';
  if (!match || !Number.isSafeInteger(length) || length <= 0 || !(TIME_UNITS as readonly string[]).includes(unit)) {
    throw invalid(
      `${describe(el)} has ${expected.qualifiedName}="${expected.value}": write a positive whole number and a unit, ` +
        `e.g. "2 DAY"; the units are ${TIME_UNITS.join(', ')}.`,
    );
  }
  return { length, unit, businessTime: businessTime ?? false };
}

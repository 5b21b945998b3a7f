import { addCalendarTime } from '../domain/calendar.ts';
import type { TimeUnit } from '../domain/timeUnits.ts';
import type { EngineDeps } from './context.ts';

/** DueDate of a task expected to take `length unit`, counted from `start` (business time if asked). */
export function dueDateOf(
  deps: EngineDeps,
  start: number,
  t: { length: number; unit: string; businessTime: boolean },
): number {
  const unit = t.unit as TimeUnit;
  return t.businessTime ? deps.calendar.addBusinessTime(start, t.length, unit) : addCalendarTime(start, t.length, unit, deps.timeZone);
}

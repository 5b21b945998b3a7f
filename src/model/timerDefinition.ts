/**
 * timerEventDefinition -> TimerDefinition, checked at deploy time: exactly one of timeDuration or
 * timeDate, an ISO 8601 value that parses (or a FEEL expression written with a leading `=`).
 * Repeating timers (timeCycle) are refused.
 */
import { DateTime, Duration } from 'luxon';
import type { BpmnElement } from './bpmnElement.ts';
import { describe } from './bpmnElement.ts';
import { feelSyntaxError } from './feel.ts';
import { invalid } from './invalid.ts';
import type { TimerDefinition } from './ProcessModel.ts';

export function parseTimerDefinition(el: BpmnElement, definition: BpmnElement): TimerDefinition {
  if (definition.timeCycle) {
    throw invalid(`${describe(el)} has a timeCycle, which this release does not run: a timer fires once, after a timeDuration or at a timeDate.`);
  }
  const present = (['timeDuration', 'timeDate'] as const).filter((type) => definition[type]);
  if (present.length !== 1) {
    throw invalid(
      present.length === 0
        ? `${describe(el)} has a timerEventDefinition without a time: give it a timeDuration (e.g. PT2H) or a timeDate (e.g. 2026-01-31T17:00:00Z).`
        : `${describe(el)} has both a timeDuration and a timeDate; a timer needs exactly one of them.`,
    );
  }
  const type = present[0];
  const value = definition[type]!.body?.trim() ?? '';
  if (value === '') throw invalid(`${describe(el)} has an empty ${type}.`);
  if (value.startsWith('${') || value.startsWith('#{')) {
    throw invalid(`${describe(el)} has the ${type} "${value}": Waymark evaluates FEEL, written with a leading =, e.g. =reminderDelay.`);
  }
  if (value.startsWith('=')) {
    const error = feelSyntaxError(value.slice(1));
    if (error) throw invalid(`${describe(el)} has the ${type} "${value}", but ${error}.`);
    return { type, value };
  }
  const problem = type === 'timeDuration' ? durationProblem(value) : dateProblem(value);
  if (problem) throw invalid(`${describe(el)} has the ${type} "${value}", which ${problem}.`);
  return { type, value };
}

/** Why `text` is not a usable ISO 8601 duration, or undefined when it is one. */
export function durationProblem(text: string): string | undefined {
  const duration = Duration.fromISO(text);
  if (!duration.isValid) return 'is not an ISO 8601 duration such as PT15M, PT2H or P3D';
  if (Object.values(duration.toObject()).some((n) => n !== undefined && n < 0)) return 'is negative';
  return undefined;
}

/** Why `text` is not a usable ISO 8601 date-time, or undefined when it is one. */
export function dateProblem(text: string): string | undefined {
  return DateTime.fromISO(text, { setZone: true }).isValid ? undefined : 'is not an ISO 8601 date-time such as 2026-01-31T17:00:00Z';
}

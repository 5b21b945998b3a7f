import { WaymarkError } from '../domain/errors.ts';

/** The one error src/model throws: the definition cannot be deployed, and `detail` says why. */
export function invalid(detail: string): WaymarkError {
  return new WaymarkError('InvalidProcessDefinition', detail);
}

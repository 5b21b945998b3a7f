import { insertAudit } from '../../store/queries/audit.ts';
import type { Executor } from '../../store/Store.ts';
import type { Caller } from '../accessPolicy.ts';

/** Admin changes are audited like events (category 7 is used for user and role administration). */
export const ADMIN_CATEGORY = 7;

export function auditAdmin(db: Executor, caller: Caller, now: number, objectId: string, purpose: string, description: string): Promise<void> {
  return insertAudit(db, {
    category: ADMIN_CATEGORY,
    date_occurred: now,
    description,
    object_id: objectId,
    object_info: '',
    performer: caller.userName,
    purpose,
    status: 0,
    event_id: null,
  });
}

import { WaymarkError } from '../domain/errors.ts';
import { findUser } from '../store/queries/users.ts';
import type { Executor } from '../store/Store.ts';

/** The registered spelling of a user's name, or UserNotFound (404). */
export async function registeredUser(db: Executor, key: string, name: string): Promise<string> {
  const user = await findUser(db, key);
  if (!user) throw new WaymarkError('UserNotFound', `User ${name} is not registered.`);
  return user.user_name;
}

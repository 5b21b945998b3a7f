/** Starts the floor (e2eFloorServer.ts) on a fresh SQLite file in `dir`, with `seedItems` New work items pooled to `users[0]`. */
import path from 'node:path';
import { startChildServer, type BareServer } from './bare.ts';

export function startE2eFloor(dir: string, defId: string, users: string[], password: string, seedItems?: number): Promise<BareServer> {
  return startChildServer('e2eFloorServer.ts', { dbPath: path.join(dir, 'floor.db'), defId, users, password, seedItems });
}

/** The id of the floor's seeded work item `i` (32 characters, as Waymark's ids). */
export function floorItemId(i: number): string {
  return `F${String(i).padStart(31, '0')}`;
}

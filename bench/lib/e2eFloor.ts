/** Starts the end-to-end floor (e2eFloorServer.ts) on a fresh SQLite file in `dir`. */
import path from 'node:path';
import { startChildServer, type BareServer } from './bare.ts';

export function startE2eFloor(dir: string, defId: string, users: string[], password: string): Promise<BareServer> {
  return startChildServer('e2eFloorServer.ts', { dbPath: path.join(dir, 'floor.db'), defId, users, password });
}

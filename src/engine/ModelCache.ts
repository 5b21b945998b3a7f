/**
 * Parsed process models by DefID. Definitions are immutable once stored, so a parsed model never
 * goes stale; the cache only bounds memory.
 */
import type { ProcessModel } from '../model/ProcessModel.ts';
import { parseProcessModel } from '../model/parseProcessModel.ts';
import type { Executor } from '../store/Store.ts';
import { findDefinition } from '../store/queries/definitions.ts';

const MAX_MODELS = 500;

export class ModelCache {
  private readonly models = new Map<string, Promise<ProcessModel>>();

  async get(db: Executor, defId: string): Promise<ProcessModel> {
    let model = this.models.get(defId);
    if (!model) {
      model = this.load(db, defId);
      this.remember(defId, model);
      model.catch(() => this.models.delete(defId));
    }
    return model;
  }

  /** Store a model just parsed at deploy time. */
  put(defId: string, model: ProcessModel): void {
    this.remember(defId, Promise.resolve(model));
  }

  private async load(db: Executor, defId: string): Promise<ProcessModel> {
    const def = await findDefinition(db, defId);
    if (!def) throw new Error(`Process definition ${defId} is missing from the store.`);
    return parseProcessModel(def.xml);
  }

  private remember(defId: string, model: Promise<ProcessModel>): void {
    if (this.models.size >= MAX_MODELS) {
      const oldest = this.models.keys().next().value;
      if (oldest !== undefined) this.models.delete(oldest);
    }
    this.models.set(defId, model);
  }
}

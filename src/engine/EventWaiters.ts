/** In-process wake-ups for `Prefer: wait`: resolves when an event reaches a final status. */
export class EventWaiters {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Resolves true when notified, false after `ms`. */
  wait(eventId: string, ms: number): { done: Promise<boolean>; cancel: () => void } {
    let cancel = () => {};
    const done = new Promise<boolean>((resolve) => {
      const set = this.waiting.get(eventId) ?? new Set();
      const wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
      const timer = setTimeout(() => {
        set.delete(wake);
        if (set.size === 0) this.waiting.delete(eventId);
        resolve(false);
      }, ms);
      set.add(wake);
      this.waiting.set(eventId, set);
      cancel = () => {
        clearTimeout(timer);
        set.delete(wake);
        if (set.size === 0) this.waiting.delete(eventId);
        resolve(false);
      };
    });
    return { done, cancel };
  }

  notify(eventIds: Iterable<string>): void {
    for (const id of eventIds) {
      const set = this.waiting.get(id);
      if (!set) continue;
      this.waiting.delete(id);
      for (const wake of set) wake();
    }
  }

  get size(): number {
    return this.waiting.size;
  }
}

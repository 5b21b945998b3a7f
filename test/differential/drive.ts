/**
 * Drives two runs of one model in lockstep and records what each reached after every move. Moves
 * are chosen from the first run's state (the engine under test) and made in both; the driver
 * stops at the first divergence of open tasks or timers, since later moves would mean nothing.
 */
import type { Attributes, Run } from './runners.ts';

export type Move = { complete: string; set?: Attributes } | 'timer';

export interface Trace {
  /** Per move (the start first): the sorted elements reached. */
  steps: string[][];
  /** Per move: the open tasks (and whether a timer waits) after it. */
  states: string[];
  /** The state when the runs stopped. */
  end: string;
}

/** Picks the next move; `undefined` ends the run. */
export type Policy = (step: number, tasks: string[], timer: number | undefined) => Move | undefined;

export const MAX_MOVES = 60;

export async function drive(a: Run, b: Run, policy: Policy): Promise<[Trace, Trace]> {
  const ta: Trace = { steps: [await a.drain()], states: [], end: '' };
  const tb: Trace = { steps: [await b.drain()], states: [], end: '' };
  for (let step = 0; step < MAX_MOVES; step++) {
    const [tasksA, tasksB] = [await a.openTasks(), await b.openTasks()];
    const [timerA, timerB] = [await a.nextTimer(), await b.nextTimer()];
    ta.end = describeState(tasksA, timerA);
    tb.end = describeState(tasksB, timerB);
    ta.states.push(ta.end);
    tb.states.push(tb.end);
    if (ta.end !== tb.end) break;
    const move = policy(step, tasksA, timerA);
    if (move === undefined) break;
    if (move === 'timer') {
      await a.fireTimersUntil(timerA!);
      await b.fireTimersUntil(timerB!);
    } else {
      await a.complete(move.complete, move.set);
      await b.complete(move.complete, move.set);
    }
    ta.steps.push(await a.drain());
    tb.steps.push(await b.drain());
  }
  return [ta, tb];
}

function describeState(tasks: string[], timer: number | undefined): string {
  return `tasks [${tasks.join(', ')}]${timer === undefined ? '' : ', a timer waits'}`;
}

/** Default moves: a task (picked by `random`) while there is one, else the next timer. */
export function randomPolicy(random: () => number, timerShare = 0.35): Policy {
  return (_step, tasks, timer) => {
    if (tasks.length === 0 && timer === undefined) return undefined;
    if (timer !== undefined && (tasks.length === 0 || random() < timerShare)) return 'timer';
    return { complete: tasks[Math.floor(random() * tasks.length)] };
  };
}

/** The scripted moves first, then the first open task or the next timer. */
export function scriptedPolicy(script: Move[]): Policy {
  return (step, tasks, timer) => {
    if (step < script.length) return script[step];
    if (tasks.length > 0) return { complete: tasks[0] };
    return timer === undefined ? undefined : 'timer';
  };
}

/**
 * Random well-formed process models of the elements both engines run: block-structured graphs of
 * user tasks, pass-through service tasks, timer catch events, exclusive splits and merges,
 * parallel forks and joins, embedded sub-processes, boundary timers (interrupting or not), and
 * inclusive splits whose branches meet at an exclusive merge. A seeded generator: seed n always
 * gives the same model.
 *
 * Inclusive joins are left out on purpose: bpmn-engine does not synchronise at a converging
 * inclusive gateway (see KNOWN_DIVERGENCES in differential.test.ts), so a generated inclusive join
 * would only measure that known gap.
 */

/** mulberry32: a small, good-enough seeded PRNG. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Block =
  | { t: 'task' }
  | { t: 'service' }
  | { t: 'wait'; duration: string }
  | { t: 'seq'; items: Block[] }
  | { t: 'xor'; branches: { cond?: string; block: Block }[] }
  | { t: 'and'; branches: Block[] }
  | { t: 'or'; branches: { cond?: string; block: Block }[] }
  | { t: 'sub'; body: Block }
  | { t: 'boundary'; duration: string; interrupting: boolean; handler: Block };

export interface GeneratedModel {
  processId: string;
  xml: string;
  attributes: Record<string, boolean | number>;
}

const DURATIONS = ['PT1H', 'PT2H', 'PT3H', 'PT5H', 'PT8H'];
const CONDITIONS = ['v1 = true', 'v1 = false', 'v2 = true', 'v3 = true', 'n > 3', 'n > 6', 'n <= 5', 'not(v2)'];

class Builder {
  constructor(private readonly random: () => number) {}

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.random() * list.length)];
  }

  chance(p: number): boolean {
    return this.random() < p;
  }

  block(depth: number, allowOr: boolean): Block {
    const roll = this.random();
    if (depth <= 0 || roll < 0.3) return this.leaf();
    if (roll < 0.45) return { t: 'seq', items: [this.block(depth - 1, false), this.block(depth - 1, false)] };
    if (roll < 0.6) return { t: 'xor', branches: this.conditioned(depth) };
    if (roll < 0.75) return { t: 'and', branches: [this.block(depth - 1, false), this.block(depth - 1, false), ...(this.chance(0.3) ? [this.leaf()] : [])] };
    if (roll < 0.85) return { t: 'sub', body: this.block(depth - 1, false) };
    if (roll < 0.95 || !allowOr) return { t: 'boundary', duration: this.pick(DURATIONS), interrupting: this.chance(0.5), handler: this.block(depth - 2, false) };
    return { t: 'or', branches: this.conditioned(depth) };
  }

  /**
   * Two or three branches with conditions; the last has none: the default flow of an exclusive
   * split, a flow an inclusive split always takes. So a token always finds a way on.
   */
  private conditioned(depth: number): { cond?: string; block: Block }[] {
    const n = this.chance(0.4) ? 3 : 2;
    return Array.from({ length: n }, (_, i) => ({
      ...(i < n - 1 ? { cond: this.pick(CONDITIONS) } : {}),
      block: this.block(depth - 1, false),
    }));
  }

  private leaf(): Block {
    const roll = this.random();
    if (roll < 0.6) return { t: 'task' };
    if (roll < 0.8) return { t: 'service' };
    return { t: 'wait', duration: this.pick(DURATIONS) };
  }
}

interface Piece {
  entry: string;
  exit: string;
}

/** Writes a block tree as BPMN elements and flows. */
class Writer {
  private counter = 0;
  private flowCount = 0;
  readonly parts: string[] = [];

  id(prefix: string): string {
    this.counter += 1;
    return `${prefix}${this.counter}`;
  }

  flow(from: string, to: string, cond?: string, out: string[] = this.parts): string {
    this.flowCount += 1;
    const id = `F${this.flowCount}`;
    const body = cond === undefined ? '' : `<bpmn:conditionExpression xsi:type="bpmn:tFormalExpression">${escape(cond)}</bpmn:conditionExpression>`;
    out.push(`<bpmn:sequenceFlow id="${id}" sourceRef="${from}" targetRef="${to}">${body}</bpmn:sequenceFlow>`);
    return id;
  }

  write(block: Block, out: string[]): Piece {
    switch (block.t) {
      case 'task':
        return this.single(out, 'T', (id) => `<bpmn:userTask id="${id}" camunda:assignee="LOCAL\\admin" />`);
      case 'service':
        return this.single(out, 'Svc', (id) => `<bpmn:serviceTask id="${id}" />`);
      case 'wait':
        return this.single(out, 'W', (id) => `<bpmn:intermediateCatchEvent id="${id}">${timerXml(block.duration)}</bpmn:intermediateCatchEvent>`);
      case 'seq': {
        const pieces = block.items.map((b) => this.write(b, out));
        for (let i = 1; i < pieces.length; i++) this.flow(pieces[i - 1].exit, pieces[i].entry, undefined, out);
        return { entry: pieces[0].entry, exit: pieces[pieces.length - 1].exit };
      }
      case 'xor':
      case 'or':
        return this.decision(block, out);
      case 'and':
        return this.parallel(block.branches, out);
      case 'sub':
        return this.sub(block.body, out);
      case 'boundary':
        return this.boundary(block, out);
    }
  }

  private single(out: string[], prefix: string, xml: (id: string) => string): Piece {
    const id = this.id(prefix);
    out.push(xml(id));
    return { entry: id, exit: id };
  }

  private decision(block: Extract<Block, { t: 'xor' | 'or' }>, out: string[]): Piece {
    const split = this.id(block.t === 'xor' ? 'X' : 'O');
    const merge = `${split}m`;
    const splitIndex = out.length;
    out.push('');
    out.push(`<bpmn:exclusiveGateway id="${merge}" />`);
    let defaultFlow: string | undefined;
    for (const branch of block.branches) {
      const piece = this.write(branch.block, out);
      const flowId = this.flow(split, piece.entry, branch.cond, out);
      if (branch.cond === undefined && block.t === 'xor') defaultFlow = flowId;
      this.flow(piece.exit, merge, undefined, out);
    }
    const kind = block.t === 'xor' ? 'exclusiveGateway' : 'inclusiveGateway';
    out[splitIndex] = `<bpmn:${kind} id="${split}"${defaultFlow ? ` default="${defaultFlow}"` : ''} />`;
    return { entry: split, exit: merge };
  }

  private parallel(branches: Block[], out: string[]): Piece {
    const fork = this.id('P');
    const join = `${fork}j`;
    out.push(`<bpmn:parallelGateway id="${fork}" />`, `<bpmn:parallelGateway id="${join}" />`);
    for (const branch of branches) {
      const piece = this.write(branch, out);
      this.flow(fork, piece.entry, undefined, out);
      this.flow(piece.exit, join, undefined, out);
    }
    return { entry: fork, exit: join };
  }

  private sub(body: Block, out: string[]): Piece {
    const id = this.id('Sub');
    const inner: string[] = [];
    const start = `${id}s`;
    const end = `${id}e`;
    inner.push(`<bpmn:startEvent id="${start}" />`, `<bpmn:endEvent id="${end}" />`);
    const piece = this.write(body, inner);
    this.flow(start, piece.entry, undefined, inner);
    this.flow(piece.exit, end, undefined, inner);
    out.push(`<bpmn:subProcess id="${id}">${inner.join('')}</bpmn:subProcess>`);
    return { entry: id, exit: id };
  }

  private boundary(block: Extract<Block, { t: 'boundary' }>, out: string[]): Piece {
    const task = this.id('T');
    const event = `${task}b`;
    out.push(`<bpmn:userTask id="${task}" camunda:assignee="LOCAL\\admin" />`);
    out.push(`<bpmn:boundaryEvent id="${event}" attachedToRef="${task}"${block.interrupting ? '' : ' cancelActivity="false"'}>${timerXml(block.duration)}</bpmn:boundaryEvent>`);
    const handler = this.write(block.handler, out);
    this.flow(event, handler.entry, undefined, out);
    if (!block.interrupting) {
      const end = this.id('E');
      out.push(`<bpmn:endEvent id="${end}" />`);
      this.flow(handler.exit, end, undefined, out);
      return { entry: task, exit: task };
    }
    const merge = `${task}m`;
    out.push(`<bpmn:exclusiveGateway id="${merge}" />`);
    this.flow(task, merge, undefined, out);
    this.flow(handler.exit, merge, undefined, out);
    return { entry: task, exit: merge };
  }
}

function timerXml(duration: string): string {
  return `<bpmn:timerEventDefinition><bpmn:timeDuration xsi:type="bpmn:tFormalExpression">${duration}</bpmn:timeDuration></bpmn:timerEventDefinition>`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function generateModel(seed: number): GeneratedModel {
  const random = rng(seed);
  const builder = new Builder(random);
  const top = builder.block(3, true);
  const body = builder.chance(0.4) ? { t: 'seq' as const, items: [builder.block(2, false), top] } : top;
  const writer = new Writer();
  const piece = writer.write(body, writer.parts);
  writer.parts.push('<bpmn:startEvent id="Start" />', '<bpmn:endEvent id="End" />');
  writer.flow('Start', piece.entry);
  writer.flow(piece.exit, 'End');
  const processId = `Gen${seed}`;
  return {
    processId,
    xml: envelope(processId, writer.parts.join('\n')),
    attributes: { v1: builder.chance(0.5), v2: builder.chance(0.5), v3: builder.chance(0.5), n: Math.floor(random() * 10) },
  };
}

export function envelope(processId: string, body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns:camunda="http://camunda.org/schema/1.0/bpmn" id="Defs_${processId}" targetNamespace="http://waymark.dev/differential">
<bpmn:process id="${processId}" name="${processId}" isExecutable="true">
${body}
</bpmn:process>
</bpmn:definitions>`;
}

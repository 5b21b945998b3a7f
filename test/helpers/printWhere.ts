/** Writes a condition tree back as text of the grammar (for round-trip property tests). */
import type { Operand, SqlValue, WhereNode } from '../../src/domain/sqlWhere.ts';

function literal(v: SqlValue): string {
  return typeof v === 'number' ? String(v) : `'${v.replace(/'/g, "''")}'`;
}

function operand(o: Operand): string {
  return 'column' in o ? o.column : literal(o.value);
}

export function printWhere(node: WhereNode): string {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.items.map((n) => `(${printWhere(n)})`).join(` ${node.kind.toUpperCase()} `);
    case 'not':
      return `NOT (${printWhere(node.item)})`;
    case 'compare':
      return `${operand(node.left)} ${node.op} ${operand(node.right)}`;
    case 'in':
      return `${node.column} ${node.negated ? 'NOT ' : ''}IN (${node.values.map(literal).join(', ')})`;
    case 'null':
      return `${node.column} IS ${node.negated ? 'NOT ' : ''}NULL`;
    case 'like':
      // The tree's pattern escapes with \; ESCAPE '\' keeps that meaning in the text.
      return `${node.column} ${node.negated ? 'NOT ' : ''}LIKE ${literal(node.pattern)} ESCAPE '\\'`;
  }
}

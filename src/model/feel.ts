/** FEEL syntax checks at deploy time. Evaluation happens in the engine; nothing here runs an expression. */
import { parseExpression } from 'feelin';

/** The reason `expression` is not a FEEL expression, or undefined when it parses. */
export function feelSyntaxError(expression: string): string | undefined {
  if (expression.trim() === '') return 'the expression is empty';
  let errorAt: number | undefined;
  try {
    // feelin does not throw on bad input: the lezer tree marks what it could not read with error nodes.
    parseExpression(expression, {}, undefined).iterate({
      enter(node) {
        if (errorAt === undefined && node.type.isError) errorAt = node.from;
        return errorAt === undefined;
      },
    });
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  return errorAt === undefined ? undefined : `it is not valid FEEL (the error is at character ${errorAt + 1})`;
}

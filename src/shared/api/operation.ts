import type { z } from 'zod';

/**
 * One operation of the workbench API: a zod schema for what goes in (validated by every
 * host before anything runs) and a type for what comes out. Outputs are produced by our
 * own code, so they are types only; the phantom function keeps the type without a value.
 */
export interface Operation<I extends z.ZodType = z.ZodType, O = unknown> {
  readonly input: I;
  /** Never set: carries the output type for the derived API types. */
  readonly output?: (value: O) => O;
}

/** `operation(schema).returns<Output>()`: curried so the input type is inferred. */
export function operation<I extends z.ZodType>(input: I): { returns<O>(): Operation<I, O> } {
  return { returns: () => ({ input }) };
}

export type InputOf<Op> = Op extends { readonly input: infer I extends z.ZodType }
  ? z.input<I>
  : never;
export type ParsedInputOf<Op> = Op extends { readonly input: infer I extends z.ZodType }
  ? z.output<I>
  : never;
export type OutputOf<Op> = Op extends { readonly output?: (value: infer O) => unknown } ? O : never;

import { T, type CelT } from "./types.ts";

/** One typed signature of a function; `receiver` set for method-call style (`s.contains(x)`). */
export interface Overload {
  receiver?: CelT;
  args: readonly CelT[];
  result: CelT;
}

const ANY_LIST = T.list(T.dyn);
const ANY_MAP = T.map(T.dyn, T.dyn);
const numeric = [T.int, T.uint, T.double, T.string];

/**
 * The standard functions a rule may call (operators and macros are checked separately). Time
 * functions and protobuf constructs are left out on purpose: detectors reason about text and counts.
 */
export const STD_FUNCTIONS: Readonly<Record<string, readonly Overload[]>> = {
  size: [
    ...[T.string, T.bytes, ANY_LIST, ANY_MAP].map((t) => ({ args: [t], result: T.int })),
    ...[T.string, T.bytes, ANY_LIST, ANY_MAP].map((t) => ({ receiver: t, args: [], result: T.int })),
  ],
  contains: [{ receiver: T.string, args: [T.string], result: T.bool }],
  startsWith: [{ receiver: T.string, args: [T.string], result: T.bool }],
  endsWith: [{ receiver: T.string, args: [T.string], result: T.bool }],
  matches: [
    { receiver: T.string, args: [T.string], result: T.bool },
    { args: [T.string, T.string], result: T.bool },
  ],
  int: numeric.map((t) => ({ args: [t], result: T.int })),
  uint: numeric.map((t) => ({ args: [t], result: T.uint })),
  double: numeric.map((t) => ({ args: [t], result: T.double })),
  string: [T.int, T.uint, T.double, T.string, T.bool, T.bytes].map((t) => ({ args: [t], result: T.string })),
  dyn: [{ args: [T.dyn], result: T.dyn }],
};

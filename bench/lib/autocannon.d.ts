// autocannon ships no types; the benchmark uses its programmatic API loosely.
declare module 'autocannon' {
  const autocannon: (opts: Record<string, unknown>) => Promise<any>;
  export default autocannon;
}

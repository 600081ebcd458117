/** A JSON value: what `--json` output, records and check results may contain (no bigint, no undefined). */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | JsonValue[]
  | { [key: string]: JsonValue };

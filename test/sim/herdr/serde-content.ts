// Typed decoding of buffered JSON (serde's `Content`) with serde's error messages, as Herdr's
// params reach their structs through `#[serde(flatten)]` (ContentDeserializer): "missing field
// `x`", "invalid type: integer `5`, expected a string", "unknown variant `x`, expected one of
// ...". Messages follow serde/src/de/mod.rs (Unexpected, OneOf, Error defaults),
// serde/src/private/de.rs (ContentDeserializer) and serde_json's Unexpected overrides.
import { describeUnexpected, type JsonValue, SerdeCustomError } from "./serde-json-read.js";

export type Decoder<T> = (v: JsonValue) => T;

export function invalidType(v: JsonValue, expecting: string): SerdeCustomError {
  return new SerdeCustomError(`invalid type: ${describeUnexpected(v)}, expected ${expecting}`);
}

export function missingField(name: string): SerdeCustomError {
  return new SerdeCustomError(`missing field \`${name}\``);
}

export function duplicateField(name: string): SerdeCustomError {
  return new SerdeCustomError(`duplicate field \`${name}\``);
}

/** serde's OneOf Display. */
export function oneOf(names: readonly string[]): string {
  if (names.length === 1) return `\`${names[0]}\``;
  if (names.length === 2) return `\`${names[0]}\` or \`${names[1]}\``;
  return `one of ${names.map((n) => `\`${n}\``).join(", ")}`;
}

export function unknownVariant(value: string, variants: readonly string[]): SerdeCustomError {
  if (variants.length === 0)
    return new SerdeCustomError(`unknown variant \`${value}\`, there are no variants`);
  return new SerdeCustomError(`unknown variant \`${value}\`, expected ${oneOf(variants)}`);
}

export const str: Decoder<string> = (v) => {
  if (v.k === "str") return v.v;
  throw invalidType(v, "a string");
};

export const bool: Decoder<boolean> = (v) => {
  if (v.k === "bool") return v.v;
  throw invalidType(v, "a boolean");
};

function unsigned(bits: 32 | 64, name: string): Decoder<number> {
  const max = bits === 64 ? (1n << 64n) - 1n : (1n << 32n) - 1n;
  return (v) => {
    if (v.k === "u64") {
      if (v.v > max)
        throw new SerdeCustomError(`invalid value: integer \`${v.v}\`, expected ${name}`);
      return Number(v.v);
    }
    if (v.k === "i64")
      throw new SerdeCustomError(`invalid value: integer \`${v.v}\`, expected ${name}`);
    throw invalidType(v, name);
  };
}

/** u64 kept exact for sequence numbers that are compared, never printed as floats. */
export const u64Big: Decoder<bigint> = (v) => {
  if (v.k === "u64") return v.v;
  if (v.k === "i64") throw new SerdeCustomError(`invalid value: integer \`${v.v}\`, expected u64`);
  throw invalidType(v, "u64");
};
export const u64: Decoder<number> = unsigned(64, "u64");
export const u32: Decoder<number> = unsigned(32, "u32");

export const f32: Decoder<number> = (v) => {
  if (v.k === "u64" || v.k === "i64") return Math.fround(Number(v.v));
  if (v.k === "f64") return Math.fround(v.v);
  throw invalidType(v, "f32");
};

export function vec<T>(item: Decoder<T>): Decoder<T[]> {
  return (v) => {
    if (v.k !== "seq") throw invalidType(v, "a sequence");
    return v.v.map(item);
  };
}

/** HashMap<String, String>: later duplicate keys win, like HashMap::insert. */
export const stringMap: Decoder<Map<string, string>> = (v) => {
  if (v.k !== "map") throw invalidType(v, "a map");
  const out = new Map<string, string>();
  for (const [key, value] of v.v) out.set(key, str(value));
  return out;
};

/** Any JSON at all (methods the simulator accepts without modelling their params). */
export const anyValue: Decoder<JsonValue> = (v) => v;

export type FieldSpec<T> = {
  readonly decode: Decoder<T>;
  readonly missing: () => T;
  /** Option<T>: JSON null is None. */
  readonly nullable: boolean;
};

export function req<T>(name: string, decode: Decoder<T>): FieldSpec<T> {
  return {
    decode,
    nullable: false,
    missing: () => {
      throw missingField(name);
    },
  };
}

export function opt<T>(decode: Decoder<T>): FieldSpec<T | undefined> {
  return { decode, nullable: true, missing: () => undefined };
}

export function def<T>(decode: Decoder<T>, fallback: () => T): FieldSpec<T> {
  return { decode, nullable: false, missing: fallback };
}

type Decoded<S> = { [K in keyof S]: S[K] extends FieldSpec<infer T> ? T : never };

/** A derived `Deserialize` struct: fields in declaration order, unknown keys ignored. */
export function struct<S extends Record<string, FieldSpec<unknown>>>(
  name: string,
  spec: S,
): Decoder<Decoded<S>> {
  const names = Object.keys(spec);
  const expecting = `struct ${name}`;
  return (v) => {
    const seen = new Map<string, unknown>();
    if (v.k === "map") {
      for (const [key, value] of v.v) {
        const field = spec[key];
        if (field === undefined) continue;
        if (seen.has(key)) throw duplicateField(key);
        seen.set(key, field.nullable && value.k === "null" ? undefined : field.decode(value));
      }
    } else if (v.k === "seq") {
      // serde's visit_seq: fields by position.
      names.forEach((key, i) => {
        const value = v.v[i];
        if (value === undefined) {
          const plural = names.length === 1 ? "element" : "elements";
          throw new SerdeCustomError(
            `invalid length ${i}, expected ${expecting} with ${names.length} ${plural}`,
          );
        }
        const field = spec[key] as FieldSpec<unknown>;
        seen.set(key, field.nullable && value.k === "null" ? undefined : field.decode(value));
      });
      if (v.v.length > names.length) {
        const plural = names.length === 1 ? "element" : "elements";
        throw new SerdeCustomError(
          `invalid length ${v.v.length}, expected ${names.length} ${plural} in sequence`,
        );
      }
    } else throw invalidType(v, expecting);
    const out: Record<string, unknown> = {};
    for (const key of names) {
      const field = spec[key] as FieldSpec<unknown>;
      out[key] = seen.has(key) ? seen.get(key) : field.missing();
    }
    return out as Decoded<S>;
  };
}

/** Resolve a variant identifier the way derived `__Field` visitors do (name or index). */
function variantIdentifier(v: JsonValue, variants: readonly string[]): string {
  if (v.k === "str") {
    if (variants.includes(v.v)) return v.v;
    throw unknownVariant(v.v, variants);
  }
  if (v.k === "u64") {
    const name = variants[Number(v.v)];
    if (v.v < BigInt(variants.length) && name !== undefined) return name;
    throw new SerdeCustomError(
      `invalid value: integer \`${v.v}\`, expected variant index 0 <= i < ${variants.length}`,
    );
  }
  throw invalidType(v, "variant identifier");
}

/** A fieldless enum (`rename_all = "snake_case"`), deserialized through deserialize_enum. */
export function unitEnum<T extends string>(variants: readonly T[]): Decoder<T> {
  return (v) => {
    if (v.k === "str") return variantIdentifier(v, variants) as T;
    if (v.k === "map") {
      const [entry, extra] = v.v;
      if (entry === undefined || extra !== undefined)
        throw new SerdeCustomError("invalid value: map, expected map with a single key");
      const name = variantIdentifier({ k: "str", v: entry[0] }, variants) as T;
      if (entry[1].k !== "null") throw invalidType(entry[1], "unit variant");
      return name;
    }
    throw invalidType(v, "string or map");
  };
}

/** The variant name of an adjacently tagged enum's tag (serde's AdjacentlyTaggedEnumVariantSeed). */
export function adjacentVariant(v: JsonValue, variants: readonly string[]): string {
  if (v.k === "str") return variantIdentifier(v, variants);
  if (v.k === "map") {
    const [entry, extra] = v.v;
    if (entry === undefined || extra !== undefined)
      throw new SerdeCustomError("invalid value: map, expected map with a single key");
    const name = variantIdentifier({ k: "str", v: entry[0] }, variants);
    if (entry[1].k !== "null") throw invalidType(entry[1], "unit variant");
    return name;
  }
  throw invalidType(v, "string or map");
}

/** `#[serde(tag = "...")]`: the tag picks a variant decoder fed the remaining keys. */
export function taggedEnum<T>(
  name: string,
  tag: string,
  variants: Readonly<Record<string, Decoder<T>>>,
): Decoder<T> {
  const names = Object.keys(variants);
  return (v) => {
    if (v.k !== "map") throw invalidType(v, `internally tagged enum ${name}`);
    let tagValue: JsonValue | undefined;
    const rest: Array<readonly [string, JsonValue]> = [];
    for (const entry of v.v) {
      if (entry[0] === tag) {
        if (tagValue !== undefined) throw duplicateField(tag);
        tagValue = entry[1];
      } else rest.push(entry);
    }
    if (tagValue === undefined) throw missingField(tag);
    const variant = variantIdentifier(tagValue, names);
    const decode = variants[variant] as Decoder<T>;
    return decode({ k: "map", v: rest });
  };
}

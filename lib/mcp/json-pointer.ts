/**
 * JSON Pointer (RFC 6901) helpers for schema documents: encode a path for messages and
 * issues, and resolve a *local* `$ref` ("#", "#/…", "#anchor") inside one schema document.
 * Remote references are never fetched: they resolve to `undefined` and callers treat that as
 * "unknown" (docs/design/acp-mcp-toolchain.md §3: we validate with no network and no code generation).
 */

/** A plain JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Escape one reference token: `~` → `~0`, `/` → `~1` (RFC 6901 §3). */
export function escapeToken(token: string): string {
  return token.replace(/~/g, "~0").replace(/\//g, "~1");
}

/** Build a pointer from tokens: `["properties", "a/b"]` → `/properties/a~1b`; `[]` → `""`. */
export function pointerOf(tokens: readonly (string | number)[]): string {
  let out = "";
  for (const t of tokens) out += `/${escapeToken(String(t))}`;
  return out;
}

/** Split a pointer into unescaped tokens; `""` → `[]`. Returns `undefined` if malformed. */
export function tokensOf(pointer: string): string[] | undefined {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) return undefined;
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

/**
 * Turn a URI-fragment pointer as validators print it (`#/a%20b/c`) into a plain JSON pointer
 * (`/a b/c`). The fragment is percent-encoded (RFC 6901 §6); `/` inside a key is already `~1`,
 * so decoding the whole fragment cannot create a separator.
 */
export function fragmentToPointer(fragment: string): string {
  const body = fragment.startsWith("#") ? fragment.slice(1) : fragment;
  if (!body.includes("%")) return body;
  try {
    return decodeURIComponent(body);
  } catch {
    return body;
  }
}

/** Own-property lookup that never walks the prototype chain (`__proto__` is an ordinary key). */
function child(node: unknown, token: string): unknown {
  if (Array.isArray(node)) {
    if (!/^(0|[1-9][0-9]*)$/.test(token)) return undefined;
    return node[Number(token)];
  }
  if (isJsonObject(node) && Object.hasOwn(node, token)) return node[token];
  return undefined;
}

/** The value at `pointer` inside `doc`, or `undefined` when a token is missing. */
export function atPointer(doc: unknown, pointer: string): unknown {
  const tokens = tokensOf(pointer);
  if (tokens === undefined) return undefined;
  let node: unknown = doc;
  for (const t of tokens) {
    node = child(node, t);
    if (node === undefined) return undefined;
  }
  return node;
}

/** Find a subschema carrying `$anchor: name` (2019-09+) or `$id: "#name"` (draft-06/07). */
function findAnchor(node: unknown, name: string, depth: number): unknown {
  if (depth > 64) return undefined;
  if (Array.isArray(node)) {
    for (const item of node) {
      const hit = findAnchor(item, name, depth + 1);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  if (!isJsonObject(node)) return undefined;
  if (node.$anchor === name || node.$id === `#${name}`) return node;
  for (const key of Object.keys(node)) {
    // `const`, `enum`, `default` and `examples` hold instance data, not schemas.
    if (key === "const" || key === "enum" || key === "default" || key === "examples") continue;
    const hit = findAnchor(node[key], name, depth + 1);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

/**
 * Resolve a `$ref` against the document root. Handles `#`, `#/json/pointer` (percent-encoded
 * per RFC 6901 §6), `#anchor`, and a ref whose URI part equals the root `$id`. Anything else is
 * remote and resolves to `undefined`.
 */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  const hash = ref.indexOf("#");
  const base = hash < 0 ? ref : ref.slice(0, hash);
  const fragment = hash < 0 ? "" : ref.slice(hash + 1);
  if (base !== "") {
    const rootId = isJsonObject(root) ? root.$id : undefined;
    if (typeof rootId !== "string" || rootId.replace(/#$/, "") !== base) return undefined;
  }
  if (fragment === "") return root;
  let decoded: string;
  try {
    decoded = decodeURIComponent(fragment);
  } catch {
    return undefined;
  }
  if (decoded.startsWith("/")) return atPointer(root, decoded);
  return findAnchor(root, decoded, 0);
}

#!/usr/bin/env python3
"""Generate src/kustomize/openapi/builtin.rs: what strategic merge needs from the OpenAPI
schema kustomize v5.5.0 embeds.

Inputs (not committed: the first is 3.4 MB):

1. kyaml/openapi/kubernetesapi/v1_21_2/swagger.pb from kustomize tag kustomize/v5.5.0
   (commit afe77936761f8f7ee735a67f167a8382c8406f74): the protobuf-encoded OpenAPI v2 document
   (gnostic `openapi.v2.Document`) that kustomize fetched from a kind cluster running
   Kubernetes v1.21.2. sha256 5d171b55e9601912807a870d73ffe70bb306f5889a00e76986042a0f2d7b6bc2.
2. kyaml/openapi/kustomizationapi/swagger.json from the same tag (kustomize's own types, which
   kustomize parses into the same global schema).

Obtain them with git from a clone of github.com/kubernetes-sigs/kustomize:

    git show kustomize/v5.5.0:kyaml/openapi/kubernetesapi/v1_21_2/swagger.pb > /tmp/swagger.pb
    git show kustomize/v5.5.0:kyaml/openapi/kustomizationapi/swagger.json > /tmp/kustomizationapi.json

then run (Python 3.11, standard library only):

    python3 scripts/gen-openapi-tables.py /tmp/swagger.pb /tmp/kustomizationapi.json \
        > src/kustomize/openapi/builtin.rs

A JSON OpenAPI v2 document (same `definitions` and `paths`) is also accepted in place of the
.pb, e.g. api/openapi-spec/swagger.json of kubernetes/kubernetes at v1.21.2. That file is not
what kustomize embeds (it was not fetched from a cluster), so the committed tables come from
the .pb.

What is kept (src/kustomize/openapi/table.rs describes the tables): every definition by name,
with the properties strategic merge can look into (objects, maps, `$ref`s to non-scalar
definitions, lists that merge), `additionalProperties`, the items of lists that merge, and
x-kubernetes-patch-strategy with the merge keys kyaml derives (x-kubernetes-list-map-keys,
else x-kubernetes-patch-merge-key); the x-kubernetes-group-version-kind of top-level types;
and the scope of every type from the API paths (kyaml's precomputedIsNamespaceScoped). Scalar
properties and lists that do not merge are dropped: the walker never looks inside them.
"""

import json
import sys

# --- protobuf wire format -------------------------------------------------------------------


def read_varint(buf, pos):
    result = 0
    shift = 0
    while True:
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos
        shift += 7


def fields(buf):
    """Yield (field number, wire type, value) of one message; value is bytes for
    length-delimited fields, an int otherwise."""
    pos = 0
    end = len(buf)
    while pos < end:
        key, pos = read_varint(buf, pos)
        num, wt = key >> 3, key & 7
        if wt == 0:
            val, pos = read_varint(buf, pos)
        elif wt == 1:
            val = int.from_bytes(buf[pos : pos + 8], "little")
            pos += 8
        elif wt == 2:
            n, pos = read_varint(buf, pos)
            val = buf[pos : pos + n]
            pos += n
        elif wt == 5:
            val = int.from_bytes(buf[pos : pos + 4], "little")
            pos += 4
        else:
            raise ValueError(f"unsupported wire type {wt}")
        yield num, wt, val


# gnostic openapi.v2 field numbers (openapiv2/OpenAPIv2.proto).
DOC_PATHS, DOC_DEFINITIONS = 8, 9
NAMED_NAME, NAMED_VALUE = 1, 2
SCHEMA_REF = 1
SCHEMA_ADDITIONAL = 21
SCHEMA_TYPE = 22
SCHEMA_ITEMS = 23
SCHEMA_PROPERTIES = 25
SCHEMA_EXTENSIONS = 31
ANY_YAML = 2
PATHS_PATH = 2
PATHITEM_GET = 2
OPERATION_EXTENSIONS = 13


def named(buf):
    name, value = None, b""
    for num, _, val in fields(buf):
        if num == NAMED_NAME:
            name = val.decode()
        elif num == NAMED_VALUE:
            value = val
    return name, value


def parse_yaml_value(text):
    """The tiny YAML subset of gnostic's extension values: a scalar, a list of scalars, or a
    list of flat maps (x-kubernetes-group-version-kind)."""
    text = text.strip()
    if not text.startswith("- "):
        if "\n" in text or ": " in text:
            return dict(
                (k.strip(), unquote(v.strip()))
                for k, _, v in (line.partition(":") for line in text.splitlines())
            )
        return unquote(text)
    items = []
    for line in text.splitlines():
        if line.startswith("- "):
            items.append(None)
            line = line[2:]
        else:
            line = line.strip()
        if ": " in line or line.endswith(":"):
            k, _, v = line.partition(":")
            if items[-1] is None:
                items[-1] = {}
            items[-1][k.strip()] = unquote(v.strip())
        else:
            items[-1] = unquote(line)
    return items


def unquote(s):
    if len(s) >= 2 and s[0] == s[-1] and s[0] in "'\"":
        return s[1:-1]
    return s


def decode_schema(buf):
    """A protobuf Schema as the JSON-like dict the swagger.json form would hold."""
    out = {}
    for num, _, val in fields(buf):
        if num == SCHEMA_REF:
            out["$ref"] = val.decode()
        elif num == SCHEMA_TYPE:
            out["type"] = [v.decode() for n, _, v in fields(val) if n == 1]
        elif num == SCHEMA_ITEMS:
            schemas = [decode_schema(v) for n, _, v in fields(val) if n == 1]
            out["items"] = schemas[0] if len(schemas) == 1 else schemas
        elif num == SCHEMA_PROPERTIES:
            props = {}
            for n, _, v in fields(val):
                if n == 1:
                    name, value = named(v)
                    props[name] = decode_schema(value)
            out["properties"] = props
        elif num == SCHEMA_ADDITIONAL:
            for n, _, v in fields(val):
                if n == 1:
                    out["additionalProperties"] = decode_schema(v)
                elif n == 2:
                    out["additionalProperties"] = bool(v)
        elif num == SCHEMA_EXTENSIONS:
            name, value = named(val)
            out[name] = extension_value(value)
    return out


def extension_value(any_buf):
    for n, _, v in fields(any_buf):
        if n == ANY_YAML:
            return parse_yaml_value(v.decode())
    return None


def decode_document(buf):
    definitions = {}
    namespaced = {}
    for num, _, val in fields(buf):
        if num == DOC_DEFINITIONS:
            for n, _, v in fields(val):
                if n == 1:
                    name, value = named(v)
                    definitions[name] = decode_schema(value)
        elif num == DOC_PATHS:
            for n, _, v in fields(val):
                if n == PATHS_PATH:
                    path, item = named(v)
                    record_scope(path, item, namespaced)
    return definitions, namespaced


def record_scope(path, item_buf, namespaced):
    for n, _, v in fields(item_buf):
        if n != PATHITEM_GET:
            continue
        for m, _, e in fields(v):
            if m != OPERATION_EXTENSIONS:
                continue
            name, value = named(e)
            if name != "x-kubernetes-group-version-kind":
                continue
            gvk = extension_value(value)
            if not isinstance(gvk, dict):
                continue
            tm = type_meta(gvk)
            if "namespaces/{namespace}" in path:
                namespaced[tm] = True
            else:
                namespaced.setdefault(tm, False)


def type_meta(gvk):
    api_version = gvk.get("version", "")
    if gvk.get("group"):
        api_version = gvk["group"] + "/" + api_version
    return (api_version, gvk.get("kind", ""))


# --- reduction ------------------------------------------------------------------------------

def normalise(schema):
    """go-openapi reads `type: array` and `type: [array]` alike."""
    t = schema.get("type")
    if isinstance(t, str):
        schema["type"] = [t]
    for sub in schema.get("properties", {}).values():
        normalise(sub)
    if isinstance(schema.get("items"), dict):
        normalise(schema["items"])
    if isinstance(schema.get("additionalProperties"), dict):
        normalise(schema["additionalProperties"])
    return schema


def strategy_and_keys(schema):
    """kyaml ResourceSchema.PatchStrategyAndKeyList."""
    strategy = schema.get("x-kubernetes-patch-strategy")
    if not isinstance(strategy, str):
        return None, []
    keys = schema.get("x-kubernetes-list-map-keys")
    if isinstance(keys, list):
        return strategy, [str(k) for k in keys]
    key = schema.get("x-kubernetes-patch-merge-key")
    return strategy, [key] if isinstance(key, str) else []


def is_array(schema):
    return schema.get("type") == ["array"]


def merges(schema):
    strategy, _ = strategy_and_keys(schema)
    return strategy is not None and "merge" in strategy.split(",")


SCALAR_TYPES = (["string"], ["integer"], ["number"], ["boolean"])


def kept(schema, definitions):
    """Whether a property schema can change what strategic merge does below it. A `$ref` is
    kept (a custom schema may override the definition by name) unless it names a scalar type
    (Time, Quantity, IntOrString); a scalar, or a list that is replaced wholesale, is not: the
    walker never looks inside either."""
    ref = schema.get("$ref")
    if isinstance(ref, str):
        target = definitions.get(ref.removeprefix("#/definitions/"), {})
        return not (target.get("type") in SCALAR_TYPES and not target.get("properties"))
    if is_array(schema) or "items" in schema:
        return merges(schema)
    if schema.get("properties") or isinstance(schema.get("additionalProperties"), dict):
        return True
    return strategy_and_keys(schema)[0] is not None


class Layer:
    """One layer of tables: definitions sorted by name, deduplicated inline schemas, the
    flattened properties, and the group/version/kind index."""

    def __init__(self, definitions):
        self.definitions = definitions
        self.names = sorted(definitions)
        self.index = {n: i for i, n in enumerate(self.names)}
        self.schemas = ["LEAF"]
        self.schema_ids = {"LEAF": 0}
        self.props = []
        self.def_schema = [self.add(definitions[n]) for n in self.names]
        self.gvks = []
        for n in self.names:
            exts = definitions[n].get("x-kubernetes-group-version-kind")
            if isinstance(exts, dict):
                exts = [exts]
            for gvk in exts or []:
                if isinstance(gvk, dict) and "kind" in gvk and "version" in gvk:
                    api_version, kind = type_meta(gvk)
                    self.gvks.append((api_version, kind, self.index[n]))
        # Later definitions of the same type win, as in kyaml's AddDefinitions (Go map order
        # decides there; no type is listed twice in the built-in data).
        seen = {}
        for av, k, i in self.gvks:
            seen[(av, k)] = i
        self.gvks = sorted((av, k, i) for (av, k), i in seen.items())

    def target(self, schema):
        """A property or item schema as a Rust `T`: `d(i)` for a `$ref`, `s(i)` inline."""
        ref = schema.get("$ref")
        if isinstance(ref, str):
            name = ref.removeprefix("#/definitions/")
            if name in self.index:
                return f"d({self.index[name]})"
            return "s(0)"  # dangling: kyaml's Resolve fails and the field has no schema
        return f"s({self.add(schema)})"

    def add(self, schema):
        """Interns an inline schema and returns its index in the schema table."""
        props = sorted((k, v) for k, v in schema.get("properties", {}).items() if kept(v, self.definitions))
        prop_targets = [(k, self.target(v)) for k, v in props]
        additional = schema.get("additionalProperties")
        additional = self.target(additional) if isinstance(additional, dict) else None
        strategy, keys = strategy_and_keys(schema)
        items = schema.get("items")
        items = self.target(items) if isinstance(items, dict) and merges(schema) else None
        # A list that does not merge is replaced without looking at its schema.
        array = is_array(schema) and merges(schema)
        if not prop_targets and additional is None and strategy is None and not array:
            return 0
        start = len(self.props)
        self.props.extend(prop_targets)
        if prop_targets and additional is None and strategy is None and not array:
            text = f"obj({start}, {len(prop_targets)})"
        elif not prop_targets and additional is not None and strategy is None and not array:
            text = f"map({additional})"
        elif not prop_targets and additional is None and array and strategy is not None:
            text = f"list({rust_str(strategy)}, {rust_strs(keys)}, {rust_opt(items)})"
        else:
            text = (
                f"S {{ array: {str(array).lower()}, items: {rust_opt(items)}, "
                f"props: ({start}, {len(prop_targets)}), additional: {rust_opt(additional)}, "
                f"strategy: {rust_opt_str(strategy)}, keys: {rust_strs(keys)} }}"
            )
        if not prop_targets and text in self.schema_ids:
            return self.schema_ids[text]
        self.schemas.append(text)
        self.schema_ids[text] = len(self.schemas) - 1
        return len(self.schemas) - 1


def rust_str(s):
    return json.dumps(s, ensure_ascii=False)


def rust_strs(items):
    return "&[" + ", ".join(rust_str(i) for i in items) + "]"


def rust_opt(t):
    return f"Some({t})" if t else "None"


def rust_opt_str(s):
    return f"Some({rust_str(s)})" if s is not None else "None"


def emit_layer(out, prefix, layer):
    up = prefix.upper()
    out.append(f"/// Definition names (sorted) and their schema in `{up}_SCHEMAS`.")
    out.append(f"static {up}_DEFS: [(&str, u16); {len(layer.names)}] = [")
    for n, i in zip(layer.names, layer.def_schema):
        out.append(f"    ({rust_str(n)}, {i}),")
    out.append("];")
    out.append("")
    out.append(f"/// Schemas; 0 is the leaf (a schema with nothing strategic merge looks at).")
    out.append(f"static {up}_SCHEMAS: [S; {len(layer.schemas)}] = [")
    for text in layer.schemas:
        out.append(f"    {text},")
    out.append("];")
    out.append("")
    out.append(f"/// Properties, in runs sorted by name (`obj(start, len)`).")
    out.append(f"static {up}_PROPS: [(&str, T); {len(layer.props)}] = [")
    for k, t in layer.props:
        out.append(f"    ({rust_str(k)}, {t}),")
    out.append("];")
    out.append("")
    out.append(f"/// `x-kubernetes-group-version-kind`: (apiVersion, kind) to definition (sorted).")
    out.append(f"static {up}_GVKS: [(&str, &str, u16); {len(layer.gvks)}] = [")
    for av, k, i in layer.gvks:
        out.append(f"    ({rust_str(av)}, {rust_str(k)}, {i}),")
    out.append("];")
    out.append("")
    out.append(f"/// The `{prefix}` layer.")
    out.append(f"pub(super) static {up}: Layer = Layer {{")
    out.append(f"    defs: &{up}_DEFS,")
    out.append(f"    schemas: &{up}_SCHEMAS,")
    out.append(f"    props: &{up}_PROPS,")
    out.append(f"    gvks: &{up}_GVKS,")
    out.append("};")
    out.append("")


def sha256(path):
    import hashlib

    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen-openapi-tables.py SWAGGER.pb KUSTOMIZATIONAPI.json > builtin.rs")
    pb, kapi = sys.argv[1], sys.argv[2]
    with open(pb, "rb") as f:
        raw = f.read()
    if raw.lstrip().startswith(b"{"):
        doc = json.loads(raw)
        kube_defs = doc.get("definitions", {})
        namespaced = {}
        for path, item in doc.get("paths", {}).items():
            gvk = (item.get("get") or {}).get("x-kubernetes-group-version-kind")
            if isinstance(gvk, dict):
                tm = type_meta(gvk)
                if "namespaces/{namespace}" in path:
                    namespaced[tm] = True
                else:
                    namespaced.setdefault(tm, False)
    else:
        kube_defs, namespaced = decode_document(raw)
    with open(kapi) as f:
        kust_defs = json.load(f).get("definitions", {})
    kube = Layer({k: normalise(v) for k, v in kube_defs.items()})
    kust = Layer({k: normalise(v) for k, v in kust_defs.items()})
    out = [
        "// @generated by scripts/gen-openapi-tables.py; do not edit.",
        "//",
        "// Source: kustomize v5.5.0 (commit afe77936761f8f7ee735a67f167a8382c8406f74),",
        "//   kyaml/openapi/kubernetesapi/v1_21_2/swagger.pb (Kubernetes v1.21.2)",
        f"//     sha256 {sha256(pb)}",
        "//   kyaml/openapi/kustomizationapi/swagger.json",
        f"//     sha256 {sha256(kapi)}",
        "// Command:",
        "//   python3 scripts/gen-openapi-tables.py swagger.pb kustomizationapi.json \\",
        "//     > src/kustomize/openapi/builtin.rs",
        "",
        "//! The OpenAPI data kustomize v5.5.0 compiles in, reduced to what strategic merge reads.",
        "",
        "use super::table::{d, list, map, obj, s, Layer, LEAF, S, T};",
        "",
    ]
    emit_layer(out, "kubernetes", kube)
    emit_layer(out, "kustomize", kust)
    rows = sorted(namespaced.items())
    out.append("/// Scope of the built-in types, from the API paths (`namespaces/{namespace}` in a GET path):")
    out.append("/// kyaml's `precomputedIsNamespaceScoped`. (apiVersion, kind, namespaced), sorted.")
    out.append(f"pub(super) static NAMESPACED: [(&str, &str, bool); {len(rows)}] = [")
    for (av, k), v in rows:
        out.append(f"    ({rust_str(av)}, {rust_str(k)}, {str(v).lower()}),")
    out.append("];")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()

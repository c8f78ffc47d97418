#!/usr/bin/env python3
"""Generate src/validate/data/k8s-schemas.json.gz: kdelta's bundled Kubernetes API schemas.

Sources:
  * the PyPI package kubernetes-validate (its `local-strict` JSON schemas, derived from each
    release's OpenAPI v2 `swagger.json`, Kubernetes 1.25.0 onwards);
  * the `zz_generated.prerelease-lifecycle.go` files of k8s.io/api (deprecated-in, removed-in,
    replacement per group/version/kind), read from a git clone of kubernetes/api at every
    `v0.N.0` tag from v0.19.0 (the first with those files) and its HEAD. The Go module proxy
    would serve the same files as module zips; this script reads a git directory because
    that is what the machines that regenerate the bundle can reach.

Usage:
  python3 -m pip download --no-deps kubernetes-validate -d /tmp/kv
  git clone --bare https://github.com/kubernetes/api /tmp/k8s-api.git
  python3 scripts/gen-k8s-schemas.py --wheel /tmp/kv/kubernetes_validate-*.whl \\
      --k8s-api-git /tmp/k8s-api.git

One regeneration per new Kubernetes release (a new kubernetes-validate release).

The bundle (gzip-compressed JSON, keys sorted, so the output is reproducible):
  {
    "source": {...names and sha256 of the inputs, the command...},
    "versions": ["1.25.0", ...],
    "contents": [schema, ...],         # every distinct definition body once (content-addressed)
    "definitions": {"1.25.0": [[name, content index], ...], ...},
    "lifecycle": [[group, version, kind, introduced, deprecated, removed, replacement], ...]
  }
A definition body is the kubernetes-validate `$defs` entry with descriptions and patch
hints stripped and `$ref: "#/$defs/NAME"` shortened to `$ref: "NAME"`; names resolve within
the version, so one body serves every version whose definition reads the same. The Quantity
definition is marked `"format": "quantity"` (its syntax is what the API server parses; the
JSON schema only says string or number).
"""

import argparse
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile

DROP = {
    "description",
    "x-kubernetes-patch-strategy",
    "x-kubernetes-patch-merge-key",
    "x-kubernetes-unions",
    "$schema",
    "$id",
}
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"


def strip(node):
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k in DROP:
                continue
            if k == "$ref":
                out[k] = v.rsplit("/", 1)[-1]
            elif k == "properties":
                out[k] = {name: strip(p) for name, p in v.items()}
            else:
                out[k] = strip(v)
        return out
    if isinstance(node, list):
        return [strip(x) for x in node]
    return node


def canonical(node):
    return json.dumps(node, sort_keys=True, separators=(",", ":"))


def version_key(v):
    return tuple(int(x) for x in v.split("."))


def read_schemas(wheel):
    """Per Kubernetes version, the stripped `$defs` of the local-strict variant."""
    out = {}
    pattern = re.compile(r"kubernetes-json-schema/v([0-9.]+)-local-strict/_definitions\.json$")
    with zipfile.ZipFile(wheel) as z:
        for name in z.namelist():
            m = pattern.search(name)
            if not m:
                continue
            defs = json.loads(z.read(name))["$defs"]
            stripped = {n: strip(d) for n, d in defs.items()}
            if QUANTITY in stripped:
                stripped[QUANTITY]["format"] = "quantity"
            out[m.group(1)] = stripped
    return out


GO_FUNC = re.compile(
    r"func \(in \*(\w+)\) APILifecycle(Introduced|Deprecated|Removed|Replacement)\(\)[^{]*\{\s*return ([^\n]+)"
)
GVK = re.compile(r'Group: "([^"]*)", Version: "([^"]*)", Kind: "([^"]*)"')


def git(gitdir, *args):
    return subprocess.run(
        ["git", "--git-dir", gitdir, *args], check=True, capture_output=True, text=True
    ).stdout


def read_lifecycle(gitdir):
    """(group, version, kind) -> {introduced, deprecated, removed, replacement}; later tags win."""
    tags = [t for t in git(gitdir, "tag").split() if re.fullmatch(r"v0\.\d+\.0", t)]
    tags = sorted((t for t in tags if int(t.split(".")[1]) >= 19), key=lambda t: int(t.split(".")[1]))
    refs = tags + ["HEAD"]
    table = {}
    for ref in refs:
        files = [
            f
            for f in git(gitdir, "ls-tree", "-r", "--name-only", ref).split("\n")
            if f.endswith("zz_generated.prerelease-lifecycle.go")
        ]
        for f in files:
            pkg = os.path.dirname(f)
            try:
                register = git(gitdir, "show", f"{ref}:{pkg}/register.go")
            except subprocess.CalledProcessError:
                continue
            group = re.search(r'GroupName\s*=\s*"([^"]*)"', register)
            if not group:
                continue
            version = os.path.basename(pkg)
            text = git(gitdir, "show", f"{ref}:{f}")
            for m in GO_FUNC.finditer(text):
                kind, what, ret = m.group(1), m.group(2).lower(), m.group(3)
                if kind.endswith("List"):
                    continue
                entry = table.setdefault((group.group(1), version, kind), {})
                if what == "replacement":
                    g = GVK.search(ret)
                    if g:
                        rkind = g.group(3)
                        # Upstream tags some replacements with the List kind
                        # (networking/v1beta1 IngressClass -> IngressClassList).
                        if rkind.endswith("List") and not kind.endswith("List"):
                            rkind = rkind[: -len("List")]
                        api = f"{g.group(1)}/{g.group(2)}" if g.group(1) else g.group(2)
                        entry["replacement"] = f"{api} {rkind}"
                else:
                    nums = re.findall(r"\d+", ret)
                    if len(nums) >= 2:
                        entry[what] = f"{nums[0]}.{nums[1]}"
    head = git(gitdir, "rev-parse", "HEAD").strip()
    return table, refs, head


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--wheel", required=True, help="kubernetes_validate-*.whl")
    ap.add_argument("--k8s-api-git", required=True, help="git directory of kubernetes/api")
    ap.add_argument(
        "--out",
        default=os.path.join(os.path.dirname(__file__), "..", "src/validate/data/k8s-schemas.json.gz"),
    )
    args = ap.parse_args()

    schemas = read_schemas(args.wheel)
    versions = sorted(schemas, key=version_key)
    contents, index, definitions = [], {}, {}
    for v in versions:
        rows = []
        for name in sorted(schemas[v]):
            body = schemas[v][name]
            key = canonical(body)
            if key not in index:
                index[key] = len(contents)
                contents.append(body)
            rows.append([name, index[key]])
        definitions[v] = rows

    lifecycle, refs, head = read_lifecycle(args.k8s_api_git)
    rows = []
    for (g, ver, kind), e in sorted(lifecycle.items()):
        rows.append(
            [g, ver, kind, e.get("introduced"), e.get("deprecated"), e.get("removed"), e.get("replacement")]
        )

    bundle = {
        "source": {
            "schemas": os.path.basename(args.wheel),
            "schemas_sha256": sha256_file(args.wheel),
            "lifecycle": f"kubernetes/api {' '.join(refs[:-1])} and HEAD {head}",
            "command": "python3 scripts/gen-k8s-schemas.py --wheel WHEEL --k8s-api-git GITDIR",
        },
        "versions": versions,
        "contents": contents,
        "definitions": definitions,
        "lifecycle": rows,
    }
    raw = json.dumps(bundle, sort_keys=True, separators=(",", ":")).encode()
    buf = io.BytesIO()
    # mtime=0 and no file name: the same inputs give the same bytes.
    with gzip.GzipFile(fileobj=buf, mode="wb", compresslevel=9, mtime=0, filename="") as gz:
        gz.write(raw)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "wb") as f:
        f.write(buf.getvalue())
    print(
        f"{len(versions)} versions, {len(contents)} distinct definitions, "
        f"{len(rows)} lifecycle rows, {len(raw)} bytes of JSON, {len(buf.getvalue())} gzipped",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Record the independent validator's verdicts on testdata/validate/objects/*.yaml.

    python3 -m pip install kubernetes-validate==1.37.0
    python3 testdata/validate/record.py

Runs kubernetes-validate in strict mode (its `validate(data, version, strict=True)`, what
`kubernetes-validate --strict -k VERSION FILE` calls) for each object and Kubernetes version,
and writes testdata/validate/expected.json: per object and version, `valid`, `invalid` with
the validator's message, or `no-schema` (the validator has no schema for the apiVersion and
kind: a removed API, a typo'd kind, a custom resource). tests/validate_schemas.rs compares
kdelta's verdicts with these; where kdelta departs on purpose, deviations.json says why.
"""

import glob
import importlib.metadata
import json
import os
import sys

import yaml
import kubernetes_validate.utils as kv

HERE = os.path.dirname(os.path.abspath(__file__))
VERSIONS = ["1.25.0", "1.29.0", "1.33.0"]


def verdict(data, version):
    try:
        kv.validate(data, version, strict=True)
        return {"verdict": "valid"}
    except kv.ValidationError as e:
        path = ".".join(str(p) for p in e.path)
        return {"verdict": "invalid", "message": f"{path}: {e.message}"}
    except kv.SchemaNotFoundError as e:
        return {"verdict": "no-schema", "message": e.message}


def main():
    objects = {}
    for path in sorted(glob.glob(os.path.join(HERE, "objects", "*.yaml"))):
        name = os.path.splitext(os.path.basename(path))[0]
        with open(path) as f:
            docs = [d for d in yaml.safe_load_all(f) if d]
        if len(docs) != 1:
            sys.exit(f"{path}: expected one object, found {len(docs)}")
        objects[name] = {v.rsplit(".", 1)[0]: verdict(docs[0], v) for v in VERSIONS}
    out = {
        "tool": f"kubernetes-validate {importlib.metadata.version('kubernetes-validate')}, strict",
        "command": "python3 testdata/validate/record.py",
        "versions": [v.rsplit(".", 1)[0] for v in VERSIONS],
        "objects": objects,
    }
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")
    counts = {}
    for per in objects.values():
        for v, r in per.items():
            counts[(v, r["verdict"])] = counts.get((v, r["verdict"]), 0) + 1
    for k in sorted(counts):
        print(k, counts[k])


if __name__ == "__main__":
    main()

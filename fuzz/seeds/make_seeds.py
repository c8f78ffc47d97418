#!/usr/bin/env python3
"""Writes the seed corpora under fuzz/seeds/ from the repository's test data:
kustomize_build from testdata/kustomize/*/in (in the section format of kdelta::fuzzing),
yaml_roundtrip from the same YAML files and testdata/emitter, patches from the patch files
found next to the resources they patch. Run from the repository root."""

import os
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEEDS = ROOT / "fuzz" / "seeds"
KUST = ROOT / "testdata" / "kustomize"
LIMIT = 4096


def put(target, name, data):
    if len(data) > LIMIT:
        return
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def files(in_dir):
    for p in sorted(in_dir.rglob("*")):
        if p.is_symlink():
            yield p, None
        elif p.is_file():
            yield p, p.read_bytes()


for case in sorted(KUST.iterdir()):
    in_dir = case / "in"
    if not in_dir.is_dir():
        continue
    text = (case / "case.yaml").read_text()
    build = re.search(r"^build_dir:\s*(\S+)", text, re.M)
    out = b""
    if build and build.group(1) not in (".", ""):
        out += b"=== @build " + build.group(1).encode() + b"\n"
    if "reorder: none" in text:
        out += b"=== @reorder-none\n"
    if "LoadRestrictionsNone" in text:
        out += b"=== @load-restrictor-none\n"
    for p, data in files(in_dir):
        rel = p.relative_to(in_dir).as_posix().encode()
        if data is None:
            out += b"=== " + rel + b" -> " + os.readlink(p).encode() + b"\n"
        else:
            out += b"=== " + rel + b"\n" + data
            if not data.endswith(b"\n"):
                out += b"\n"
            if p.suffix in (".yaml", ".yml"):
                put("yaml_roundtrip", case.name + "-" + rel.decode().replace("/", "_"), data)
    put("kustomize_build", case.name, out)

for p in sorted((ROOT / "testdata" / "emitter").rglob("*.yaml")):
    put("yaml_roundtrip", "emitter-" + p.parent.name + "-" + p.name, p.read_bytes())

# patches: a resource, then "=== patch" and a patch, from cases with json6902/smp patches.
for case in sorted(KUST.iterdir()):
    in_dir = case / "in"
    if not in_dir.is_dir():
        continue
    yamls = [(p, d) for p, d in files(in_dir) if d is not None and p.suffix in (".yaml", ".yml", ".json")]
    resources = [d for p, d in yamls if b"kind:" in d and b"metadata:" in d and b"patch" not in p.name.encode()]
    patch_files = [d for p, d in yamls if b"patch" in p.name.encode()]
    if resources and patch_files:
        for i, patch in enumerate(patch_files[:3]):
            doc = resources[0].split(b"\n---")[0]
            put("patches", f"{case.name}-{i}", doc + b"\n=== patch\n" + patch)

# testdata/smp: resources.yaml (first document) with each patch-NN.yaml.
for case in sorted((ROOT / "testdata" / "smp").iterdir()):
    res = case / "resources.yaml"
    if not res.is_file():
        continue
    doc = res.read_bytes().split(b"\n---")[0]
    for patch in sorted(case.glob("patch-*.yaml")):
        put("patches", f"{case.name}-{patch.stem}", doc + b"\n=== patch\n" + patch.read_bytes())

# JSON 6902: case 23's resource with its operations, as YAML and as JSON.
deploy = (KUST / "23-json6902-all-ops" / "in" / "base" / "deploy.yaml").read_bytes()
ops = (KUST / "23-json6902-all-ops" / "in" / "overlays" / "prod" / "ops.yaml").read_bytes()
put("patches", "json6902-yaml", deploy + b"\n=== patch\n" + ops)
put(
    "patches",
    "json6902-json",
    deploy
    + b'\n=== patch\n[{"op": "add", "path": "/spec/replicas", "value": 3},'
    + b' {"op": "move", "from": "/metadata/labels", "path": "/metadata/annotations"},'
    + b' {"op": "copy", "from": "/spec", "path": "/spec/x/-"}, {"op": "test", "path": "/kind", "value": "Deployment"},'
    + b' {"op": "remove", "path": "/spec/template/spec/containers/0"}]\n',
)

# git_objects: the fixture of kdelta::fuzzing::GitFixture, built the same way, so its index and
# objects are the seeds (first byte: selector, see GitFixture::run).
import subprocess
import tempfile
import zlib

with tempfile.TemporaryDirectory() as tmp:
    d = pathlib.Path(tmp)
    (d / "base").mkdir()
    (d / "kustomization.yaml").write_text("resources:\n- base\nnamePrefix: p-\n")
    (d / "base" / "kustomization.yaml").write_text("resources:\n- cm.yaml\n")
    (d / "base" / "cm.yaml").write_text("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\ndata:\n  k: v\n")
    os.symlink("base/cm.yaml", d / "link.yaml")
    # As kdelta::testing::git_command isolates it: no inherited GIT_* variables, no system or
    # global configuration, the fixture as home, a fixed identity and clock.
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null", HOME=str(d),
               XDG_CONFIG_HOME=str(d / ".config"),
               GIT_AUTHOR_NAME="Test", GIT_AUTHOR_EMAIL="test@example.com",
               GIT_AUTHOR_DATE="2024-01-01T00:00:00Z", GIT_COMMITTER_NAME="Test",
               GIT_COMMITTER_EMAIL="test@example.com", GIT_COMMITTER_DATE="2024-01-01T00:00:00Z")
    config = ["init.defaultBranch=main", "core.symlinks=true", "commit.gpgsign=false",
              "tag.gpgsign=false", "protocol.file.allow=always", "advice.detachedHead=false"]

    def git(*args):
        return subprocess.run(["git", *(a for c in config for a in ("-c", c)), *args],
                              cwd=d, env=env, check=True, capture_output=True).stdout

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "fixture")
    put("git_objects", "index", b"\x00" + (d / ".git" / "index").read_bytes())
    for i, spec in enumerate(["HEAD", "HEAD^{tree}", "HEAD:base", "HEAD:base/cm.yaml"]):
        hexid = git("rev-parse", spec).decode().strip()
        raw = zlib.decompress((d / ".git" / "objects" / hexid[:2] / hexid[2:]).read_bytes())
        body = raw.split(b"\0", 1)[1]
        put("git_objects", f"object{i}-body", bytes([4 * i + 1]) + body)
        put("git_objects", f"object{i}-raw", bytes([4 * i + 2]) + raw)

#!/usr/bin/env python3
"""Generate a random kustomization tree for differential testing of kdelta against kustomize.

    scripts/difftest/gen.py SEED OUTDIR [AREA]

Writes into OUTDIR a `base/` kustomization, usually an `overlay/` on top of it (sometimes with a
`comp/` component) and sometimes a third level `top/`. The resources are a random mix of workloads
(Deployment, StatefulSet, DaemonSet, Job, CronJob), everyday objects (Service, Ingress, ConfigMap,
Secret, RBAC, HPA, PDB, NetworkPolicy, Namespace, PVC) and a custom resource with its CRD. Each
level draws from the kustomize features kdelta implements: configMap/secret generators (literals,
files, env files, options, merge/replace behaviour), generatorOptions, namespace, name
prefix/suffix, commonLabels and labels, commonAnnotations, images, replicas, buildMetadata,
sortOptions, strategic merge and JSON 6902 patches (files, inline, targets with selectors),
replacements, vars and configurations/crds. String values are drawn from YAML edge cases (things
that look like numbers, booleans, dates or nulls, quotes, indicators, multi-line and non-ASCII
text), and some cases add hand-written documents using anchors, merge keys, block scalars, flow
collections and tags. With the `yaml-bytes` area, some written files are then re-saved the way
editors and tools save them (no final newline, CRLF, CR, BOM, UTF-16, tab-indented comments).

Valid and invalid combinations are both produced on purpose: when kustomize rejects a case kdelta
should reject it too. The output depends only on SEED (and AREA), so a case is reproduced by its
seed.

AREA makes one feature area (for example `replacements`, `json6902`, `cmgen`, `yaml-edge`) always
present and the others rarer; the area names are those printed.

Prints one line: the build directory relative to OUTDIR, then the feature areas the case uses.
Needs PyYAML (`pip install pyyaml` or the distribution's python3-yaml).
"""

import argparse
import json
import os
import random
import re
import sys

try:
    import yaml
except ImportError:
    sys.exit("gen.py needs PyYAML: pip install pyyaml (or apt-get install python3-yaml)")

# Per-case state, set by generate().
R = random.Random(0)
OUT = "."
FORCE = None
areas = set()
GEN_NAMES = {"cm": [], "sec": []}


WRITTEN = []

def w(path, text):
    p = os.path.join(OUT, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    with open(p, 'w') as f:
        f.write(text)
    if p not in WRITTEN:
        WRITTEN.append(p)

# How editors and tools save files: each takes the text of a whole file and gives its bytes.
def _utf16(text, endian):
    return ("\ufeff" + text.replace("\r\n", "\n").replace("\n", "\r\n")).encode("utf-16-" + endian)

BYTE_SHAPES = {
    "no-final-newline": lambda t: t.rstrip("\n").encode(),
    "crlf": lambda t: t.replace("\n", "\r\n").encode(),
    "cr-only": lambda t: t.replace("\n", "\r").encode(),
    "bom": lambda t: ("\ufeff" + t).encode(),
    "bom-later-docs": lambda t: t.replace("\n---\n", "\n---\n\ufeff").encode(),
    "utf16le": lambda t: _utf16(t, "le"),
    "utf16be": lambda t: _utf16(t, "be"),
    "tab-comments": lambda t: (t + "# saved by an editor\n\t# with a tab\n \t\n").encode(),
    "tab-comment-no-newline": lambda t: (t + "# c\n\t# tab").encode(),
}

def reshape_files():
    """Re-save one to three written files the way real tools do (area yaml-bytes)."""
    if not WRITTEN or not maybe_area("yaml-bytes", 0.25):
        return
    areas.add("yaml-bytes")
    for p in R.sample(WRITTEN, min(len(WRITTEN), R.randint(1, 3))):
        with open(p) as f:
            text = f.read()
        shape = R.choice(sorted(BYTE_SHAPES))
        with open(p, "wb") as f:
            f.write(BYTE_SHAPES[shape](text))

def dump(obj):
    # Sometimes leaf collections in flow style (`args: [a, b]`), which kyaml keeps through patches.
    flow = None if R.random() < 0.15 else False
    return yaml.safe_dump(obj, sort_keys=R.random() < 0.3, default_flow_style=flow, allow_unicode=True, width=R.choice([80, 1000]))

def dumpall(objs):
    return yaml.safe_dump_all(objs, sort_keys=False, allow_unicode=True)

EDGE = ["0755", "1e3", "yes", "no", "on", "off", "~", "null", "2020-01-01", "2020-01-01T10:00:00Z", "", " ",
        "true", "False", "0x1F", "0o17", ".inf", "-.Inf", ".NaN", "1_000", "+12", "12:30:45", "1.0", "007",
        "a: b", "a #b", "it's", 'say "hi"', "back\\slash", "{x}", "[y]", "*star", "&anc", "!tag", "%pct", "@at",
        "`tick`", "line1\nline2", "trail \nspace", "  lead\n  more", "tab\there", "ends\n",
        "x" * 120, ("word " * 30).strip(), "héllo wörld", "日本語", "- dash", "? q", "| pipe",
        "> gt", "#hash", "a\tb\n", "multi\nline with trailing   \n", "\nleading newline", "=", "a=b=c",
        "12345678901234567890", "-1", "0", "1.5e-10", "Y", "n", "NO", "<<", "\u00a0nbsp", "ctl",
        "\ufeffbom first", "mid\ufeffbom", "ends in ls\u2028", "ends in ps\u2029", "a\u2028b", "\tstarts\nwith tab",
        "9223372036854775807", "18446744073709551616", "-0", "0o17", "017", "1.50", "k" * 1030]

def ev():
    return R.choice(EDGE)

def evk():
    return R.choice([e for e in EDGE if e not in ("Y", "n", "1e3", "1.5e-10")])

def name():
    return R.choice(["web", "api", "db", "cache", "worker", "front-end", "app", "svc-a", "my.app", "x"])

def LBL():
    return {R.choice(["app", "tier", "app.kubernetes.io/name", "team"]): R.choice(["web", "backend", "1", "true", "x.y"])}

def pod(nm, labels):
    c = {"name": nm, "image": R.choice(["nginx", "nginx:1.21", "busybox@sha256:" + "a" * 64, "gcr.io/proj/app:v1", "localhost:5000/img:t", "postgres"]) }
    if R.random() < 0.5:
        c["env"] = [{"name": "E%d" % i, "value": ev()} for i in range(R.randint(1, 3))]
    if R.random() < 0.4:
        c["ports"] = [{"containerPort": 8080, "name": "http"}]
    if R.random() < 0.3:
        c["args"] = [ev() for _ in range(2)]
    if R.random() < 0.2:
        c["envFrom"] = [{"configMapRef": {"name": "cfg"}}, {"secretRef": {"name": "sec"}}]
    spec = {"containers": [c]}
    if R.random() < 0.3:
        spec["initContainers"] = [{"name": "init", "image": "busybox:1.0"}]
    if R.random() < 0.3:
        spec["volumes"] = [{"name": "v", "configMap": {"name": "cfg"}}, {"name": "s", "secret": {"secretName": "sec"}}]
    if R.random() < 0.2:
        spec["serviceAccountName"] = "sa"
    return {"metadata": {"labels": dict(labels)}, "spec": spec}

def workload(kind):
    nm = name(); lb = LBL()
    if kind == "Deployment":
        o = {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": nm}, "spec": {"replicas": R.randint(1, 5), "selector": {"matchLabels": dict(lb)}, "template": pod(nm, lb)}}
    elif kind == "StatefulSet":
        o = {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": nm}, "spec": {"serviceName": nm, "replicas": 2, "selector": {"matchLabels": dict(lb)}, "template": pod(nm, lb),
             "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}}
    elif kind == "DaemonSet":
        o = {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": nm}, "spec": {"selector": {"matchLabels": dict(lb)}, "template": pod(nm, lb)}}
    elif kind == "Job":
        o = {"apiVersion": "batch/v1", "kind": kind, "metadata": {"name": nm}, "spec": {"template": pod(nm, lb)}}
    elif kind == "CronJob":
        o = {"apiVersion": "batch/v1", "kind": kind, "metadata": {"name": nm}, "spec": {"schedule": "*/5 * * * *", "jobTemplate": {"spec": {"template": pod(nm, lb)}}}}
    if R.random() < 0.3:
        o["metadata"]["labels"] = LBL()
    if R.random() < 0.3:
        o["metadata"]["annotations"] = {"note": ev()}
    return o

def other(kind):
    nm = name()
    if kind == "Service":
        o = {"apiVersion": "v1", "kind": kind, "metadata": {"name": nm}, "spec": {"selector": LBL(), "ports": [{"port": 80, "targetPort": R.choice([8080, "http"])}]}}
    elif kind == "Ingress":
        o = {"apiVersion": "networking.k8s.io/v1", "kind": kind, "metadata": {"name": nm}, "spec": {"rules": [{"host": "a.example.com", "http": {"paths": [{"path": "/", "pathType": "Prefix", "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}],
             "tls": [{"hosts": ["a.example.com"], "secretName": "sec"}]}}
    elif kind == "ConfigMap":
        o = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "cfg"}, "data": {"k%d" % i: ev() for i in range(R.randint(1, 5))}}
    elif kind == "Secret":
        o = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "sec"}, "type": "Opaque", "stringData": {"pw": ev()}, "data": {"b": "aGVsbG8="}}
    elif kind == "ServiceAccount":
        o = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "sa"}}
    elif kind == "Role":
        o = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]}]}
    elif kind == "RoleBinding":
        o = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": {"name": "rb"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "r"},
             "subjects": [{"kind": "ServiceAccount", "name": "sa"}, {"kind": "ServiceAccount", "name": "sa", "namespace": "other"}]}
    elif kind == "ClusterRoleBinding":
        o = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": {"name": "crb"}, "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": "cr"},
             "subjects": [{"kind": "ServiceAccount", "name": "sa", "namespace": "default"}]}
    elif kind == "ClusterRole":
        o = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind, "metadata": {"name": "cr"}, "rules": [{"apiGroups": ["*"], "resources": ["*"], "verbs": ["*"]}]}
    elif kind == "HorizontalPodAutoscaler":
        o = {"apiVersion": "autoscaling/v2", "kind": kind, "metadata": {"name": "hpa"}, "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "web"}, "minReplicas": 1, "maxReplicas": 3}}
    elif kind == "PodDisruptionBudget":
        o = {"apiVersion": "policy/v1", "kind": kind, "metadata": {"name": "pdb"}, "spec": {"minAvailable": R.choice([1, "50%"]), "selector": {"matchLabels": LBL()}}}
    elif kind == "NetworkPolicy":
        o = {"apiVersion": "networking.k8s.io/v1", "kind": kind, "metadata": {"name": "np"}, "spec": {"podSelector": {"matchLabels": LBL()}, "ingress": [{"from": [{"podSelector": {"matchLabels": LBL()}}]}]}}
    elif kind == "Namespace":
        o = {"apiVersion": "v1", "kind": kind, "metadata": {"name": "ns1"}}
    elif kind == "CRD":
        o = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition", "metadata": {"name": "widgets.example.com"},
             "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": "Namespaced",
                      "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {"type": "object"}}}]}}
    elif kind == "Widget":
        o = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w1"}, "spec": {"configRef": "cfg", "image": "nginx:1.0", "size": ev(), "items": [{"a": 1}, {"a": ev()}]}}
    elif kind == "PVC":
        o = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "pvc"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    return o

WK = ["Deployment", "StatefulSet", "DaemonSet", "Job", "CronJob"]
OK = ["Service", "Ingress", "ConfigMap", "Secret", "ServiceAccount", "Role", "RoleBinding", "ClusterRoleBinding", "ClusterRole",
      "HorizontalPodAutoscaler", "PodDisruptionBudget", "NetworkPolicy", "Namespace", "CRD", "Widget", "PVC"]

def resources(n, pfx=""):
    objs = []
    seen = set()
    for _ in range(n):
        k = R.choice(WK + OK)
        o = workload(k) if k in WK else other(k)
        if pfx: o["metadata"]["name"] = pfx + o["metadata"]["name"]
        key = (o["kind"], o["metadata"]["name"])
        if key in seen: continue
        seen.add(key); objs.append(o)
    return objs

RAW_EDGE_DOCS = [
"""apiVersion: v1
kind: ConfigMap
metadata:
  name: raw1
  annotations:
    a: &anc "anchored"
    b: *anc
data:
  plain: hello world
  folded: >
    folded text
    continues here

    para
  literal: |
    line one
      indented
    trailing   
  strip: |-
    strip
  quoted: 'single ''quote'''
  dq: "tab\\tnewline\\n"
  num: !!str 123
  flow: "{a: 1}"
""",
"""# leading comment
---
---
apiVersion: v1
kind: ConfigMap
metadata: {name: flowcm, labels: {a: b}}
data: {x: "1", y: 'two', z: three}  # trailing comment
---
""",
"""apiVersion: v1
kind: ConfigMap
metadata:
  name: mergekeys
base: &base
  a: 1
  b: 2
data:
  k: v
extra:
  <<: *base
  c: 3
""",
"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: rawdep
  labels:
    "quoted key": v
    'x/y': z
spec:
  selector:
    matchLabels: {app: rawdep}
  template:
    metadata:
      labels: {app: rawdep}
    spec:
      containers:
      - name: c
        image: nginx
        command: ["sh", "-c", "echo $(A) && sleep 1"]
        args:
        - |
          multi
          line arg
        - >-
          folded arg
        env:
        - {name: A, value: "0755"}
        - name: B
          value: 1e3
        - name: C
          value: yes
        - name: D
          value: ~
        - name: E
          value: 2020-01-01
        - name: F
          value: 'on'
        - name: G
          value: "a very long string with spaces that goes past eighty columns for sure because it is long, yes indeed it is"
        - name: H
          value: averylongstringwithoutanyspacesthatgoespasteightycolumnsforsurebecauseitislongyesindeeditisverylong
        - name: I
          value: "trailing spaces   "
        - name: J
          value: "   leading"
        - name: K
          value: "emoji é"
        - name: L
          value: "x: y # z"
""",
"""apiVersion: v1
kind: ConfigMap
metadata:
  name: weird
data:
  "key with spaces": v
  "123": numeric key
  "true": boolkey
  "": emptykey
  nested: "[1, 2]"
  octal: 0o755
  hex: 0xff
  float: 1.50
  int: 0012
  neg: -0
  date: 2001-12-14t21:59:43.10-05:00
  binary: !!binary aGVsbG8=
  long_folded: "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua."
  ml_trailing: "a\\nb  \\nc"
  ml_tab: "a\\n\\tb"
  crlf: "a\\r\\nb"
  lead_nl: "\\nfoo"
  uni_escape: "\\u00e9\\u2028x"
""",
"""apiVersion: example.com/v1
kind: Widget
metadata:
  name: nested
spec:
  matrix:
  - - 1
    - 2
  - - a
    - [b, c]
  - []
  - {}
  emptyMap: {}
  emptyList: []
  nullv: null
  tilde: ~
  bare:
  tagged: !custom value
  bool: True
  BOOL: FALSE
  str: !!str true
  int: !!int "42"
  float: 3.0
  exp: 6.02e+23
""",
]

RAW_EDGE_DOCS += [
"""apiVersion: v1
kind: ConfigMap
metadata:
  name: escapes
  annotations:
    apostrophe: "it\\'s"
    bang-int: ! 12
    bang-str: ! "12"
    dup: first
    tilde: ~
    hex: 0x1F
    float: 1.50
    under: 1_000
    dup: second
    bin: !!binary aGVsbG8=
    max: 9223372036854775807
data:
  ls: "hello\\u2028"
  ps: "x\\u2029"
  bom: "\\ufeffbom"
  tab-first: "\\thello\\nworld"
  bang: ! 0x1F
  folded-spaces: >
    hello 
      more indented

    back
  folded-plain: >
    a
      b
    c
""",
"""apiVersion: v1
kind: ConfigMap
metadata:
  name: blocks
data:
  lit-indent: |2
     leading space
    next
  keep: |+
    kept

  strip: >-
    folded
    strip
  # a comment line
\t# a tab-indented comment after it
  after: x
  last: |
    ends the document
""",
"""apiVersion: example.com/v1
kind: Widget
metadata:
  name: longkey
spec:
  ? """ + "k" * 1000 + """
  : long key
  ? """ + "\u00e9" * 900 + """
  : accented key
  items:
  -
  - x
  - 
""",
"""apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: listed
    annotations:
      hex: 0x1F
      tilde: ~
      float: 1.50
  data:
    big: 18446744073709551616
""",
]

def edge_docs():
    areas.add("yaml-edge")
    k = R.sample(RAW_EDGE_DOCS, R.randint(1, 3))
    return "\n---\n".join(x.rstrip("\n") + "\n" for x in k)


def scalar_paths(o, pre=()):
    out = []
    if isinstance(o, dict):
        for k, v in o.items():
            out += scalar_paths(v, pre + (str(k),))
    elif isinstance(o, list):
        for i, v in enumerate(o):
            out += scalar_paths(v, pre + (str(i),))
    else:
        out.append(pre)
    return out

def get(o, p):
    for x in p:
        o = o[int(x)] if isinstance(o, list) else o[x]
    return o

def jp(p):
    return "/" + "/".join(x.replace("~", "~0").replace("/", "~1") for x in p)

def kp(p, obj=None):
    # kustomize fieldPath; sometimes use [name=..] selectors for lists
    parts = []
    cur = obj
    for x in p:
        if isinstance(cur, list) and isinstance(cur[int(x)], dict) and "name" in cur[int(x)] and R.random() < 0.5:
            parts.append("[name=%s]" % cur[int(x)]["name"])
        else:
            parts.append("[%s]" % x if "." in x else x)
        if cur is not None:
            cur = cur[int(x)] if isinstance(cur, list) else cur[x]
    return ".".join(parts)

def pick(p):
    return R.random() < p

def maybe_area(a, p):
    """Whether feature area `a` (probability p) is used here; AREA forces it on, the others rarer."""
    if FORCE:
        return a == FORCE or R.random() < p / 3
    return R.random() < p

def gen_generators(k, base_dir, overlay=False):
    if maybe_area("cmgen", 0.4):
        areas.add("cmgen")
        gens = []
        for i in range(R.randint(1, 2)):
            g = {"name": R.choice(["cfg", "app-config", "gen%d" % i])}
            if overlay and GEN_NAMES["cm"] and pick(0.6):
                g["name"] = R.choice(GEN_NAMES["cm"]); g["behavior"] = R.choice(["merge", "replace"])
            elif g["name"] in GEN_NAMES["cm"] or any(x["name"] == g["name"] for x in gens): continue
            else: GEN_NAMES["cm"].append(g["name"])
            if pick(0.7): g["literals"] = ["%s=%s" % (kk, R.choice(["x", "0755", "yes", "a b", "", "\"q\"", "'s'", "=eq", "multi word val", "é"])) for kk in R.sample(["A", "B", "key.dots", "K_1"], R.randint(1, 3))]
            if pick(0.4):
                fn = R.choice(["app.properties", "conf.json", "script.sh"])
                w(os.path.join(base_dir, fn), R.choice(["a=b\nc=d\n", "{\"k\": 1}\n", "#!/bin/sh\necho hi  \n\tindent\n", "no trailing newline", "x: y\nlong " + "z" * 100 + "\n"]))
                g["files"] = [R.choice([fn, "renamed.key=" + fn])]
                if "literals" in g: g["literals"] = [l for l in g["literals"] if not l.startswith(fn)]
            if pick(0.3):
                w(os.path.join(base_dir, "vars.env"), R.choice(["E_A=1\nE_B=two\n# comment\n\nE_C=\"quoted\"\n", "E_X=y\nE_EMPTY=\nE_SP=a b \n", "E_K=v\n", "E_Q='single'\n  E_IND=x\nE_EQ=a=b\n"]))
                g["envs"] = ["vars.env"]
            if pick(0.3):
                g["options"] = {}
                if pick(0.5): g["options"]["disableNameSuffixHash"] = True
                if pick(0.5): g["options"]["labels"] = LBL()
                if pick(0.5): g["options"]["annotations"] = {"gen": evk()}
                if pick(0.3): g["options"]["immutable"] = True
            if pick(0.2): g["namespace"] = "gns"
            gens.append(g)
        k["configMapGenerator"] = gens
    if maybe_area("secretgen", 0.3):
        areas.add("secretgen")
        g = {"name": "sec" if pick(0.5) else "creds", "literals": ["user=admin", "pw=%s" % R.choice(["s3cr3t", "a=b", "ü", ""])]}
        if pick(0.3): g["type"] = R.choice(["kubernetes.io/tls", "Opaque", "kubernetes.io/basic-auth"])
        if g.get("type") == "kubernetes.io/tls":
            g["literals"] = ["tls.crt=CRT", "tls.key=KEY"]
        if g["name"] in GEN_NAMES["sec"]:
            g["behavior"] = R.choice(["merge", "replace"])
        GEN_NAMES["sec"].append(g["name"])
        k["secretGenerator"] = [g]
    if maybe_area("genoptions", 0.15):
        areas.add("genoptions")
        k["generatorOptions"] = {}
        if pick(0.5): k["generatorOptions"]["disableNameSuffixHash"] = True
        if pick(0.5): k["generatorOptions"]["labels"] = LBL()
        if pick(0.5): k["generatorOptions"]["annotations"] = {"ga": "gv"}
        if pick(0.2): k["generatorOptions"]["immutable"] = True

def gen_transformers(k, objs):
    if maybe_area("namespace", 0.35):
        areas.add("namespace"); k["namespace"] = R.choice(["prod", "dev", "ns1", "kube-system"])
    if maybe_area("prefix", 0.35):
        areas.add("prefix")
        if pick(0.7): k["namePrefix"] = R.choice(["p-", "pre", "a.b-"])
        if pick(0.5): k["nameSuffix"] = R.choice(["-s", "-v2", ".x"])
    if maybe_area("labels", 0.4):
        areas.add("labels")
        if pick(0.5): k["commonLabels"] = LBL() if pick(0.8) else {"env": evk()}
        if pick(0.6):
            l = {"pairs": LBL()}
            if pick(0.5): l["includeSelectors"] = pick(0.5)
            if pick(0.5): l["includeTemplates"] = pick(0.5)
            if pick(0.3): l["fields"] = [{"path": R.choice(["spec/selector", "metadata/labels", "spec/template/metadata/labels", "spec/foo/bar"]), "kind": R.choice(["Deployment", "Widget", "Service"]), "create": pick(0.5)}]
            k["labels"] = [l]
    if maybe_area("annotations", 0.3):
        areas.add("annotations"); k["commonAnnotations"] = {R.choice(["note", "a.b/c"]): evk()}
    if maybe_area("images", 0.35):
        areas.add("images")
        im = {"name": R.choice(["nginx", "busybox", "gcr.io/proj/app", "postgres", "localhost:5000/img", "*"])}
        c = R.random()
        if c < 0.3: im["newTag"] = R.choice(["1.2.3", "latest", "v1"])
        elif c < 0.5: im["digest"] = "sha256:" + "b" * 64
        elif c < 0.7: im["newName"] = R.choice(["my.registry/nginx", "quay.io/x/y"]); im["newTag"] = "2"
        else: im["newName"] = "other"
        k["images"] = [im]
    if maybe_area("replicas", 0.25):
        areas.add("replicas"); cands = [o["metadata"]["name"] for o in objs if o["kind"] in ("Deployment","StatefulSet") and not any(x["metadata"]["name"] == o["metadata"]["name"] and x["kind"] not in ("Deployment","StatefulSet") for x in objs)]
        if cands: k["replicas"] = [{"name": R.choice(cands), "count": R.randint(0, 9)}]
    if maybe_area("buildmeta", 0.1):
        areas.add("buildmeta"); k["buildMetadata"] = R.sample(["managedByLabel", "originAnnotations", "transformerAnnotations"], R.randint(1, 3))
    if maybe_area("sort", 0.15):
        areas.add("sort")
        if pick(0.5): k["sortOptions"] = {"order": "fifo"}
        else: k["sortOptions"] = {"order": "legacy", "legacySortOptions": {"orderFirst": R.sample(["Namespace", "ConfigMap", "Service", "Deployment"], 2), "orderLast": ["Secret"]}}

def gen_patches(k, objs, d):
    if not objs: return
    if maybe_area("smp", 0.4):
        areas.add("smp")
        o = R.choice(objs)
        p = {"apiVersion": o["apiVersion"], "kind": o["kind"], "metadata": {"name": o["metadata"]["name"]}}
        c = R.random()
        if o["kind"] in WK:
            tmpl = {"spec": {"containers": [{"name": o["metadata"]["name"], "image": "patched:1", "env": [{"name": "NEW", "value": ev()}]}]}}
            if pick(0.3): tmpl["spec"]["containers"][0]["args"] = [None, ev()]
            if pick(0.3): tmpl["spec"]["containers"].append({"name": "sidecar", "image": "side"})
            if pick(0.2): tmpl["spec"]["containers"][0]["$patch"] = "delete" if pick(0.3) else "replace"
            if o["kind"] == "CronJob": p["spec"] = {"jobTemplate": {"spec": {"template": tmpl}}}
            else: p["spec"] = {"template": tmpl}
            if pick(0.3): p["metadata"]["labels"] = {"patched": "true"}
        else:
            p["metadata"]["annotations"] = {"patched": ev()}
            if "data" in o: p["data"] = {"new": ev(), R.choice(list(o["data"].keys())): None}
        if c < 0.1: p = {"$patch": "delete", "apiVersion": o["apiVersion"], "kind": o["kind"], "metadata": {"name": o["metadata"]["name"]}}
        fn = "smp%d.yaml" % R.randint(0, 99)
        text = dump(p)
        if pick(0.5): text = text.replace("- null\n", "-\n")  # an empty list item
        w(os.path.join(d, fn), text)
        m = R.random()
        if m < 0.3: k.setdefault("patchesStrategicMerge", []).append(fn)
        elif m < 0.8:
            e = {"path": fn}
            if pick(0.4): e["target"] = {"kind": o["kind"]} if pick(0.5) else {"name": ".*", "kind": o["kind"]}
            k.setdefault("patches", []).append(e)
        else:
            k.setdefault("patches", []).append({"patch": dump(p)})
    if maybe_area("json6902", 0.35):
        areas.add("json6902")
        o = R.choice(objs)
        ops = []
        sp = [p for p in scalar_paths(o) if p[:1] not in (("apiVersion",), ("kind",)) and p != ("metadata", "name")]
        for _ in range(R.randint(1, 3)):
            c = R.random()
            if not sp: break
            p = R.choice(sp)
            if c < 0.2: ops.append({"op": "add", "path": "/metadata/annotations", "value": {"j": ev()}})
            elif c < 0.4: ops.append({"op": "replace", "path": jp(p), "value": R.choice([ev(), 3, True, None, {"m": 1}, ["l"]])})
            elif c < 0.5: ops.append({"op": "remove", "path": jp(p)}); sp.remove(p)
            elif c < 0.6: ops.append({"op": "add", "path": jp(p[:-1]) + "/" + ("-" if p[-1].isdigit() else "newkey"), "value": ev()})
            elif c < 0.7: ops.append({"op": "test", "path": jp(p), "value": get(o, p)})
            elif c < 0.8: ops.append({"op": "copy", "from": jp(p), "path": "/metadata/labels" if pick(0.5) else "/metadata/annotations~1x"})
            elif c < 0.9: ops.append({"op": "replace", "path": "/metadata/name", "value": "renamed"})
            else: ops.append({"op": "add", "path": jp(p), "value": ev()})
        if not ops: ops.append({"op": "add", "path": "/metadata/annotations", "value": {"j": "x"}})
        tgt = {"kind": o["kind"], "name": o["metadata"]["name"]}
        if pick(0.3): tgt = {"kind": o["kind"]}
        if pick(0.2): tgt["labelSelector"] = R.choice(["app=web", "app!=web", "app in (web,backend)", "app"])
        if pick(0.1): tgt["annotationSelector"] = "note"
        if pick(0.2): tgt["name"] = R.choice(["w.*", "^web$", "(web|api)", "we"])
        if pick(0.3): tgt["version"] = o["apiVersion"].split("/")[-1]
        if pick(0.5):
            fn = "j%d.%s" % (R.randint(0, 99), R.choice(["yaml", "json"]))
            w(os.path.join(d, fn), json.dumps(ops) if fn.endswith("json") else dump(ops))
            if pick(0.4): k.setdefault("patchesJson6902", []).append({"target": tgt, "path": fn})
            else: k.setdefault("patches", []).append({"target": tgt, "path": fn})
        else:
            k.setdefault("patches", []).append({"target": tgt, "patch": dump(ops) if pick(0.7) else json.dumps(ops)})

def gen_replacements(k, objs, d):
    if not objs or not maybe_area("replacements", 0.3): return
    areas.add("replacements")
    src = R.choice(objs)
    s = {"kind": src["kind"], "name": src["metadata"]["name"]}
    s["fieldPath"] = kp(R.choice(scalar_paths(src)), src)
    if pick(0.1): s["options"] = {"delimiter": R.choice([":", "/", "-"]), "index": R.randint(0, 1)}
    if pick(0.1): del s["fieldPath"]
    tgts = []
    for _ in range(R.randint(1, 2)):
        t = R.choice(objs)
        tt = {"select": {"kind": t["kind"]}}
        if pick(0.5): tt["select"]["name"] = t["metadata"]["name"]
        if pick(0.6):
            tt["fieldPaths"] = [kp(R.choice(scalar_paths(t)), t) for _ in range(R.randint(1, 2))]
        else:
            tt["fieldPaths"] = [R.choice(["metadata.annotations.from", "metadata.labels.x", "spec.template.spec.containers.*.env.[name=E0].value", "data.new", "spec.template.spec.containers.[name=nope].image", "spec.new.deep.path"])]
            tt["options"] = {"create": True}
        if pick(0.2): tt["options"] = {"create": pick(0.7)}
        if pick(0.2): tt.setdefault("options", {}).update({"delimiter": R.choice([".", ":", "/"]), "index": R.randint(0, 2)})
        if pick(0.2): tt["reject"] = [{"kind": R.choice(["ConfigMap", "Service", "Deployment"])}]
        tgts.append(tt)
    rep = {"source": s, "targets": tgts}
    if pick(0.3):
        w(os.path.join(d, "repl.yaml"), dump([rep] if pick(0.5) else rep))
        k["replacements"] = [{"path": "repl.yaml"}]
    else:
        k["replacements"] = [rep]

def gen_vars(k, objs):
    if not objs or not maybe_area("vars", 0.15): return
    areas.add("vars")
    o = R.choice(objs)
    k["vars"] = [{"name": "MYVAR", "objref": {"kind": o["kind"], "name": o["metadata"]["name"], "apiVersion": o["apiVersion"]}, "fieldref": {"fieldPath": "metadata.name"}}]
    # inject $(MYVAR) somewhere
    for x in objs:
        if x["kind"] in ("Deployment", "StatefulSet", "DaemonSet", "Job"):
            x["spec"]["template"]["spec"]["containers"][0]["args"] = ["--x=$(MYVAR)", "$(UNDEF)", "$$(MYVAR)"]
            break
        if x["kind"] == "ConfigMap":
            x["data"]["ref"] = "$(MYVAR)"

def gen_configurations(k, objs, d):
    if not maybe_area("configurations", 0.15): return
    areas.add("configurations")
    cfg = {}
    c = R.random()
    if c < 0.4: cfg["nameReference"] = [{"kind": "ConfigMap", "fieldSpecs": [{"kind": "Widget", "path": "spec/configRef"}]}]
    elif c < 0.7: cfg["images"] = [{"kind": "Widget", "path": "spec/image"}]
    else: cfg["commonLabels"] = [{"kind": "Widget", "path": "spec/selector/labels", "create": True}]
    if pick(0.3): cfg["varReference"] = [{"kind": "Widget", "path": "spec/size"}]
    w(os.path.join(d, "conf.yaml"), dump(cfg))
    k["configurations"] = ["conf.yaml"]
    if pick(0.3):
        w(os.path.join(d, "crd.json"), json.dumps({"definitions": {"com.example.v1.Widget": {"properties": {"spec": {"properties": {"configRef": {"x-kubernetes-object-ref-api-version": "v1", "x-kubernetes-object-ref-kind": "ConfigMap", "type": "string"}}}}}}}))
        k["crds"] = ["crd.json"]

def kust(k):
    if pick(0.5):
        k = {"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization", **k}
    return dump(k)

def write_resources(d, objs, k):
    if not objs and not pick(0.3): return
    if pick(0.5):
        txt = dumpall(objs)
        if pick(0.3): txt = "---\n" + txt + "---\n"
        w(os.path.join(d, "all.yaml"), txt); k.setdefault("resources", []).append("all.yaml")
    else:
        for i, o in enumerate(objs):
            fn = "%s-%d.yaml" % (o["kind"].lower(), i)
            w(os.path.join(d, fn), dump(o)); k.setdefault("resources", []).append(fn)
    if maybe_area("yaml-edge", 0.3):
        w(os.path.join(d, "edge.yaml"), re.sub(r"\b(raw1|flowcm|mergekeys|rawdep|weird|nested|escapes|blocks|longkey|listed)\b", d + r"-\1", edge_docs())); k.setdefault("resources", []).append("edge.yaml")

def layout():
    """Write base/, maybe overlay/ (with comp/) and top/; return the build directory."""
    bobjs = resources(R.randint(1, 6))
    kb = {}
    gen_vars(kb, bobjs)
    write_resources("base", bobjs, kb)
    gen_generators(kb, "base")
    if pick(0.5): gen_transformers(kb, bobjs)
    gen_patches(kb, bobjs, "base")
    gen_configurations(kb, bobjs, "base")
    if pick(0.4): gen_replacements(kb, bobjs, "base")
    w("base/kustomization.yaml", kust(kb))
    top = "base"
    if maybe_area("overlay", 0.7):
        areas.add("overlay")
        ko = {"resources": ["../base"]}
        oobjs = resources(R.randint(0, 2), "o")
        write_resources("overlay", oobjs, ko)
        allobjs = bobjs + oobjs
        if maybe_area("components", 0.3):
            areas.add("components")
            kc = {"apiVersion": "kustomize.config.k8s.io/v1alpha1", "kind": "Component"}
            cobjs = resources(R.randint(0, 1), "c")
            write_resources("comp", cobjs, kc)
            gen_patches(kc, allobjs, "comp")
            if pick(0.5): gen_transformers(kc, allobjs)
            if pick(0.4): gen_generators(kc, "comp", overlay=True)
            w("comp/kustomization.yaml", dump(kc))
            ko["components"] = ["../comp"]
        gen_generators(ko, "overlay", overlay=True)
        gen_transformers(ko, allobjs)
        gen_patches(ko, allobjs, "overlay")
        gen_replacements(ko, allobjs, "overlay")
        w("overlay/kustomization.yaml", kust(ko))
        top = "overlay"
        if pick(0.5):
            areas.add("top3")
            kt = {"resources": ["../overlay"]}
            gen_generators(kt, "top", overlay=True)
            gen_transformers(kt, allobjs)
            gen_patches(kt, allobjs, "top")
            gen_replacements(kt, allobjs, "top")
            w("top/kustomization.yaml", kust(kt))
            top = "top"
    return top

def generate(seed, out, area=None):
    """Write case SEED into directory `out`; return (build dir relative to out, sorted areas)."""
    global R, OUT, FORCE, areas, GEN_NAMES
    R = random.Random(seed)
    OUT = out
    FORCE = area
    areas = set()
    GEN_NAMES = {"cm": [], "sec": []}
    WRITTEN.clear()
    top = layout()
    reshape_files()
    return top, sorted(areas)


def main():
    ap = argparse.ArgumentParser(
        description="Generate a random kustomization tree (see the module docstring).")
    ap.add_argument("seed", type=int, help="random seed; the same seed gives the same tree")
    ap.add_argument("outdir", help="directory to write into (created if missing)")
    ap.add_argument("area", nargs="?", help="feature area to force on, e.g. replacements")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    top, used = generate(args.seed, args.outdir, args.area)
    print(top, " ".join(used))


if __name__ == "__main__":
    main()

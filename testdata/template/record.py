#!/usr/bin/env python3
"""Records testdata/template/*/expected.json with the reference helm v3.17.3.

Usage: record.py [CATEGORY...]   (default: every directory holding a probes.json)
Environment: HELM (default: `helm` on PATH). See README.md for the method.
Only the Python standard library is used.
"""
import base64, json, os, re, shutil, subprocess, sys, tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HELM = os.environ.get("HELM", "helm")
CHART_YAML = "apiVersion: v2\nname: probe\nversion: 0.1.0\n"
PROBE_NAME = "probe/templates/_probe.tpl"      # canonical template name of a probe
FILE_NAME = "templates/probe.yaml"             # file-level probes
# Rendered alone (not in the category batch): probes that define templates (all templates of a
# chart share one namespace) and probes that could mutate a map (the batch shares one .Values).
SOLO = re.compile(r"\{\{-?\s*(define|block)\b|\b(set|unset|merge|mergeOverwrite|mustMerge|mustMergeOverwrite)\b")
TIMEOUT = 120
runs = 0


def helm_template(files):
    """Writes a chart `probe` (values.yaml = data.yaml) plus `files` into a temp dir and runs
    `helm template <dir>`. Returns (rc, stdout, first line of the error without 'Error: ')."""
    global runs
    runs += 1
    d = tempfile.mkdtemp(prefix="kdelta-probe-")
    try:
        chart = os.path.join(d, "probe")
        os.makedirs(os.path.join(chart, "templates"))
        files = dict(files)
        files["Chart.yaml"] = CHART_YAML
        with open(os.path.join(HERE, "data.yaml"), "rb") as f:
            files["values.yaml"] = f.read()
        for rel, text in files.items():
            p = os.path.join(chart, rel)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            with open(p, "wb") as f:
                f.write(text if isinstance(text, bytes) else text.encode("utf-8"))
        p = subprocess.run([HELM, "template", chart], capture_output=True, timeout=TIMEOUT,
                           env=dict(os.environ, HELM_DEBUG="", LC_ALL="C", TZ="UTC"))
        out = p.stdout.decode("utf-8", "surrogateescape")
        err = None
        if p.returncode != 0:
            lines = [l for l in p.stderr.decode("utf-8", "replace").split("\n") if l.startswith("Error: ")]
            err = lines[0][len("Error: "):] if lines else "helm exit %d: %s" % (
                p.returncode, p.stderr.decode("utf-8", "replace").strip().split("\n")[-1])
        return p.returncode, out, err
    finally:
        shutil.rmtree(d)


def decode_out(b64):
    raw = base64.b64decode(b64)
    try:
        return {"out": raw.decode("utf-8")}
    except UnicodeDecodeError:
        return {"out_b64": b64}


def go_quoted_end(s, i):
    """s[i] == '"': returns the index after the closing quote of a Go %q string."""
    i += 1
    while s[i] != '"':
        i += 2 if s[i] == "\\" else 1
    return i + 1


def go_parse_error(text):
    """The raw Go parse error for `text` parsed under PROBE_NAME (helm's own message keeps only
    the location and the last ': '-separated part). Obtained through `tpl`, which parses under
    the name "gotpl" and wraps the raw error: cannot parse template "<text>": template: gotpl:..."""
    rc, _, err = helm_template({"probe.txt": text,
                                "templates/out.yaml": '{{ tpl (.Files.Get "probe.txt") .Values }}'})
    marker = "cannot parse template "
    if rc == 0 or err is None or marker not in err:
        return None
    i = err.index(marker) + len(marker)
    rest = err[go_quoted_end(err, i):]
    if not rest.startswith(": template: gotpl:"):
        return None
    # the name also appears in e.g. "unclosed action started at gotpl:1"
    return re.sub(r"\bgotpl:(?=\d)", PROBE_NAME + ":", rest[len(": "):])


def record_solo(text):
    # Run A: output bytes through include | b64enc.
    rc, out, err = helm_template({
        "templates/_probe.tpl": text,
        "templates/out.yaml": 'out: "{{ include "%s" .Values | b64enc }}"\n' % PROBE_NAME})
    if rc == 0:
        m = re.search(r'^out: "([A-Za-z0-9+/=]*)"$', out, re.M)
        return decode_out(m.group(1))
    # Run B: the error as helm reports it when the probe runs through the `template` action,
    # i.e. with the probe's own template name, line and column.
    rc2, _, err2 = helm_template({
        "templates/_probe.tpl": text,
        "templates/out.yaml": '{{ template "%s" .Values }}' % PROBE_NAME})
    if rc2 == 0 or err2.startswith("YAML parse error"):
        print("  warning: run B did not fail like run A; keeping run A's error", file=sys.stderr)
        rec = {"error": err}
    else:
        rec = {"error": err2}
    if rec["error"].startswith("parse error at ("):
        g = go_parse_error(text)
        if g:
            rec["go_error"] = g
    return rec


def record_category(cat, probes, all_solo=False):
    results = {}
    batch = [(n, t) for n, t in probes if not (all_solo or SOLO.search(t))]
    solo = [(n, t) for n, t in probes if all_solo or SOLO.search(t)]
    while batch:
        files = {}
        lines = []
        for i, (n, t) in enumerate(batch):
            files["templates/_%04d.tpl" % i] = t
            lines.append('k%04d: "{{ include "probe/templates/_%04d.tpl" .Values | b64enc }}"' % (i, i))
        files["templates/out.yaml"] = "\n".join(lines) + "\n"
        rc, out, err = helm_template(files)
        if rc == 0:
            for m in re.finditer(r'^k(\d{4}): "([A-Za-z0-9+/=]*)"$', out, re.M):
                results[batch[int(m.group(1))][0]] = decode_out(m.group(2))
            break
        m = re.search(r"probe/templates/_(\d{4})\.tpl", err)
        if not m:
            m2 = re.search(r"probe/templates/out\.yaml:(\d+):", err)
            if not m2:
                raise SystemExit("%s: cannot attribute batch error: %s" % (cat, err))
            idx = int(m2.group(1)) - 1
        else:
            idx = int(m.group(1))
        solo.append(batch.pop(idx))
    for n, t in solo:
        results[n] = record_solo(t)
    return results


def record_file_level(probes):
    results = {}
    for n, t in probes:
        rc, out, err = helm_template({FILE_NAME: t})
        results[n] = {"out": out} if rc == 0 else {"error": err}
    return results


def serialize(names, res):
    ordered = {n: res[n] for n in names}
    return json.dumps(ordered, indent=1, ensure_ascii=False) + "\n"


def main():
    import argparse
    ap = argparse.ArgumentParser(description="Record expected.json files with the reference helm.")
    ap.add_argument("categories", nargs="*", help="default: every directory holding a probes.json")
    ap.add_argument("--check", action="store_true",
                    help="record into memory and compare with the committed expected.json; exit 1 on a difference")
    ap.add_argument("--solo", action="store_true",
                    help="render every probe in its own helm run (slow; used to validate the batching)")
    a = ap.parse_args()
    cats = a.categories or sorted(d for d in os.listdir(HERE)
                                  if os.path.isfile(os.path.join(HERE, d, "probes.json")))
    v = subprocess.run([HELM, "version", "--template", "{{ .Version }}"], capture_output=True, text=True).stdout
    if v.strip() != "v3.17.3":
        raise SystemExit("need the reference helm v3.17.3, got %r (set HELM=...)" % v)
    total = 0
    differ = []
    for cat in cats:
        with open(os.path.join(HERE, cat, "probes.json"), encoding="utf-8") as f:
            probes = json.load(f)
        names = [n for n, _ in probes]
        dup = {n for n in names if names.count(n) > 1}
        if dup:
            raise SystemExit("%s: duplicate probe names %s" % (cat, sorted(dup)))
        before = runs
        res = record_file_level(probes) if cat == "file-level" else record_category(cat, probes, a.solo)
        assert set(res) == set(names), (cat, set(names) ^ set(res))
        text = serialize(names, res)
        path = os.path.join(HERE, cat, "expected.json")
        if a.check:
            old = open(path, encoding="utf-8").read() if os.path.exists(path) else ""
            if old != text:
                differ.append(cat)
                oldj = json.loads(old) if old else {}
                for n in names:
                    if oldj.get(n) != res[n]:
                        print("  %s/%s: recorded %s, committed %s" % (
                            cat, n, json.dumps(res[n])[:300], json.dumps(oldj.get(n))[:300]), file=sys.stderr)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        nerr = sum(1 for r in res.values() if "error" in r)
        total += len(probes)
        print("%-24s %4d probes %4d errors %4d helm runs" % (cat, len(probes), nerr, runs - before),
              file=sys.stderr)
    print("total %d probes, %d helm runs" % (total, runs), file=sys.stderr)
    if differ:
        print("DIFFERENT: %s" % " ".join(differ), file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()

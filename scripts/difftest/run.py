#!/usr/bin/env python3
"""Differential test of `kdelta render` against `kubectl kustomize` on generated cases.

    scripts/difftest/run.py --kdelta PATH [--seeds START:COUNT] [--area AREA] [--keep DIR]

For each seed, gen.py writes a random kustomization tree into a temporary directory. Both tools
render its build directory (60 s timeout each): `kubectl kustomize DIR`, and `kdelta render
--show-secrets` started in the case directory, so that the case is the repository root. Results:

  SAME              both succeed with byte-identical output
  BOTHERR           both fail (the error messages are not compared)
  DIFF-output       both succeed with different output
  DIFF-kdelta-err   only kdelta fails (or times out)
  DIFF-kubectl-err  only kubectl fails (or times out)

Differing cases are copied to --keep (default difftest-out/) as seed-N/ with the tree in case/,
the build directory in build_dir.txt, and both tools' stdout and stderr. A table of results per
feature area is printed at the end. The exit status is 1 when any case differs.

Builds nothing: pass a kdelta binary (cargo build --bin kdelta). Needs kubectl (the reference is
kustomize v5.5.0, as in testdata/kustomize) and PyYAML.
"""

import argparse
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # no __pycache__ left in the repository
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import gen  # noqa: E402  (exits with a message when PyYAML is missing)

TIMEOUT = 60
RESULTS = ["SAME", "BOTHERR", "DIFF-output", "DIFF-kdelta-err", "DIFF-kubectl-err"]


def run_tool(cmd, cwd):
    """(exit code, stdout, stderr); a timeout counts as a failure."""
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, timeout=TIMEOUT)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        return -1, e.stdout or b"", (e.stderr or b"") + b"\n[timed out after %d s]\n" % TIMEOUT


def classify(k, d):
    krc, kout, _ = k
    drc, dout, _ = d
    if krc != 0 and drc != 0:
        return "BOTHERR"
    if krc != 0:
        return "DIFF-kubectl-err"
    if drc != 0:
        return "DIFF-kdelta-err"
    return "SAME" if kout == dout else "DIFF-output"


def parse_seeds(text):
    try:
        start, count = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError("expected START:COUNT, e.g. 1:40")
    return range(start, start + count)


def keep_case(keep, seed, case, top, used, result, k, d):
    dest = keep / f"seed-{seed}"
    shutil.rmtree(dest, ignore_errors=True)
    shutil.copytree(case, dest / "case", symlinks=True)
    (dest / "build_dir.txt").write_text(top + "\n")
    (dest / "result.txt").write_text(f"{result}\nareas: {' '.join(used)}\n"
                                     f"kubectl exit {k[0]}, kdelta exit {d[0]}\n")
    for name, (_, out, err) in (("kubectl", k), ("kdelta", d)):
        (dest / f"{name}.out").write_bytes(out)
        (dest / f"{name}.err").write_bytes(err)
    return dest


def print_table(rows, totals):
    short = ["same", "botherr", "diff-out", "diff-kd-err", "diff-kc-err"]
    width = max([len("area"), len("all cases")] + [len(a) for a in rows])
    head = f"{'area':<{width}} " + " ".join(f"{s:>11}" for s in short) + f" {'cases':>6}"
    print(head)
    print("-" * len(head))
    for area in sorted(rows):
        c = rows[area]
        print(f"{area:<{width}} " + " ".join(f"{c[r]:>11}" for r in RESULTS)
              + f" {sum(c.values()):>6}")
    print("-" * len(head))
    print(f"{'all cases':<{width}} " + " ".join(f"{totals[r]:>11}" for r in RESULTS)
          + f" {sum(totals.values()):>6}")


def main():
    ap = argparse.ArgumentParser(
        description="Compare kdelta render with kubectl kustomize on generated kustomizations.",
        epilog="Needs kubectl (kustomize v5.5.0) on PATH and PyYAML.")
    ap.add_argument("--kdelta", required=True, help="path of the kdelta binary to test")
    ap.add_argument("--seeds", type=parse_seeds, default=parse_seeds("1:100"),
                    metavar="START:COUNT", help="seeds to run (default 1:100)")
    ap.add_argument("--area", help="feature area to force on in every case (see gen.py)")
    ap.add_argument("--keep", default="difftest-out", metavar="DIR",
                    help="where differing cases are copied (default difftest-out/)")
    args = ap.parse_args()

    kdelta = pathlib.Path(args.kdelta).resolve()
    if not os.access(kdelta, os.X_OK):
        sys.exit(f"run.py: {args.kdelta} is not an executable kdelta binary")
    if shutil.which("kubectl") is None:
        sys.exit("run.py: kubectl is not on PATH")
    keep = pathlib.Path(args.keep).resolve()

    rows = {}
    totals = dict.fromkeys(RESULTS, 0)
    with tempfile.TemporaryDirectory(prefix="difftest-") as tmp:
        for seed in args.seeds:
            case = pathlib.Path(tmp) / f"seed-{seed}"
            top, used = gen.generate(seed, str(case), args.area)
            k = run_tool(["kubectl", "kustomize", str(case / top)], cwd=case)
            d = run_tool([str(kdelta), "render", "--show-secrets", top], cwd=case)
            result = classify(k, d)
            totals[result] += 1
            for area in used or ["(none)"]:
                rows.setdefault(area, dict.fromkeys(RESULTS, 0))[result] += 1
            line = f"seed {seed}: {result} [{' '.join(used)}]"
            if result.startswith("DIFF"):
                keep.mkdir(parents=True, exist_ok=True)
                line += f" -> {keep_case(keep, seed, case, top, used, result, k, d)}"
            print(line, flush=True)
            shutil.rmtree(case)

    print()
    print_table(rows, totals)
    diffs = sum(totals[r] for r in RESULTS if r.startswith("DIFF"))
    if diffs:
        print(f"\n{diffs} differing case(s) kept in {keep}")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Regenerate the expected outputs of the kustomize fixtures with the reference tool.

For every case directory (or the ones named on the command line) this reads `case.yaml`
(`build_dir`, `options.reorder`, `options.load_restrictor`, `options.enable_helm`,
`options.enable_alpha_plugins` with `options.plugin_home` and `options.home`), runs
`kubectl kustomize` from the
case directory exactly as a user would, and writes either `expected.yaml` (the tool's stdout) or
`expected-error.txt` (its error message, with the case's absolute path replaced by `$CASE`).
The `oracle:` block at the end of `case.yaml` is rewritten with the command and its exit code.
Nothing here is typed by hand: rerun this script after editing a case.
"""

import os
import pathlib
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent


def field(text, key):
    """The value of a `key: value` line (top level or one level down) in case.yaml."""
    m = re.search(rf"^\s*{re.escape(key)}:\s*(\S.*?)\s*$", text, re.M)
    return m.group(1) if m else None


def command_for(text):
    build_dir = field(text, "build_dir")
    if build_dir is None:
        raise SystemExit("case.yaml has no build_dir")
    cmd = ["kubectl", "kustomize"]
    reorder = field(text, "reorder") or "legacy"
    if reorder == "none":
        cmd += ["--reorder", "none"]
    elif reorder != "legacy":
        raise SystemExit(f"unknown reorder {reorder!r}")
    restrictor = field(text, "load_restrictor") or "LoadRestrictionsRootOnly"
    if restrictor == "LoadRestrictionsNone":
        cmd += ["--load-restrictor", "LoadRestrictionsNone"]
    elif restrictor != "LoadRestrictionsRootOnly":
        raise SystemExit(f"unknown load_restrictor {restrictor!r}")
    if (field(text, "enable_alpha_plugins") or "false") == "true":
        cmd.append("--enable-alpha-plugins")
    if (field(text, "enable_helm") or "false") == "true":
        # `helm` on PATH must be the reference helm v3.17.3 (../shared/tools/install-helm-oracle.sh).
        cmd += ["--enable-helm", "--helm-command", "helm"]
    cmd.append("in" if build_dir == "." else f"in/{build_dir}")
    return cmd


def error_message(stderr, case_dir):
    """The `err="..."` text kubectl logs, unquoted, with absolute paths made relative."""
    m = re.search(r'err="((?:[^"\\]|\\.)*)"', stderr)
    # klog writes a message with line breaks as `err=<`, its lines indented by a tab, then ` >`.
    multi = re.search(r'err=<\n(.*?)\n >', stderr, re.S)
    # A Go panic: its first line (the stack trace below it names addresses of the run).
    panic = re.search(r"^panic: .*$", stderr, re.M)
    if panic:
        msg = panic.group(0)
    elif m:
        msg = m.group(1).encode().decode("unicode_escape")
    elif multi:
        msg = "\n".join(l[1:] if l.startswith("\t") else l for l in multi.group(1).split("\n"))
    else:
        msg = stderr.strip()
    msg = msg.replace(str(case_dir), "$CASE")
    # The temporary file an exec plugin's config is written to (deleted after the run).
    msg = re.sub(r"/\S*?/kust-plugin-config-[0-9]+", "$PLUGIN_CONFIG", msg)
    return msg.strip() + "\n"


def environment_for(text, case_dir):
    """The environment of the oracle: for exec plugins, kustomize's plugin root is looked up
    from `$KUSTOMIZE_PLUGIN_HOME` (`options.plugin_home`, a directory of the case), never
    `$XDG_CONFIG_HOME`, and `$HOME` is `options.home` (default `home`) in the case, so that
    nothing of this machine's own configuration is found."""
    env = dict(os.environ)
    if (field(text, "enable_alpha_plugins") or "false") != "true":
        return env
    env.pop("KUSTOMIZE_PLUGIN_HOME", None)
    env.pop("XDG_CONFIG_HOME", None)
    plugin_home = field(text, "plugin_home")
    if plugin_home:
        env["KUSTOMIZE_PLUGIN_HOME"] = str(case_dir / plugin_home)
    env["HOME"] = str(case_dir / (field(text, "home") or "home"))
    return env


def regen(case_dir):
    case_file = case_dir / "case.yaml"
    text = case_file.read_text()
    cmd = command_for(text)
    runs = [
        subprocess.run(
            cmd, cwd=case_dir, env=environment_for(text, case_dir), capture_output=True, text=True
        )
        for _ in range(2)
    ]
    if (runs[0].returncode, runs[0].stdout) != (runs[1].returncode, runs[1].stdout):
        raise SystemExit(f"{case_dir.name}: the reference tool is not deterministic here")
    run = runs[0]
    for stale in ("expected.yaml", "expected-error.txt"):
        (case_dir / stale).unlink(missing_ok=True)
    if run.returncode == 0:
        (case_dir / "expected.yaml").write_text(run.stdout)
        result = "stdout: expected.yaml"
    else:
        (case_dir / "expected-error.txt").write_text(error_message(run.stderr, case_dir))
        result = "stderr: expected-error.txt"
    head = text.split("\noracle:", 1)[0].rstrip("\n")
    oracle = (
        f"oracle:\n  command: {' '.join(cmd)}\n  exit_code: {run.returncode}\n"
        f"  {result}\n  deterministic_runs: 2\n"
    )
    case_file.write_text(f"{head}\n{oracle}")
    print(f"{case_dir.name}: exit {run.returncode}")


def main():
    names = sys.argv[1:]
    dirs = [HERE / n for n in names] if names else sorted(
        p for p in HERE.iterdir() if (p / "case.yaml").is_file()
    )
    for d in dirs:
        regen(d)


if __name__ == "__main__":
    main()

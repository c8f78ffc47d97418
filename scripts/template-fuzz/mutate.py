#!/usr/bin/env python3
"""Differential fuzzing of kdelta's template engine against helm, by mutating the probes of
testdata/template (a manual developer tool, like scripts/difftest; not part of cargo test).

    scripts/template-fuzz/mutate.py [--seed S] [--count N] [--out DIR] [--no-test]

Writes a probe corpus to DIR (default: a new temporary directory): the committed probes'
`data.yaml` and `record.py`, an empty known-failures list, and one category `mutSEED` of N
templates, each a committed probe changed one to three times (a token inserted, a few
characters deleted or doubled, two parts swapped). It records what helm v3.17.3 gives for each
(`record.py --solo`; `HELM` names the binary) and runs the probe test on that corpus
(`KDELTA_TEMPLATE_PROBES=DIR cargo test --release --test template_probes`), which lists every
probe whose output or error differs. Most mutants are parse errors, so this finds the lexer's
and parser's corners; a difference worth keeping becomes a probe of testdata/template,
recorded there with record.sh. Outputs that are random by design (htpasswd, genCA, uuidv4,
randAlpha...) differ on every run and are to be ignored. The same seed gives the same probes.
"""
import argparse, glob, json, os, random, shutil, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBES = os.path.join(ROOT, "testdata", "template")
# What a mutation inserts: delimiters, trim markers, punctuation, keywords, quotes, spaces.
TOKENS = ['{{', '}}', '{{-', '-}}', '(', ')', '|', '$', '$x', '$x :=', ' = ', ':=', 'end',
          '{{ end }}', '{{ else }}', 'else', '"', "'", '`', ' ', '-', '.', ',', '..', '.a.b',
          '$.', 'nil', 'true', '1', '-1', '0x', '1e', "'\\n'", '"\\x"', '{{/*', '*/}}', '/*',
          'if', 'range', 'with', 'define', 'template', 'block', 'break', 'continue',
          '{{ break }}', '{{ continue }}', 'and', 'or', 'not', 'len', 'index', 'print', '\n',
          '\t', '#', '@', '%', ':', ';', '[', ']', '{', '}', '\\']


def mutate(rng, text):
    i = rng.randrange(len(text) + 1)
    r = rng.random()
    if r < 0.35 or not text:
        return text[:i] + rng.choice(TOKENS) + text[i:]
    if r < 0.6:
        return text[:i] + text[min(len(text), i + rng.randint(1, 4)):]
    if r < 0.8:
        j = min(len(text), i + rng.randint(1, 6))
        return text[:j] + text[i:j] + text[j:]
    a, b = sorted((i, rng.randrange(len(text) + 1)))
    return text[b:] + text[a:b] + text[:a] if rng.random() < 0.5 else text[:a] + text[b:] + text[a:b]


def probes_to_mutate():
    texts = []
    for path in sorted(glob.glob(os.path.join(PROBES, "*", "probes.json"))):
        category = os.path.basename(os.path.dirname(path))
        if category in ("file-level", "limits"):  # whole files; deliberately huge outputs
            continue
        with open(path, encoding="utf-8") as f:
            texts += [t for _, t in json.load(f) if len(t) < 400]
    return texts


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--out", help="corpus directory (default: a new temporary one)")
    ap.add_argument("--no-test", action="store_true", help="record only")
    a = ap.parse_args()
    rng = random.Random(a.seed)
    texts = probes_to_mutate()
    mutants, seen = [], set()
    while len(mutants) < a.count:
        text = rng.choice(texts)
        for _ in range(rng.choice([1, 1, 1, 2, 3])):
            text = mutate(rng, text)
        if "{{" in text and text not in seen:
            seen.add(text)
            mutants.append(["m%d" % len(mutants), text])
    out = a.out or tempfile.mkdtemp(prefix="kdelta-template-fuzz-")
    category = os.path.join(out, "mut%d" % a.seed)
    os.makedirs(category, exist_ok=True)
    for name in ("data.yaml", "record.py"):
        shutil.copy(os.path.join(PROBES, name), out)
    open(os.path.join(out, "known-failures.txt"), "w").close()
    with open(os.path.join(category, "probes.json"), "w", encoding="utf-8") as f:
        json.dump(mutants, f, ensure_ascii=False, indent=0)
    print("corpus: %s" % out, file=sys.stderr)
    subprocess.run([sys.executable, os.path.join(out, "record.py"), "--solo",
                    "mut%d" % a.seed], check=True)
    if a.no_test:
        return 0
    test = ["cargo", "test", "--release", "--test", "template_probes"]
    env = dict(os.environ, KDELTA_TEMPLATE_PROBES=out)
    return subprocess.run(test, cwd=ROOT, env=env).returncode


if __name__ == "__main__":
    sys.exit(main())

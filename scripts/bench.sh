#!/usr/bin/env bash
# Times kdelta against the reference tools, side by side, in one run.
#
# kustomize (always), against `kubectl kustomize` on a generated 50-overlay repository:
#   (a) kubectl kustomize on each of the 50 overlays, one after another;
#   (b) kdelta render of the same 50 overlays in one process (one job, and the default jobs);
#   (c) kdelta diff between two commits where one overlay changed (the content-addressed cache
#       renders only that overlay again at head);
#   (d) scale: kdelta diff on a generated 1,000-overlay repository (200 applications) between two
#       commits changing every base and one overlay, with its peak memory (GNU time), which
#       must stay under 300 MB.
# It first checks that kdelta prints exactly what kubectl kustomize prints for every overlay.
#
# Helm (with --helm-charts DIR), against `helm template` (v3.17.3: $HELM, else `helm` on PATH):
#   (e) for each chart directory in DIR (dependencies vendored in charts/, e.g. by
#       scripts/vendor-chart.py; docs/performance.md lists the set and how to build it),
#       `helm template CHART` against `kdelta render --show-secrets CHART`, whole processes
#       started without a shell, in alternating blocks (scripts/time-alternating.py), with
#       the ratio of the median wall times. DIR/<chart>.args, when present, holds extra
#       arguments for both. It first checks that both print the same documents (the same
#       `# Source:` lines and kinds, in order; random values such as generated passwords
#       differ by design); a chart both refuse (a library chart) is named, not timed.
#
# Usage: scripts/bench.sh [--runs N] [--helm-charts DIR [--helm-only]]
# The kustomize sections use hyperfine when installed (apt-get install -y hyperfine), else a
# loop timed with date.
set -euo pipefail

runs=5
helm_charts=""
helm_only=false
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --helm-charts) helm_charts="$(cd "$2" && pwd)"; shift 2 ;;
    --helm-only) helm_only=true; shift ;;
    *) echo "usage: scripts/bench.sh [--runs N] [--helm-charts DIR [--helm-only]]" >&2; exit 2 ;;
  esac
done
if $helm_only && [ -z "$helm_charts" ]; then
  echo "bench.sh: --helm-only needs --helm-charts DIR" >&2
  exit 2
fi

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
$helm_only || command -v kubectl >/dev/null || { echo "bench.sh: kubectl is needed (kubectl kustomize)" >&2; exit 2; }
helm="${HELM:-helm}"
if [ -n "$helm_charts" ] && ! "$helm" version --short 2>/dev/null | grep -q '^v3\.17\.3'; then
  echo "bench.sh: helm v3.17.3 is needed (HELM=path, or ../shared/tools/install-helm-oracle.sh)" >&2
  exit 2
fi

echo "building kdelta (release)..." >&2
cargo build --release --quiet --bin kdelta
kdelta="${CARGO_TARGET_DIR:-$root/target}/release/kdelta"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# measure NAME COMMAND: times COMMAND, prints its mean wall time in seconds and writes
# "mean s ± stddev" to $work/NAME.txt.
measure() {
  local name="$1" cmd="$2"
  if command -v hyperfine >/dev/null; then
    hyperfine --style basic --warmup 1 --runs "$runs" --export-json "$work/$name.json" \
      "$cmd" >&2
  else
    bash -c "$cmd" >/dev/null 2>&1 || true
    local times=() start end i
    for ((i = 0; i < runs; i++)); do
      start=$(date +%s%N)
      bash -c "$cmd" >/dev/null 2>&1 || true
      end=$(date +%s%N)
      times+=("$(((end - start) / 1000))")
    done
    python3 -c '
import json, sys
t = [int(x) / 1e6 for x in sys.argv[2:]]
json.dump({"results": [{"times": t}]}, open(sys.argv[1], "w"))' "$work/$name.json" "${times[@]}"
  fi
  python3 -c '
import json, statistics, sys
t = json.load(open(sys.argv[1]))["results"][0]["times"]
m, sd = statistics.mean(t), (statistics.stdev(t) if len(t) > 1 else 0.0)
open(sys.argv[2], "w").write("%.3f s ± %.3f" % (m, sd))
print("%.4f" % m)' "$work/$name.json" "$work/$name.txt"
}

ratio() { python3 -c 'import sys; print("%.1f" % (float(sys.argv[1]) / float(sys.argv[2])))' "$1" "$2"; }

# bench_helm: section (e), one line per chart of $helm_charts. Each tool is started directly,
# without a shell (whose start would add milliseconds to both), in alternating blocks
# (scripts/time-alternating.py), so that a drifting machine slows both alike.
bench_helm() {
  local dir name args same timing
  local blocks=$(( runs < 4 ? 2 : runs / 2 ))
  echo
  echo "kdelta render vs helm template ($("$helm" version --short)): whole processes, $(nproc 2>/dev/null || echo '?') cores,"
  echo "load average $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'), $blocks alternating blocks of $runs runs each,"
  echo "median of the block medians (lowest-highest block)"
  for dir in "$helm_charts"/*/; do
    dir="${dir%/}"
    [ -f "$dir/Chart.yaml" ] || continue
    name="$(basename "$dir")"
    args=""
    [ -f "$helm_charts/$name.args" ] && args="$(cat "$helm_charts/$name.args")"
    local helm_ok=true kdelta_ok=true
    # shellcheck disable=SC2086
    (cd "$helm_charts" && "$helm" template "$name" $args >"$work/helm-$name.yaml" 2>"$work/helm-$name.err") || helm_ok=false
    # shellcheck disable=SC2086
    (cd "$helm_charts" && "$kdelta" render --show-secrets "$name" $args >"$work/kdelta-$name.yaml" 2>/dev/null) || kdelta_ok=false
    if ! $helm_ok && ! $kdelta_ok; then
      # A chart both refuse (a library chart, a missing dependency) has nothing to time.
      printf '  %-24s both refuse it: %s\n' "$name" "$(head -n 1 "$work/helm-$name.err")"
      continue
    fi
    same="same documents"
    if ! cmp -s <(grep -E '^(# Source: |kind: )' "$work/helm-$name.yaml") \
      <(grep -E '^(# Source: |kind: )' "$work/kdelta-$name.yaml") ||
      [ ! -s "$work/helm-$name.yaml" ] || [ "$helm_ok" != "$kdelta_ok" ]; then
      same="DIFFERENT DOCUMENTS"
      $helm_ok || same="$same (helm failed)"
      $kdelta_ok || same="$same (kdelta failed)"
    fi
    echo "timing (e) $name..." >&2
    # shellcheck disable=SC2086
    timing=$(python3 "$root/scripts/time-alternating.py" --blocks "$blocks" --runs "$runs" \
      --cwd "$helm_charts" -- "$helm" template "$name" $args -- \
      "$kdelta" render --show-secrets "$name" $args)
    python3 -c '
import sys
(h, hlo, hhi), (k, klo, khi) = [[float(x) for x in l.split()] for l in sys.argv[2:4]]
print("  %-24s helm %5.1f ms (%5.1f-%5.1f)  kdelta %5.1f ms (%4.1f-%4.1f)  %5.1fx   %s"
      % (sys.argv[1], h * 1e3, hlo * 1e3, hhi * 1e3, k * 1e3, klo * 1e3, khi * 1e3, h / k, sys.argv[4]))
' "$name" "$(sed -n 1p <<<"$timing")" "$(sed -n 2p <<<"$timing")" "$same"
  done
}

if $helm_only; then
  bench_helm
  exit 0
fi
repo="$work/repo"
python3 scripts/gen-bench-repo.py "$repo" --list >"$work/overlays.txt"
mapfile -t overlays <"$work/overlays.txt"
changed="apps/cart/overlays/prod-eu"

git -C "$repo" init --quiet --initial-branch=main
git -C "$repo" -c user.name=bench -c user.email=bench@example.invalid add -A
git -C "$repo" -c user.name=bench -c user.email=bench@example.invalid commit --quiet -m base

# Same output first: a fast wrong answer is no answer.
same=0
for o in "${overlays[@]}"; do
  kubectl kustomize "$repo/$o" >"$work/expected.yaml" 2>/dev/null
  if (cd "$repo" && "$kdelta" render --show-secrets "$o" 2>/dev/null) | cmp -s - "$work/expected.yaml"; then
    same=$((same + 1))
  else
    echo "output differs: $o" >&2
  fi
done

{
  echo '#!/usr/bin/env bash'
  echo 'set -e'
  echo "cd '$repo'"
  for o in "${overlays[@]}"; do echo "kubectl kustomize '$o' >/dev/null"; done
} >"$work/kubectl-all.sh"
kdelta_all="cd '$repo' && '$kdelta' render --show-secrets ${overlays[*]} >/dev/null 2>&1"
kdelta_all_j1="cd '$repo' && '$kdelta' render --show-secrets -j 1 ${overlays[*]} >/dev/null 2>&1"

echo "timing (a) kubectl kustomize x50..." >&2
t_kubectl=$(measure kubectl "bash '$work/kubectl-all.sh'")
echo "timing (b) kdelta render, 50 overlays, -j 1..." >&2
t_kdelta_j1=$(measure kdelta-j1 "$kdelta_all_j1")
echo "timing (b) kdelta render, 50 overlays, default jobs..." >&2
t_kdelta=$(measure kdelta "$kdelta_all")

python3 scripts/gen-bench-repo.py "$repo" --change "$changed"
git -C "$repo" -c user.name=bench -c user.email=bench@example.invalid commit --quiet -am "bump $changed"
(cd "$repo" && "$kdelta" diff HEAD~1 HEAD --format json >"$work/diff.json" 2>/dev/null) || true
summary=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(" ".join(f"{k}={v}" for k, v in s.items()))' "$work/diff.json")
echo "timing (c) kdelta diff HEAD~1 HEAD..." >&2
t_diff=$(measure diff "cd '$repo' && '$kdelta' diff HEAD~1 HEAD >/dev/null 2>&1")

echo "timing (d) kdelta diff on 1,000 overlays..." >&2
big="$work/big"
python3 scripts/gen-bench-repo.py "$big" --apps 200
git -C "$big" init --quiet --initial-branch=main
git -C "$big" -c user.name=bench -c user.email=bench@example.invalid add -A
git -C "$big" -c user.name=bench -c user.email=bench@example.invalid commit --quiet -m base
python3 scripts/gen-bench-repo.py "$big" --change apps/cart-7/overlays/prod-eu
sed -i 's/^  replicas: 1$/  replicas: 2/' "$big"/apps/*/base/deployment.yaml
git -C "$big" -c user.name=bench -c user.email=bench@example.invalid commit --quiet -am "bump bases and one overlay"
big_rss=0
if [ -x /usr/bin/time ]; then
  (cd "$big" && /usr/bin/time -f "%M" -o "$work/big.rss" "$kdelta" diff HEAD~1 HEAD >/dev/null 2>&1) || true
  big_rss=$(( $(tail -n 1 "$work/big.rss") / 1024 ))
fi
measure big "cd '$big' && '$kdelta' diff HEAD~1 HEAD >/dev/null 2>&1" >/dev/null

t_kubectl2=$(python3 -c "print(2 * $t_kubectl)")
cores=$(nproc 2>/dev/null || echo '?')
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
cat <<EOF

kdelta vs kubectl kustomize: 50 overlays over 10 bases, $cores cores, load average $load,
$runs runs each, mean ± standard deviation of the wall time
  identical output                                   $same/50 overlays
  (a) kubectl kustomize, 50 runs one after another   $(cat "$work/kubectl.txt")
  (b) kdelta render, the 50 overlays, one process:
        -j 1                                         $(cat "$work/kdelta-j1.txt")   $(ratio "$t_kubectl" "$t_kdelta_j1")x faster than (a)
        default jobs                                 $(cat "$work/kdelta.txt")   $(ratio "$t_kubectl" "$t_kdelta")x faster than (a)
  (c) kdelta diff HEAD~1 HEAD, one overlay changed   $(cat "$work/diff.txt")   $(ratio "$t_kubectl2" "$t_diff")x faster than 2 x (a)
        $summary
  (d) kdelta diff, 1,000 overlays, every base changed $(cat "$work/big.txt")   peak ${big_rss} MB (limit 300 MB)
EOF
if [ "$big_rss" -ge 300 ]; then
  echo "bench.sh: the 1,000-overlay diff peaked at ${big_rss} MB, over 300 MB" >&2
  exit 1
fi
if [ -n "$helm_charts" ]; then
  bench_helm
fi

#!/usr/bin/env bash
# Compare `kdelta render` with `helm template` on every chart of a real repository.
#
#   scripts/helmrepo.sh [-o OUTDIR] [-t TIMEOUT] [-f FILTER] REPO KDELTA [HELM]
#
# REPO is a directory (a clone's work tree); KDELTA a kdelta binary; HELM the reference helm
# v3.17.3 (default: `helm` on PATH; ../shared/tools/install-helm-oracle.sh installs one). Every
# directory holding a Chart.yaml that is not inside another chart is rendered from REPO with
#     helm template CHART [-f CHART/ci/X-values.yaml]
#     kdelta render --show-secrets CHART [-f CHART/ci/X-values.yaml]
# once with the chart's own values and once per ci/*-values.yaml (chart-testing's convention),
# each under `timeout TIMEOUT` (default 120 s). FILTER, an extended regex, keeps the charts whose
# path matches it.
#
# Each run gets one class:
#     SAME          both succeed, outputs byte-identical
#     DIFF          both succeed, outputs differ (diffs/<slug>.diff, `diff -u helm kdelta`)
#     KDELTA-FAIL   helm succeeds, kdelta exits non-zero (not 101)
#     PANIC         kdelta exits 101, whatever helm did
#     TIMEOUT       either tool exceeded TIMEOUT
#     BOTH-FAIL     both fail (the first lines of both errors are recorded)
#     HELM-FAIL     helm fails and kdelta succeeds
#
# Output, in OUTDIR (default ./helmrepo-out/<basename of REPO>): results.tsv (chart, values,
# class, helm exit, kdelta exit, helm ms, kdelta ms, note), diffs/, and a summary on stdout.
set -uo pipefail

out="" timeout_s=120 filter=""
while getopts "o:t:f:" opt; do
  case $opt in
    o) out=$OPTARG ;;
    t) timeout_s=$OPTARG ;;
    f) filter=$OPTARG ;;
    *) exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n 2,25p "$0"; exit 2; }
repo=$(cd "$1" && pwd) kdelta=$(realpath "$2") helm=${3:-helm}
out=${out:-helmrepo-out/$(basename "$repo")}
mkdir -p "$out/diffs" && out=$(cd "$out" && pwd)
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
: >"$out/results.tsv"

ms() { date +%s%3N; }
cd "$repo" || exit 2
# Charts not inside another chart's directory.
mapfile -t charts < <(find . -name Chart.yaml -not -path '*/.git/*' -printf '%h\n' | sed 's|^\./||' | sort |
  awk '{ for (i in seen) if (index($0, i "/") == 1) next; seen[$0]; print }')
for chart in "${charts[@]}"; do
  [ -n "$filter" ] && ! [[ $chart =~ $filter ]] && continue
  runs=("")
  for v in "$chart"/ci/*-values.yaml; do [ -f "$v" ] && runs+=("$v"); done
  for values in "${runs[@]}"; do
    flags=()
    [ -n "$values" ] && flags=(-f "$values")
    t0=$(ms); timeout "$timeout_s" "$helm" template "$chart" "${flags[@]}" >"$tmp/helm" 2>"$tmp/helm.err"; he=$?; t1=$(ms)
    timeout "$timeout_s" "$kdelta" render --show-secrets "$chart" "${flags[@]}" >"$tmp/kdelta" 2>"$tmp/kdelta.err"; ke=$?; t2=$(ms)
    note=""
    if [ $ke -eq 101 ]; then class=PANIC; note=$(grep -m1 panicked "$tmp/kdelta.err")
    elif [ $he -eq 124 ] || [ $ke -eq 124 ]; then class=TIMEOUT
    elif [ $he -eq 0 ] && [ $ke -eq 0 ]; then
      if cmp -s "$tmp/helm" "$tmp/kdelta"; then class=SAME; else
        class=DIFF
        # The chart at the repository's root is `.`: name its diff `root`, not a hidden file.
        name=$chart; [ "$chart" = . ] && name=root
        slug=$(echo "$name${values:+#$values}" | tr '/#' '__')
        diff -u "$tmp/helm" "$tmp/kdelta" >"$out/diffs/$slug.diff"
      fi
    elif [ $he -eq 0 ]; then class=KDELTA-FAIL; note=$(grep -m1 -E '^error' "$tmp/kdelta.err")
    elif [ $ke -eq 0 ]; then class=HELM-FAIL; note=$(head -c 300 "$tmp/helm.err" | head -1)
    else class=BOTH-FAIL; note="helm: $(head -1 "$tmp/helm.err" | head -c 200) | kdelta: $(grep -m1 -E '^error' "$tmp/kdelta.err" | head -c 200)"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$chart" "${values:--}" "$class" "$he" "$ke" $((t1 - t0)) $((t2 - t1)) "$note" >>"$out/results.tsv"
  done
done
echo "results in $out/results.tsv"
cut -f3 "$out/results.tsv" | sort | uniq -c
awk -F'\t' '$3 == "SAME" { h += $6; k += $7 } END { if (k > 0) printf "on SAME runs: helm %d ms, kdelta %d ms (%.1fx)\n", h, k, h / k }' "$out/results.tsv"

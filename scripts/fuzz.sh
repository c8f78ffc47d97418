#!/usr/bin/env bash
# Runs every fuzz target in fuzz/ for SECONDS each (default 600), one after another, as one
# process with one job (the machine is shared). Each target's corpus grows in fuzz/corpus/TARGET,
# starting from the seeds in fuzz/seeds/TARGET; crashes land in fuzz/artifacts/TARGET.
# Exits non-zero when any target crashed, hung or ran out of memory.
#
# Needs a nightly toolchain and cargo-fuzz: `cargo install cargo-fuzz --locked`.
set -u
seconds=${1:-600}
cd "$(dirname "$0")/../fuzz"
targets=(yaml_roundtrip kustomize_build patches git_objects template_parse template_exec)

failed=()
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t"
    dict=()
    [ -f "dicts/$t.dict" ] && dict=("-dict=dicts/$t.dict")
    echo "fuzz: $t for ${seconds}s" >&2
    # git_objects builds its repository in the temp directory: keep those out of /tmp.
    mkdir -p target/tmp
    if ! TMPDIR="$PWD/target/tmp" cargo +nightly fuzz run -O "$t" "corpus/$t" "seeds/$t" -- \
        -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -print_final_stats=1 "${dict[@]}"; then
        failed+=("$t")
    fi
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz: crashes in ${failed[*]} (see fuzz/artifacts/)" >&2
    exit 1
fi
echo "fuzz: no crashes" >&2

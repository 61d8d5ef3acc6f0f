#!/usr/bin/env bash
# Worker scaling on this machine: the encoder (2^24-word witness, 64 lanes, rate 1/2, in place),
# the commit (`ntt commit`, the default 2^22-word workload, reused buffers) and the throughput
# table with its baselines, at 1, 2, 4, … workers up to every core. Prints one table per figure
# and keeps every run's raw output.
#
#   scripts/scaling.sh                 build (release) and run here, raw output in target/scaling
#   scripts/scaling.sh BIN_DIR OUT_DIR  run prebuilt `ntt`, `encode_speed` and `throughput` from
#                                       BIN_DIR (and `runtime-bench`, the runtime criterion bench,
#                                       when present), raw output in OUT_DIR
#
# Each step has its own time limit and a failed step does not stop the others, so a partial run
# still reports what it measured.
set -uo pipefail
cd "$(dirname "$0")/.."

if [[ $# -ge 1 ]]; then
    bin=$1
else
    bash scripts/install-deps.sh
    cargo build --release -q -p ntt-cli -p ntt-benches --bin ntt --bin throughput --example encode_speed
    mkdir -p target/scaling/bin
    cp target/release/ntt target/release/throughput target/release/examples/encode_speed target/scaling/bin/
    bin=target/scaling/bin
fi
out=${2:-target/scaling}
mkdir -p "$out"

cores=$(nproc)
workers=()
for ((w = 1; w < cores; w *= 2)); do workers+=("$w"); done
workers+=("$cores")
list=$(IFS=,; echo "${workers[*]}")
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $cores cores; workers: $list"

step() { # step NAME SECONDS COMMAND...: runs COMMAND under a time limit, output to OUT/NAME.txt
    local name=$1 limit=$2
    shift 2
    timeout "$limit" "$@" >"$out/$name.txt" 2>&1
    local rc=$?
    [[ $rc -eq 0 ]] || echo "step $name ended with status $rc (see $out/$name.txt)"
}

step topology 60 "$bin/ntt" topology

echo
echo "encode, 2^24 words (2^19 rows x 64 lanes, rate 1/2), in place, median of 7"
printf '%8s %10s %12s %9s\n' workers ms ns/lane-bf speedup
base=
for w in "${workers[@]}"; do
    step "encode-w$w" 60 "$bin/encode_speed" 19 64 1 "$w" 7 in_place
    ms=$(grep -oP 'median \K[0-9.]+' "$out/encode-w$w.txt" | head -1)
    ns=$(grep -oP '[0-9.]+(?= ns/lane-butterfly)' "$out/encode-w$w.txt" | head -1)
    [[ -n $ms ]] || continue
    base=${base:-$ms}
    printf '%8s %10s %12s %8.2fx\n' "$w" "$ms" "$ns" "$(awk "BEGIN { print $base / $ms }")"
done

echo
echo "commit, default 2^22-word workload (lane-major, 64 lanes, rate 1/2), reused buffers, median of 9"
printf '%8s %10s %10s %10s %9s  %s\n' workers encode_ms hash_ms total_ms speedup root
base=
for w in "${workers[@]}"; do
    step "commit-w$w" 45 "$bin/ntt" commit --repeat 9 --threads "$w" --json
    line=$(python3 -c 'import json,sys
r = json.load(open(sys.argv[1])); t = r["times_ms"]
print(t["encode"], t["hash"], t["total"], r["root"])' "$out/commit-w$w.txt" 2>/dev/null) || continue
    read -r enc hash total root <<<"$line"
    base=${base:-$total}
    printf '%8s %10.2f %10.2f %10.2f %8.2fx  %s\n' "$w" "$enc" "$hash" "$total" \
        "$(awk "BEGIN { print $base / $total }")" "${root:0:16}"
done

echo
echo "throughput and baselines (full tables in $out/throughput.txt)"
step throughput 240 "$bin/throughput" --log-n 20,22,24,26 --log-inv-rate 1 --workers "$list" \
    --repeat 5 --compare-log-n 20,22 --save "$out/throughput.json"
cat "$out/throughput.txt"

if [[ -x $bin/runtime-bench ]]; then
    echo
    echo "runtime against rayon at $cores workers (criterion, short runs; full output in $out/runtime.txt)"
    step runtime 150 env NTT_BENCH_THREADS="$cores" "$bin/runtime-bench" --bench --warm-up-time 0.3 \
        --measurement-time 1 --noplot
    grep -E 'wake-up|idle|^runtime/|time:' "$out/runtime.txt" | head -60
fi

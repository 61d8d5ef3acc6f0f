#!/usr/bin/env bash
# The commit's encode per lane-butterfly from in cache to out of cache: for each shape, worker
# count and layout, `ntt commit --repeat R --json` on a seeded witness (written once into DIR),
# the reused runs' median encode and its cost per lane-butterfly (witness words × (log2 codeword
# rows − log2 inverse rate), as docs/PERFORMANCE.md counts them), against the same shape's
# smallest size. Also the fresh first run's total against the reused median (fresh ÷ reused)
# and the pages the fresh codeword got.
#
# Use: bash scripts/out-of-cache.sh [DIR] [REPEAT] [SIZES] [SHAPES] [WORKERS]
#   DIR      where the witnesses go (default: a temporary folder, removed at the end)
#   REPEAT   commits per process, the first fresh (default 5)
#   SIZES    log2 witness words (default "22 24 26")
#   SHAPES   lanes:log_inv_rate:layout, space-separated (default "64:1:lanes 64:2:lanes
#            16:1:lanes 8:1:lanes 64:1:rows")
#   WORKERS  worker counts (default "1 2")
# NTT (default target/release/ntt) is the binary; build it first
# (cargo build --release -p ntt-cli).
set -euo pipefail
cd "$(dirname "$0")/.."
NTT=${NTT:-target/release/ntt}
DIR=${1:-}
REPEAT=${2:-5}
SIZES=${3:-"22 24 26"}
SHAPES=${4:-"64:1:lanes 64:2:lanes 16:1:lanes 8:1:lanes 64:1:rows"}
WORKERS=${5:-"1 2"}
if [ -z "$DIR" ]; then
    DIR=$(mktemp -d)
    trap 'rm -rf "$DIR"' EXIT
fi
mkdir -p "$DIR"
for n in $SIZES; do
    [ -f "$DIR/w$n.bin" ] || "$NTT" witness --log-n "$n" --lanes 1 --seed 1 --output "$DIR/w$n.bin" >/dev/null
done
printf '%-22s %3s %6s %11s %11s %8s %13s %s\n' shape w words "encode ms" "ns/lane-bf" "vs first" "fresh/reused" pages
for shape in $SHAPES; do
    IFS=: read -r lanes rate layout <<<"$shape"
    for w in $WORKERS; do
        first=""
        for n in $SIZES; do
            "$NTT" commit --input "$DIR/w$n.bin" --lanes "$lanes" --log-inv-rate "$rate" \
                --layout "$layout" --threads "$w" --repeat "$REPEAT" --json >"$DIR/report.json"
            line=$(python3 - "$n" "$rate" "$first" "$DIR/report.json" <<'EOF'
import json, math, sys
n, rate = int(sys.argv[1]), int(sys.argv[2])
first = float(sys.argv[3]) if sys.argv[3] else None
r = json.load(open(sys.argv[4]))
encode = r["times_ms"]["encode"]
lane_butterflies = (1 << n) * (r["log_rows"] - rate)
ns = encode * 1e6 / lane_butterflies
fresh = r["first_run_ms"]["total"] / r["times_ms"]["total"]
p = r.get("pages") or {}
pages = "huge %d MiB, small %d MiB" % (p.get("huge_bytes", 0) >> 20, p.get("small_bytes", 0) >> 20)
if p.get("switched_after_ms") is not None:
    pages += " (switched)"
vs = "%.2f" % (ns / first) if first else "1.00"
print("%.3f|%.2f|%.4f|%s|%.2f|%s" % (ns, encode, ns, vs, fresh, pages))
EOF
            )
            IFS='|' read -r ns encode per vs fresh pages <<<"$line"
            [ -n "$first" ] || first=$ns
            printf '%-22s %3s %6s %11s %11s %8s %13s %s\n' \
                "$lanes lanes 1/2^$rate $layout" "$w" "2^$n" "$encode" "$per" "$vs" "$fresh" "$pages"
        done
    done
done

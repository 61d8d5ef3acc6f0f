#!/usr/bin/env bash
# The distributed commit under Open MPI: `mpirun -np 1|2|4|8 ntt-mpi commit` on random shapes,
# rates, bases and layouts prints the root `ntt commit` prints on one machine, writes the
# codeword `ntt encode` writes, and `ntt-mpi open` writes the proof bytes `ntt open` writes, for
# the chunk tree and for row trees (both hashes, caps 0–5); bad rank counts, shapes and witnesses are refused on every rank
# with exit 2 (3 for an unreadable file), and so are outputs on inputs, a FIFO witness, malformed
# NTT_* variables and ranks given different flags; outputs follow `ntt`'s rules (no planted link
# followed, modes kept, links followed, the widest cap verifies), and a killed or signalled rank
# stops the job promptly with no file under its final name and no temporary. NTT_MPI_SEED picks
# the random cases (default: a fixed seed).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh

# CI runs as root, which mpirun refuses unless told; oversubscribe: more ranks than the 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
MPIRUN=(mpirun --oversubscribe)
# The test profile: its dependencies are the ones `cargo test --workspace` just built.
cargo build --profile test -p ntt-cli -p ntt-mpi --bins
NTT=$PWD/target/debug/ntt
NTT_MPI=$PWD/target/debug/ntt-mpi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
RANDOM=${NTT_MPI_SEED:-37}
export NTT_THREADS=1

fail() { echo "test-mpi: FAIL: $*" >&2; exit 1; }
root_of() { sed -n 's/^root *\([0-9a-f]\{64\}\)$/\1/p'; }
# The committed digests: the root line, or every cap line, and a row tree's line.
digests_of() { grep -E '^(root|cap\[[0-9]+\]|tree) ' || true; }

# A row tree on `np` ranks: the digests `ntt commit` prints, and the proof bytes `ntt open`
# writes (any share size: a row tree needs no whole chunks).
check_rows() { # np label rows hash cap-height flags...
    # Two statements: a `local` expands all its words before assigning any.
    local np=$1 rows=$3
    local label="$2, $np ranks, row tree of $4, cap height $5"
    set -- "${@:6}" --tree rows --hash "$4" --cap-height "$5"
    local expected got
    expected=$("$NTT" commit "$@" | digests_of)
    [ -n "$expected" ] || fail "$label: no digests from ntt commit"
    got=$("${MPIRUN[@]}" -np "$np" "$NTT_MPI" commit "$@" | digests_of)
    [ "$got" = "$expected" ] || fail "$label: digests
$got
one machine's
$expected"
    "$NTT" open "$@" --rows "$rows" --output "$work/p1.bin" >/dev/null
    "${MPIRUN[@]}" -np "$np" "$NTT_MPI" open "$@" --rows "$rows" --output "$work/p2.bin" >/dev/null
    cmp -s "$work/p1.bin" "$work/p2.bin" || fail "$label: the proof of rows $rows differs from ntt open's"
    echo "ok  $label: digests and the opening of rows $rows"
}

# Random cases: 2^log_rows message rows of `lanes` words (odd lane counts too), each rate,
# both bases and layouts; every rank count that splits the codeword into whole chunks.
for case in $(seq 1 8); do
    choices=(1 2 3 5 8 64)
    lanes=${choices[$((RANDOM % 6))]}
    log_rows=$((8 + RANDOM % 7))
    rate=$((RANDOM % 4))
    basis=$([ $((RANDOM % 2)) -eq 0 ] && echo polynomial || echo cantor)
    layout=$([ $((RANDOM % 2)) -eq 0 ] && echo lanes || echo rows)
    words=$(( lanes << log_rows ))
    "$NTT" witness --log-n 20 --lanes 1 --seed "$case" --output "$work/pool.bin" >/dev/null
    head -c $((8 * words)) "$work/pool.bin" > "$work/w.bin"
    flags=(--input "$work/w.bin" --lanes "$lanes" --log-inv-rate "$rate" --basis "$basis" --layout "$layout")
    label="case $case: $lanes lanes, 2^$log_rows message rows, rate 1/2^$rate, $basis basis, $layout layout"
    expected=$("$NTT" commit "${flags[@]}" | root_of)
    [ -n "$expected" ] || fail "$label: no root from ntt commit"
    "$NTT" encode "${flags[@]}" --output "$work/expected.bin" >/dev/null
    codeword_bytes=$(( words * 8 << rate ))
    n_rows=$(( 1 << (log_rows + rate) ))
    hashes=(blake3 keccak sha256)
    hash=${hashes[$((RANDOM % 3))]}
    for np in 1 2 4 8; do
        rows="$((RANDOM % n_rows)),$((RANDOM % n_rows)),$((n_rows - 1)),0,$((RANDOM % n_rows))"
        check_rows "$np" "$label" "$rows" "$hash" $((RANDOM % 6)) "${flags[@]}"
        # Shares must be whole 1 KiB chunks when there is more than one rank.
        if [ "$np" -gt 1 ] && [ $(( codeword_bytes / np % 1024 )) -ne 0 ]; then
            set +e
            "${MPIRUN[@]}" -np "$np" "$NTT_MPI" commit "${flags[@]}" >/dev/null 2>"$work/err"
            rc=$?
            set -e
            [ "$rc" -eq 2 ] || fail "$label, $np ranks: a shape too small to split exited $rc, not 2"
            grep -q "too small to split" "$work/err" || fail "$label, $np ranks: no clear error"
            echo "ok  $label, $np ranks: refused, shares under a chunk"
            continue
        fi
        rm -f "$work/c.bin"
        got=$("${MPIRUN[@]}" -np "$np" "$NTT_MPI" commit "${flags[@]}" --save-codeword "$work/c.bin" | root_of)
        [ "$got" = "$expected" ] || fail "$label, $np ranks: root $got, one machine's $expected"
        cmp -s "$work/c.bin" "$work/expected.bin" || fail "$label, $np ranks: the saved codeword differs from ntt encode's"
        echo "ok  $label, $np ranks"
        # Openings: the proof bytes `ntt open` writes, for rows anywhere (repeats included).
        [ "$np" -gt 1 ] || continue
        "$NTT" open "${flags[@]}" --rows "$rows" --output "$work/p1.bin" >/dev/null
        "${MPIRUN[@]}" -np "$np" "$NTT_MPI" open "${flags[@]}" --rows "$rows" --output "$work/p2.bin" >/dev/null
        cmp -s "$work/p1.bin" "$work/p2.bin" || fail "$label, $np ranks: the proof of rows $rows differs from ntt open's"
        echo "ok  $label, $np ranks: opening of rows $rows"
    done
done

# The commitment file verifies an opening made on one machine.
"$NTT" witness --log-n 14 --lanes 8 --seed 3 --output "$work/w.bin" >/dev/null
"${MPIRUN[@]}" -np 4 "$NTT_MPI" commit --input "$work/w.bin" --lanes 8 --log-inv-rate 2 --output "$work/c.json" --json >/dev/null
"$NTT" open --input "$work/w.bin" --lanes 8 --log-inv-rate 2 --rows 3,4000 --output "$work/p.bin" >/dev/null
"$NTT" verify --commitment "$work/c.json" --rows 3,4000 --proof "$work/p.bin" >/dev/null \
    || fail "ntt verify rejects an opening against ntt-mpi's commitment file"
echo "ok  the commitment file verifies with ntt verify"
"${MPIRUN[@]}" -np 8 "$NTT_MPI" open --input "$work/w.bin" --lanes 8 --log-inv-rate 2 --tree rows --hash keccak \
    --cap-height 2 --rows 3,4000,4001 --output "$work/p.bin" --commitment "$work/c.json" >/dev/null
"$NTT" verify --commitment "$work/c.json" --rows 3,4000,4001 --proof "$work/p.bin" >/dev/null \
    || fail "ntt verify rejects ntt-mpi's row-tree opening"
echo "ok  ntt verify takes ntt-mpi's row-tree commitment file and opening"
# SHA-256 row trees every run (the random cases pick a hash): nodes by a bare compression.
check_rows 4 "fixed case" "3,4000,4001,0" sha256 1 --input "$work/w.bin" --lanes 8 --log-inv-rate 2

# Refusals: on every rank, before any work, with the exit code of `ntt`.
expect_refusal() { # expected-code pattern label -- mpirun arguments
    local code=$1 pattern=$2 label=$3
    shift 4
    set +e
    timeout 60 "${MPIRUN[@]}" "$@" >/dev/null 2>"$work/err"
    local rc=$?
    set -e
    [ "$rc" -eq "$code" ] || { cat "$work/err" >&2; fail "$label: exit $rc, expected $code"; }
    grep -q "$pattern" "$work/err" || { cat "$work/err" >&2; fail "$label: no clear error"; }
    echo "ok  $label: exit $code"
}
common=(--lanes 8 --log-inv-rate 2)
expect_refusal 2 "must be a power of two" "3 ranks" -- -np 3 "$NTT_MPI" commit --input "$work/w.bin" "${common[@]}"
[ "$(grep -c "power of two" "$work/err")" -eq 3 ] || fail "3 ranks: not every rank said why"
expect_refusal 2 "at most one rank per row" "more ranks than rows" -- -np 4 "$NTT_MPI" commit --input "$work/w.bin" --lanes 8192 --log-inv-rate 0
expect_refusal 3 "cannot read the witness" "a missing witness" -- -np 2 "$NTT_MPI" commit --input "$work/missing.bin" "${common[@]}"
head -c 65536 "$work/w.bin" > "$work/short.bin"
expect_refusal 2 "different sizes" "witnesses that differ between ranks" -- \
    -np 1 "$NTT_MPI" commit --input "$work/w.bin" "${common[@]}" : -np 1 "$NTT_MPI" commit --input "$work/short.bin" "${common[@]}"
expect_refusal 3 "cannot read the witness" "a witness one rank cannot read" -- \
    -np 1 "$NTT_MPI" commit --input "$work/w.bin" "${common[@]}" : -np 1 "$NTT_MPI" commit --input "$work/missing.bin" "${common[@]}"
rm -f "$work/p.bin"
expect_refusal 2 "outside the codeword" "a row past the end" -- -np 2 "$NTT_MPI" open --input "$work/w.bin" "${common[@]}" --rows 3,99999 --output "$work/p.bin"
[ ! -e "$work/p.bin" ] || fail "a row past the end: a proof was written"
# Shares under a chunk: the chunk tree refuses them, a row tree takes them (8 ranks x 8 rows of 24 bytes).
head -c 768 "$work/w.bin" > "$work/tiny.bin"
expect_refusal 2 "too small to split" "the chunk tree on 192-byte shares" -- -np 8 "$NTT_MPI" commit --input "$work/tiny.bin" --lanes 3 --log-inv-rate 1
check_rows 8 "3 lanes, 2^5 message rows, rate 1/2" "0,5,63,40" keccak 1 --input "$work/tiny.bin" --lanes 3 --log-inv-rate 1
expect_refusal 2 "hash keccak" "a row tree's hash on the chunk tree" -- -np 2 "$NTT_MPI" commit --input "$work/w.bin" "${common[@]}" --hash keccak
expect_refusal 2 "not supported" "standard input" -- -np 2 "$NTT_MPI" commit --input - "${common[@]}"
# A row tree counts in each rank's memory check (64 bytes a row, 8 times a one-lane share): a
# share that fits, with a tree that does not, is refused on every rank before any allocation.
available=$(( $(sed -n 's/^MemAvailable: *\([0-9]*\) kB$/\1/p' /proc/meminfo) * 1024 ))
log_rows=20
while [ $(( (72 << log_rows) / 2 / 10 )) -le $(( available / 9 )) ]; do log_rows=$((log_rows + 1)); done
head -c 8192 "$work/w.bin" > "$work/w1k.bin"
expect_refusal 2 "share with its message and tree needs" "a row tree beyond a rank's memory" -- \
    -np 2 "$NTT_MPI" commit --input "$work/w1k.bin" --lanes 1 --log-inv-rate $((log_rows - 10)) --allow-large-expansion --tree rows

# A small witness for the cases on files, the environment and flags.
"$NTT" witness --log-n 12 --lanes 4 --seed 11 --output "$work/w4k.bin" >/dev/null
small=(--input "$work/w4k.bin" --lanes 4 --log-inv-rate 1)
# Files: as `ntt`, outputs never overwrite the witness or each other (exit 2, before any work).
cp "$work/w4k.bin" "$work/w4k.copy"
ln -sf "$work/w4k.bin" "$work/w4k-link.bin"
expect_refusal 2 "is the file --input reads" "--save-codeword on the witness" -- -np 2 "$NTT_MPI" commit "${small[@]}" --save-codeword "$work/w4k.bin"
expect_refusal 2 "is the file --input reads" "open --output on the witness, through a link" -- \
    -np 2 "$NTT_MPI" open "${small[@]}" --rows 1 --output "$work/w4k-link.bin"
cmp -s "$work/w4k.bin" "$work/w4k.copy" || fail "an output replaced the witness"
expect_refusal 2 "name the same file" "--output and --save-codeword on one file" -- \
    -np 2 "$NTT_MPI" commit "${small[@]}" --output "$work/same.bin" --save-codeword "$work/same.bin"
expect_refusal 2 "name the same file" "open's --output and --commitment on one file" -- \
    -np 2 "$NTT_MPI" open "${small[@]}" --rows 1 --output "$work/same.bin" --commitment "$work/./same.bin"
[ ! -e "$work/same.bin" ] || fail "a refused command wrote a file"
# A FIFO is not a witness every rank can read at offsets: refused at once, not waited on.
mkfifo "$work/fifo"
expect_refusal 2 "not a regular file" "a FIFO as the witness" -- -np 2 "$NTT_MPI" commit --input "$work/fifo" --lanes 4 --log-inv-rate 1
# Every NTT_* variable that names nothing is bad input, as in `ntt`.
for setting in NTT_THREADS=abc NTT_BACKEND=sse9 NTT_PIN=sideways NTT_IDLE_SPIN_US=soon NTT_FIRST_TOUCH=bogus \
    NTT_FIRST_TOUCH=POPULATE NTT_COLUMNS=diagonal; do
    expect_refusal 2 "${setting%%=*}" "$setting" -- -np 2 env "$setting" "$NTT_MPI" commit "${small[@]}"
done
# Ranks given different flags stop together with bad input, before any work.
expect_refusal 2 "differ from rank 0's" "--lanes that differ between ranks" -- \
    -np 1 "$NTT_MPI" commit "${small[@]}" : -np 1 "$NTT_MPI" commit --input "$work/w4k.bin" --lanes 8 --log-inv-rate 1
expect_refusal 2 "differ from rank 0's" "--save-codeword on one rank only" -- \
    -np 1 "$NTT_MPI" commit "${small[@]}" --save-codeword "$work/one.bin" : -np 1 "$NTT_MPI" commit "${small[@]}"
[ ! -e "$work/one.bin" ] || fail "ranks that disagreed wrote a codeword"

# A killed rank: stop rank 1 as soon as it exists (the others cannot finish without it), kill
# it, and expect the whole job to fail within seconds and no codeword under its final name.
"$NTT" witness --log-n 20 --lanes 8 --seed 5 --output "$work/big.bin" >/dev/null
rm -f "$work/killed.bin"
"${MPIRUN[@]}" -np 4 "$NTT_MPI" commit --input "$work/big.bin" "${common[@]}" --save-codeword "$work/killed.bin" \
    >/dev/null 2>"$work/err" &
job=$!
ranks=()
for _ in $(seq 1 500); do
    mapfile -t ranks < <(pgrep -P "$job" || true)
    [ "${#ranks[@]}" -ge 4 ] && break
    sleep 0.01
done
[ "${#ranks[@]}" -ge 4 ] || fail "the killed-rank job did not start 4 ranks"
victim=${ranks[1]}
kill -STOP "$victim"
sleep 0.5
kill -KILL "$victim"
started=$SECONDS
set +e
timeout 60 tail --pid="$job" -f /dev/null
wait "$job"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "a killed rank: the job exited 0"
[ $((SECONDS - started)) -lt 30 ] || fail "a killed rank: the job took $((SECONDS - started)) s to stop"
[ ! -e "$work/killed.bin" ] || fail "a killed rank: a codeword was left under its final name"
echo "ok  a killed rank: the job exited $rc in $((SECONDS - started)) s, no file under the final name"
# Outputs by `ntt`'s rules. A link planted at a predictable temporary name is never followed.
out="$work/out"
mkdir -p "$out"
echo "the victim's own words" > "$work/victim.txt"
ln -s "$work/victim.txt" "$out/.cw.bin.ntt-mpi-partial"
ln -s "$work/victim.txt" "$out/.c.json.ntt-mpi-partial"
"${MPIRUN[@]}" -np 2 "$NTT_MPI" commit "${small[@]}" --save-codeword "$out/cw.bin" --output "$out/c.json" >/dev/null
[ "$(cat "$work/victim.txt")" = "the victim's own words" ] || fail "a link planted at a temporary's name was followed"
"$NTT" encode "${small[@]}" --output "$work/cw-expected.bin" >/dev/null
cmp -s "$out/cw.bin" "$work/cw-expected.bin" || fail "the saved codeword differs from ntt encode's"
"$NTT" commit "${small[@]}" --output "$work/c-expected.json" >/dev/null
cmp -s "$out/c.json" "$work/c-expected.json" || fail "--output differs from ntt commit --output's file"
rm "$out/.cw.bin.ntt-mpi-partial" "$out/.c.json.ntt-mpi-partial"
echo "ok  planted links are not followed; --output is ntt commit --output's file"
# A replaced file keeps its mode; a symbolic link is followed and stays.
chmod 600 "$out/cw.bin"
printf old > "$out/real.json"
chmod 640 "$out/real.json"
ln -s real.json "$out/link.json"
"${MPIRUN[@]}" -np 2 "$NTT_MPI" commit "${small[@]}" --save-codeword "$out/cw.bin" --output "$out/link.json" >/dev/null
[ "$(stat -c %a "$out/cw.bin")" = 600 ] || fail "the replaced codeword lost its mode 600"
[ -L "$out/link.json" ] || fail "a symbolic link output was replaced by a file"
[ "$(stat -c %a "$out/real.json")" = 640 ] || fail "the link's target lost its mode 640"
cmp -s "$out/real.json" "$work/c-expected.json" || fail "the link's target does not hold the commitment"
"${MPIRUN[@]}" -np 2 "$NTT_MPI" open "${small[@]}" --rows 5 --output "$out/link.json" >/dev/null
[ -L "$out/link.json" ] && [ "$(stat -c %a "$out/real.json")" = 640 ] || fail "open's output: the link or the mode"
echo "ok  modes are kept and links followed"
# The widest cap (2^16 digests): ntt verify reads the commitment file ntt-mpi open writes.
"$NTT" witness --log-n 16 --lanes 1 --seed 12 --output "$work/w16.bin" >/dev/null
"${MPIRUN[@]}" -np 2 "$NTT_MPI" open --input "$work/w16.bin" --lanes 1 --log-inv-rate 1 --tree rows --cap-height 16 \
    --rows 3,70000 --output "$work/p16.bin" --commitment "$work/c16.json" >/dev/null
"$NTT" verify --commitment "$work/c16.json" --rows 3,70000 --proof "$work/p16.bin" >/dev/null \
    || fail "ntt verify does not read the commitment file of a 2^16-digest cap"
echo "ok  a cap of 2^16 digests: the commitment file verifies"
# A failed rename (the target is a directory) leaves no temporary.
mkdir -p "$out/dir.bin"
expect_refusal 3 "cannot write" "--save-codeword naming a directory" -- -np 2 "$NTT_MPI" commit "${small[@]}" --save-codeword "$out/dir.bin"
litter() { find "$out" -mindepth 1 -maxdepth 1 -name '.*' -printf '%f\n'; }
[ -z "$(litter)" ] || fail "a failed rename left $(litter)"

# Signals while the ranks write a 512 MiB codeword: the job stops promptly and nonzero, no rank
# is left running, a signalled rank exits 130 or 143, and neither a temporary nor a file under
# the final name remains. Rank 1 is stopped once the temporary exists, so that the job is caught
# writing, however fast the disk.
"$NTT" witness --log-n 24 --lanes 1 --seed 13 --output "$work/w8m.bin" >/dev/null
# Whether the process exists and is not a zombie (dead, waiting for its parent to reap it).
running() { kill -0 "$1" 2>/dev/null && ! ps -o stat= -p "$1" | grep -q '^ *Z'; }
signalled() { # label target(mpirun|rank|all) rank signal expected-exit-code-of-the-rank
    local label=$1 target=$2 rank=$3 sig=$4 code=${5:-}
    rm -f "$out/sc.bin"
    "${MPIRUN[@]}" -np 2 "$NTT_MPI" commit --input "$work/w8m.bin" --lanes 64 --log-inv-rate 2 \
        --save-codeword "$out/sc.bin" --threads 1 >/dev/null 2>"$work/err" &
    local job=$! ranks=()
    for _ in $(seq 1 6000); do
        [ -n "$(litter)" ] && break
        sleep 0.01
    done
    [ -n "$(litter)" ] || fail "$label: the ranks never started writing"
    mapfile -t ranks < <(pgrep -P "$job" || true)
    [ "${#ranks[@]}" -eq 2 ] || fail "$label: not 2 ranks"
    # Rank 1 stays stopped until its signal (or mpirun, which sends SIGCONT before SIGTERM).
    kill -STOP "${ranks[1]}"
    case $target in
        mpirun)
            kill "-$sig" "$job"
            # mpirun resumes its ranks (SIGCONT) a second before it ends them (SIGTERM): keep
            # rank 1 stopped until rank 0 has gone, so that the job is still writing then.
            for _ in $(seq 1 6000); do
                running "${ranks[0]}" || break
                kill -STOP "${ranks[1]}" 2>/dev/null || true
                sleep 0.005
            done
            kill -CONT "${ranks[1]}" 2>/dev/null || true
            ;;
        rank) kill "-$sig" "${ranks[$rank]}" ;;
        all) kill "-$sig" "${ranks[@]}" ;;
    esac
    if [ "$target" = rank ] && [ "$rank" -eq 1 ]; then kill -CONT "${ranks[1]}" 2>/dev/null || true; fi
    local started=$SECONDS rc
    set +e
    timeout 60 tail --pid="$job" -f /dev/null
    wait "$job"
    rc=$?
    set -e
    [ "$rc" -ne 0 ] || fail "$label: the job exited 0"
    [ $((SECONDS - started)) -lt 30 ] || fail "$label: the job took $((SECONDS - started)) s to stop"
    # A rank that mpirun resumed as it ended may still be running its signal handler when mpirun
    # returns: it must be gone within a few seconds, not linger as an orphan.
    for pid in "${ranks[@]}"; do
        for _ in $(seq 1 500); do running "$pid" || break; sleep 0.01; done
        ! running "$pid" || fail "$label: rank process $pid outlived the job by 5 s"
    done
    if [ -n "$code" ]; then
        grep -Eq "Exit code: +$code" "$work/err" || { cat "$work/err" >&2; fail "$label: no rank exited $code"; }
    fi
    [ ! -e "$out/sc.bin" ] || fail "$label: a codeword under its final name"
    if [ "$target" = all ]; then return; fi
    [ -z "$(litter)" ] || fail "$label: left $(litter)"
    echo "ok  $label: the job exited $rc, nothing left behind"
}
signalled "SIGINT to mpirun" mpirun 0 INT
signalled "SIGTERM to mpirun" mpirun 0 TERM
signalled "SIGINT to rank 1" rank 1 INT 130
signalled "SIGTERM to rank 0" rank 0 TERM 143
signalled "SIGTERM to rank 1" rank 1 TERM 143
signalled "SIGKILL to rank 1" rank 1 KILL
# SIGKILL to every rank leaves the temporary; the next job writing that file removes it.
signalled "SIGKILL to every rank" all 0 KILL
[ -n "$(litter)" ] || fail "SIGKILL to every rank: no temporary was left to sweep"
"${MPIRUN[@]}" -np 2 "$NTT_MPI" commit "${small[@]}" --save-codeword "$out/sc.bin" >/dev/null
[ -z "$(litter)" ] || fail "the next job did not sweep $(litter)"
cmp -s "$out/sc.bin" "$work/cw-expected.bin" || fail "the job after the sweep saved another codeword"
echo "ok  SIGKILL to every rank: the next job writing the file removed the temporary"

echo "test-mpi: all passed"

#!/usr/bin/env bash
# Lockstep throughput of an external controller (docs/external.md "Figures"): runs
#   wsim serve --scenario SCENARIO --seed S --lockstep MODE -- COMMAND...
# for S = 1..SEEDS in the current directory and prints per run and in total the requests, the
# wall time, requests/s, and requests/s without the time until the process had opened its
# watches. Figures only: nothing here asserts a time.
# Usage: bench-external.sh WSIM SCENARIO SEEDS MODE(ready|quiet) -- COMMAND...
set -uo pipefail
wsim="$(realpath "${1:?usage: bench-external.sh WSIM SCENARIO SEEDS MODE -- COMMAND...}")"
scenario="$2" seeds="$3" mode="$4"
shift 4
[[ "${1:-}" == "--" ]] && shift
out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
now_ms() { date +%s%3N; }
requests=0 wall=0 start_ms=0
for ((seed = 1; seed <= seeds; seed++)); do
  t0=$(now_ms)
  "${wsim}" serve --scenario "${scenario}" --seed "${seed}" --lockstep "${mode}" -- "$@" \
    >"${out}/run.txt" 2>&1
  ms=$(($(now_ms) - t0))
  line=$(grep '^external: [0-9]' "${out}/run.txt")
  n=$(sed -E 's/^external: ([0-9]+) requests.*/\1/' <<<"${line}")
  st=$(sed -E 's/.*; ([0-9]+) ms until.*/\1/' <<<"${line}")
  requests=$((requests + n)) wall=$((wall + ms)) start_ms=$((start_ms + st))
  echo "seed ${seed}: $(grep '^verdict' "${out}/run.txt" | cut -d, -f1); ${n} requests in ${ms} ms"
done
steady=$((wall - start_ms))
echo "${mode}: ${requests} requests in ${wall} ms: $((requests * 1000 / (wall > 0 ? wall : 1))) requests/s; without the ${start_ms} ms until the process was ready: $((requests * 1000 / (steady > 0 ? steady : 1))) requests/s (load $(cut -d' ' -f1-3 /proc/loadavg))"

#!/usr/bin/env bash
# Lockstep throughput of the client-node workspace controller (docs/external.md "Figures"):
# runs `wsim serve --scenario workspaces.textproto --seed S --lockstep MODE -- node
# workspace-controller.mjs` for S = 1..SEEDS in each MODE (quiet: the 30 ms quiet period only;
# ready: the readiness test, the quiet period as fallback) and prints per mode the requests, the
# wall time of the runs, requests/s, and how many lockstep waits the readiness test ended.
# Figures only: nothing here asserts a time. Usage: bench.sh WSIM [SEEDS=5] [VARIANT=correct]
set -uo pipefail
wsim="$(realpath "${1:?usage: bench.sh WSIM [SEEDS] [VARIANT]}")"
seeds="${2:-5}"
variant="${3:-correct}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
[[ -d "${here}/node_modules/@kubernetes/client-node" ]] || { echo "run ${here}/install.sh first"; exit 1; }
out="$(mktemp -d)"
trap 'rm -rf "${out}"' EXIT
now_ms() { date +%s%3N; }
for mode in quiet ready; do
  requests=0 wall=0 waits=0 ready=0 wait_ms=0 start_ms=0
  for ((seed = 1; seed <= seeds; seed++)); do
    t0=$(now_ms)
    (cd "${here}" && VARIANT="${variant}" "${wsim}" serve --scenario workspaces.textproto \
      --seed "${seed}" --lockstep "${mode}" -- node workspace-controller.mjs) >"${out}/run.txt" 2>&1
    wall=$((wall + $(now_ms) - t0))
    line=$(grep '^external: [0-9]' "${out}/run.txt")
    read -r n w ms r st <<<"$(sed -E 's/^external: ([0-9]+) requests, [0-9]+ watches, ([0-9]+) lockstep waits \(([0-9]+) ms of wall time, ([0-9]+) ended.*; ([0-9]+) ms until.*/\1 \2 \3 \4 \5/' <<<"${line}")"
    requests=$((requests + n)) waits=$((waits + w)) wait_ms=$((wait_ms + ms)) ready=$((ready + r))
    start_ms=$((start_ms + st))
    echo "${mode} seed ${seed}: ${line#external: }"
  done
  steady=$((wall - start_ms))
  echo "${mode}: ${requests} requests in ${wall} ms of runs: $((requests * 1000 / (wall > 0 ? wall : 1))) requests/s; without the ${start_ms} ms until the process was ready: $((requests * 1000 / (steady > 0 ? steady : 1))) requests/s; ${wait_ms} ms in ${waits} lockstep waits, ${ready} ended by the readiness test"
done

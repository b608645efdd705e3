#!/usr/bin/env bash
# A `wsim serve` hunt of the client-node workspace controller: runs
#   wsim serve --scenario workspaces.textproto --seed S --out OUT -- node workspace-controller.mjs
# for S = FIRST..FIRST+SEEDS-1 (VARIANT=correct|racy in the environment of the controller) and
# stops at the first failing verdict; then replays that bundle REPLAYS times
# (`wsim serve --replay BUNDLE -- node ...`) and counts the replays that reproduced its trace hash
# exactly. Prints per seed the verdict, requests and wall time, then the figures: runs and wall
# time to find, requests/s through the front-end, the replay-reproduction rate.
# Exit: 0 clean over every seed, 2 a failure was found (its bundle is printed), 1 usage/error.
# Usage: hunt.sh WSIM VARIANT SEEDS [REPLAYS=10] [FIRST=1] [OUT=wsim-out/node-hunt]
# QUIET_MS=N in the environment: wsim serve --quiet-ms N (default 30).
set -uo pipefail
wsim="${1:?usage: hunt.sh WSIM VARIANT SEEDS [REPLAYS] [FIRST] [OUT]}"
variant="${2:?variant: correct or racy}"
seeds="${3:?number of seeds}"
replays="${4:-10}"
first="${5:-1}"
out="${6:-wsim-out/node-hunt}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mkdir -p "${out}" && cd "${out}" && pwd)"
[[ -d "${here}/node_modules/@kubernetes/client-node" ]] || { echo "run ${here}/install.sh first"; exit 1; }
mkdir -p "${out}"
now_ms() { date +%s%3N; }
controller=(node "${here}/workspace-controller.mjs")
requests=0
busy_ms=0
start=$(now_ms)
found=""
for ((seed = first; seed < first + seeds; seed++)); do
  t0=$(now_ms)
  VARIANT="${variant}" "${wsim}" serve --scenario "${here}/workspaces.textproto" --seed "${seed}" \
    --quiet-ms "${QUIET_MS:-30}" --out "${out}/runs" --external-log "${out}/controller-${seed}.log" -- "${controller[@]}" \
    >"${out}/run-${seed}.txt" 2>&1
  code=$?
  ms=$(($(now_ms) - t0))
  n=$(sed -n 's/^external: \([0-9]*\) requests.*/\1/p' "${out}/run-${seed}.txt")
  requests=$((requests + ${n:-0}))
  busy_ms=$((busy_ms + ms))
  verdict=$(grep -m1 '^verdict' "${out}/run-${seed}.txt" | cut -c1-60)
  echo "seed ${seed}: exit ${code}, ${n:-0} requests, ${ms} ms: ${verdict}"
  if [[ ${code} -ne 0 ]]; then
    found=$(sed -n 's/^bundle //p' "${out}/run-${seed}.txt")
    [[ -n "${found}" ]] || { echo "no bundle (harness error?):"; tail -5 "${out}/run-${seed}.txt"; exit 1; }
    grep -m1 '  invariant' "${out}/run-${seed}.txt"
    break
  fi
done
runs=$((seed - first))
[[ -n "${found}" ]] && runs=$((runs + 1))
echo "requests/s through the front-end: $((requests * 1000 / (busy_ms > 0 ? busy_ms : 1))) (${requests} requests in ${busy_ms} ms of wall time)"
if [[ -z "${found}" ]]; then
  echo "clean: ${seeds} seeds, ${variant} variant, $(($(now_ms) - start)) ms"
  exit 0
fi
echo "found after ${runs} runs in $(($(now_ms) - start)) ms: ${found}"
same=0
for ((i = 1; i <= replays; i++)); do
  VARIANT="${variant}" "${wsim}" serve --replay "${found}" --quiet-ms "${QUIET_MS:-30}" \
    --out "${out}/replays" -- "${controller[@]}" \
    >"${out}/replay-${i}.txt" 2>&1
  grep -q '^replayed exactly' "${out}/replay-${i}.txt" && same=$((same + 1))
done
echo "replays reproducing the trace hash: ${same}/${replays}"
exit 2

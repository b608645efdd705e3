#!/usr/bin/env bash
# A hunt of the client-node workspace controller, a thin wrapper around
#   wsim hunt --scenario workspaces.textproto --seed-start FIRST --runs SEEDS \
#       -- node workspace-controller.mjs
# (VARIANT=correct|racy in the environment of the controller; one controller process per run;
# failures are bundles with the hunt's summary.json and junit.xml in OUT). When the hunt finds
# a failure, its bundle is replayed REPLAYS times (`wsim replay BUNDLE -- node ...`) and the
# replays that reproduced its trace hash exactly are counted.
# Exit: 0 clean over every seed, 2 a failure was found (its bundle is printed), 1 usage/error.
# Usage: hunt.sh WSIM VARIANT SEEDS [REPLAYS=10] [FIRST=1] [OUT=wsim-out/node-hunt]
# In the environment: QUIET_MS=N (the lockstep quiet period, default 30), JOBS=N (processes at
# once, default 1).
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
controller=(node "${here}/workspace-controller.mjs")
VARIANT="${variant}" "${wsim}" hunt --scenario "${here}/workspaces.textproto" --seed-start "${first}" \
  --runs "${seeds}" --jobs "${JOBS:-1}" --quiet-ms "${QUIET_MS:-30}" --out "${out}/runs" \
  --summary "${out}/summary.json" --junit "${out}/junit.xml" -- "${controller[@]}" \
  2>"${out}/progress.txt" | tee "${out}/hunt.txt" | grep -v '^  \(never\|reached\) '
code=${PIPESTATUS[0]}
if [[ ${code} -eq 0 ]]; then
  echo "clean: ${seeds} seeds, ${variant} variant"
  exit 0
fi
found=$(sed -n 's/^bundle //p' "${out}/hunt.txt" | head -1)
[[ ${code} -eq 2 || ${code} -eq 3 ]] && [[ -n "${found}" ]] || { echo "hunt error (exit ${code})"; tail -5 "${out}/progress.txt"; exit 1; }
same=0
for ((i = 1; i <= replays; i++)); do
  VARIANT="${variant}" "${wsim}" replay "${found}" --quiet-ms "${QUIET_MS:-30}" \
    --out "${out}/replays" -- "${controller[@]}" >"${out}/replay-${i}.txt" 2>&1
  grep -q '^replayed exactly' "${out}/replay-${i}.txt" && same=$((same + 1))
done
echo "replays reproducing the trace hash: ${same}/${replays}"
exit 2

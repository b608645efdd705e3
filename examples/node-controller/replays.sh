#!/usr/bin/env bash
# Replay identity of one bundle of the client-node example (docs/external.md "Timers on virtual
# time"): replays BUNDLE N times, JOBS at a time (`wsim replay BUNDLE -- node
# workspace-controller.mjs`, the variant the bundle ran), and counts the replays that reproduced
# its trace hash exactly; prints the load average before, during and after (run it beside a
# build or a busy loop for a load >= 6). Figures only: nothing here asserts.
# Usage: replays.sh WSIM BUNDLE [N=50] [JOBS=2] [VARIANT=correct]
set -uo pipefail
wsim="$(realpath "${1:?usage: replays.sh WSIM BUNDLE [N] [JOBS] [VARIANT]}")"
bundle="$(realpath "${2:?usage: replays.sh WSIM BUNDLE [N] [JOBS] [VARIANT]}")"
count="${3:-50}" jobs="${4:-2}" variant="${5:-correct}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mktemp -d)"
[[ -n "${KEEP:-}" ]] && echo "kept: ${out}" || trap 'rm -rf "${out}"' EXIT
load() { cut -d' ' -f1 /proc/loadavg; }
echo "load before: $(load)"
t0=$(date +%s)
one() {
  (cd "${here}" && VARIANT="${variant}" "${wsim}" replay "${bundle}" --out "${out}/r$1" \
    -- node workspace-controller.mjs) >"${out}/replay-$1.txt" 2>&1
  echo "$(load)" >"${out}/load-$1.txt"
}
for ((i = 1; i <= count; i++)); do
  one "${i}" &
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n; done
done
wait
same=0 loads=""
for ((i = 1; i <= count; i++)); do
  grep -q '^replayed exactly' "${out}/replay-${i}.txt" && same=$((same + 1))
  loads+="$(cat "${out}/load-${i}.txt") "
done
echo "load after each replay: ${loads}"
echo "replays reproducing the trace hash: ${same}/${count} in $(($(date +%s) - t0)) s (load now $(load))"

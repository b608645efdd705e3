#!/usr/bin/env bash
# `wsim shrink BUNDLE -- COMMAND` of an external run's bundle (issue #33, docs/external.md):
# the python3-kubernetes example's planted race (examples/python-controller, `racy`, seed 1: a
# short run, ~1 s a candidate) is shrunk with a small --max-runs, one process per candidate run.
# The shrunk bundle must still fail with the same invariant (external.S1, exit 2) and be no
# larger than the input: no more choices, no more non-zero choices (shrink's summary).
# Exits 77 (SKIP) when /usr/bin/python3 cannot import kubernetes (Debian python3-kubernetes).
# Usage: tests/serve/external_shrink.sh PATH/TO/wsim
set -uo pipefail
wsim="$(realpath "${1:?usage: external_shrink.sh WSIM}")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/serve/lib_python.sh
source "${root}/tests/serve/lib_python.sh"
cd "${example}" || exit 1
controller=("${python}" workspace_controller.py racy)

bundle=""
for seed in 1 2 3; do  # Seed 1 finds it in 27 of 30 hunts' first runs; two more to be sure.
  timeout 120 "${wsim}" serve --scenario workspaces.textproto --seed "${seed}" \
    --out "${work}/out" -- "${controller[@]}" >"${work}/run.txt" 2>&1
  if [[ $? -eq 2 ]] && grep -q '^  invariant external.S1 ' "${work}/run.txt"; then
    bundle=$(sed -n 's/^bundle //p' "${work}/run.txt")
    break
  fi
done
[[ -n "${bundle}" ]] || { echo "FAIL no external.S1 of the racy variant in seeds 1..3"; exit 1; }
echo "bundle ${bundle} (seed ${seed})"

timeout 300 "${wsim}" shrink "${bundle}" --max-runs 8 --scripted-max-runs 0 -o "${work}/shrunk" \
  -- "${controller[@]}" >"${work}/shrink.txt" 2>"${work}/shrink.err"
code=$?
cat "${work}/shrink.txt"
grep '^shrink: ' "${work}/shrink.err"
check "shrink exits 2 (a safety violation)" test "${code}" -eq 2
check "the shrunk bundle exists" test -f "${work}/shrunk/verdict.json"
check "the shrunk bundle still fails with external.S1" \
  grep -q '"invariant": *"external.S1"' "${work}/shrunk/verdict.json"
check "its repro names the COMMAND" grep -q -- "-- ${python} workspace_controller.py racy" \
  "${work}/shrink.txt"
# "  external events A -> B, scripted events C -> D, choices E -> F (non-zero G -> H), N runs"
read -r choices_in choices_out nonzero_in nonzero_out < <(sed -n \
  's/.*, choices \([0-9]*\) -> \([0-9]*\) (non-zero \([0-9]*\) -> \([0-9]*\)).*/\1 \2 \3 \4/p' \
  "${work}/shrink.txt" | head -1)
echo "choices ${choices_in:-?} -> ${choices_out:-?}, non-zero ${nonzero_in:-?} -> ${nonzero_out:-?}"
check "no more choices than the input" test "${choices_out:-999999}" -le "${choices_in:-0}"
check "no more non-zero choices than the input" test "${nonzero_out:-999999}" -le "${nonzero_in:-0}"
[[ ${failures} -eq 0 ]]

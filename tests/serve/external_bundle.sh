#!/usr/bin/env bash
# An external run's bundle is readable everywhere (issue #33 item 1): a bundle of the
# client-node workspace controller's planted race (examples/node-controller, VARIANT=racy) is
#   - explained without the process (`wsim explain`: the recorded run's story, the COMMAND, its
#     working directory and digest), and reported (`wsim report`);
#   - refused by a plain `wsim replay` with the command to use (`-- COMMAND`, exit 1);
#   - replayed by `wsim replay BUNDLE -- COMMAND` (the bundle's verdict, or exit 4 when the
#     process did not repeat its requests; never "not linked").
# The run that wrote it must have ended lockstep waits by the readiness test (issue #33 item 2).
# Exits 77 (SKIP) without node/npm or when npm cannot install.
# Usage: tests/serve/external_bundle.sh PATH/TO/wsim
set -uo pipefail
wsim="${1:?usage: external_bundle.sh WSIM}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
"${root}/examples/node-controller/install.sh" "${work}/example"
code=$?
[[ ${code} -eq 0 ]] || exit "${code}"
cd "${work}/example" || exit 1
controller=(node workspace-controller.mjs)
failures=0
check() {  # check DESCRIPTION COMMAND...: COMMAND succeeds.
  local what="$1"
  shift
  if "$@"; then echo "ok   ${what}"; else failures=$((failures + 1)); echo "FAIL ${what}"; fi
}

bundle=""
for seed in 2 5 6 1 3 4 7 8 9 10; do
  VARIANT=racy timeout 120 "${wsim}" serve --scenario workspaces.textproto --seed "${seed}" \
    --out "${work}/out" -- "${controller[@]}" >"${work}/run.txt" 2>&1
  if [[ $? -eq 2 ]]; then bundle=$(sed -n 's/^bundle //p' "${work}/run.txt"); break; fi
done
[[ -n "${bundle}" ]] || { echo "FAIL no failing run of the racy variant in 10 seeds"; exit 1; }
echo "bundle ${bundle}"
grep '^external: [0-9]' "${work}/run.txt"
check "the readiness test ended lockstep waits (fast lockstep)" \
  grep -Eq 'lockstep waits \([0-9]+ ms of wall time, [1-9][0-9]* ended by the readiness test' \
  "${work}/run.txt"

"${wsim}" explain "${bundle}" >"${work}/explain.txt" 2>&1
code=$?
cat "${work}/explain.txt"
check "explain exits 0" test "${code}" -eq 0
check "explain tells the violation" grep -q 'external.S1 violated' "${work}/explain.txt"
check "explain reads the recorded run" grep -q 'as recorded' "${work}/explain.txt"
check "explain names the COMMAND" grep -q '^external process: node workspace-controller.mjs' \
  "${work}/explain.txt"
check "explain names the workdir" grep -q "^  workdir: ${work}/example\$" "${work}/explain.txt"
check "explain names the digest" grep -Eq '^  digest: fnv1a64:0x[0-9a-f]{16}$' "${work}/explain.txt"
check "explain: no 'not linked'" bash -c "! grep -q 'not linked' '${work}/explain.txt'"

"${wsim}" report "${bundle}" >"${work}/report.txt" 2>&1
check "report exits 0" test $? -eq 0
check "report's repro names the COMMAND" grep -q -- '-- node workspace-controller.mjs' \
  "${work}/report.txt"

"${wsim}" replay "${bundle}" >"${work}/replay.txt" 2>&1
code=$?
cat "${work}/replay.txt"
check "plain replay exits 1" test "${code}" -eq 1
check "plain replay says to give -- COMMAND" grep -q -- "--serve\\|-- node workspace-controller.mjs" \
  "${work}/replay.txt"

VARIANT=racy timeout 120 "${wsim}" replay "${bundle}" --out "${work}/replays" -- "${controller[@]}" \
  >"${work}/replay2.txt" 2>&1
code=$?
tail -3 "${work}/replay2.txt"
check "replay -- COMMAND re-drives it (exit 2, or 4 when it diverged)" \
  bash -c "[[ ${code} -eq 2 || ${code} -eq 4 ]]"
check "replay -- COMMAND: the same COMMAND" bash -c "! grep -q 'differs from the one recorded' '${work}/replay2.txt'"
[[ ${failures} -eq 0 ]]

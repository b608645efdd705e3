#!/usr/bin/env bash
# The kubectl/shell example (examples/kubectl-controller) under `wsim hunt --scenario ... --
# COMMAND`, on its scripted scenario (scripted.textproto: one Workspace created, no faults):
#   - the planted race (`racy`: no per-workspace flock) must be FOUND at seed 1 as external.S1
#     (5 of seeds 1..5 find it);
#   - the correct variant must stay CLEAN over seeds 1..2. It was not: the lockstep took a
#     shell between two kubectl calls (one exited, the next one starting) for a quiet process,
#     and virtual time ran to the end of the run without it (external.L3, a Workspace without
#     its pod; seed 1 every time at load 11-14 before serve/world_lockstep.cc waited again for
#     a process that ran since its last wait).
# Every kubectl call is a Go process start (0.2-1 s of wall time with the machine's load): the
# racy run and the two correct ones run side by side, 10-40 s in all.
# Exits 77 (SKIP) without kubectl or flock.
# Usage: tests/serve/external_kubectl.sh PATH/TO/wsim
set -uo pipefail
wsim="$(realpath "${1:?usage: external_kubectl.sh WSIM}")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
for tool in kubectl flock; do
  command -v "${tool}" >/dev/null 2>&1 || { echo "SKIP: ${tool} is not installed"; exit 77; }
done
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
example="${root}/examples/kubectl-controller"
failures=0
check() {  # check DESCRIPTION COMMAND...: COMMAND succeeds.
  local what="$1"
  shift
  if "$@"; then echo "ok   ${what}"; else failures=$((failures + 1)); echo "FAIL ${what}"; fi
}
hunt() {  # hunt NAME VARIANT RUNS JOBS: a hunt from seed 1, its output in ${work}/NAME.txt
  (cd "${example}" && "${wsim}" hunt --scenario scripted.textproto --seed-start 1 --runs "$3" \
    --jobs "$4" --out "${work}/$1" --summary "${work}/$1.json" -- bash controller.sh "$2") \
    >"${work}/$1.txt" 2>"${work}/$1.err"
  echo $? >"${work}/$1.code"
}

hunt racy racy 1 1 &
hunt correct correct 2 2
wait
echo "--- racy variant, seed 1"
grep -v '^  \(never\|reached\) ' "${work}/racy.txt"
check "the planted race is found (exit 2, external.S1)" \
  grep -q '^SAFETY_VIOLATION external.S1 at seed 1' "${work}/racy.txt"
check "racy hunt exit 2" test "$(cat "${work}/racy.code")" -eq 2
check "summary names it" grep -q '"invariant": "external.S1"' "${work}/racy.json"
echo "--- correct variant, seeds 1..2"
grep -v '^  \(never\|reached\) ' "${work}/correct.txt" | tail -4
grep -h '^  invariant\|^[A-Z_]*VIOLATION' "${work}/correct.txt"
check "the correct variant is clean (exit 0)" test "$(cat "${work}/correct.code")" -eq 0
check "2 runs, no failing run" grep -q 'external: 2 runs in .*, 0 failing runs' "${work}/correct.txt"
[[ ${failures} -eq 0 ]]

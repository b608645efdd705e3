#!/usr/bin/env bash
# The start/stop world of external scenarios (issue #33 item 4): a `workload` block (users who
# start, stop, restart, terminate and burst their Workspaces) and the ordering and state rules
# (implies, eventually within, history) of examples/python-controller/start-stop.textproto.
#   - the correct variant of the python3-kubernetes controller stays CLEAN over seeds 1..3;
#   - the `nostop` variant (deaf to spec.desired=stopped: a stopped Workspace keeps its pod) is
#     FOUND by the deadline rule `eventually within 3m: ...` (external.S3) at seed 5 or 6 (of
#     seeds 1..20, 5 and 13 find it: a Workspace its user left stopped at heal keeps its pod for
#     3 min; the users' choices come from the seed, so the seed keeps finding it).
# Exits 77 (SKIP) when /usr/bin/python3 cannot import kubernetes (Debian python3-kubernetes).
# Usage: tests/serve/external_start_stop.sh PATH/TO/wsim
set -uo pipefail
wsim="$(realpath "${1:?usage: external_start_stop.sh WSIM}")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/serve/lib_python.sh
source "${root}/tests/serve/lib_python.sh"

hunt() {  # hunt VARIANT FIRST RUNS: a hunt of seeds FIRST.., output in ${work}/VARIANT.txt.
  (cd "${example}" && "${wsim}" hunt --scenario start-stop.textproto --seed-start "$2" \
    --runs "$3" --out "${work}/$1" -- "${python}" workspace_controller.py "$1") \
    >"${work}/$1.txt" 2>"${work}/$1.err"
}

echo "--- correct variant, seeds 1..3"
hunt correct 1 3
code=$?
grep -v '^  \(never\|reached\) ' "${work}/correct.txt" | tail -4
if [[ ${code} -eq 0 ]]; then echo "ok   the correct variant is clean"; else
  failures=$((failures + 1)); echo "FAIL the correct variant: exit ${code}"; cat "${work}/correct.err"
fi

echo "--- nostop variant, seeds 5..6 (stops at the first failure)"
hunt nostop 5 2
code=$?
grep -v '^  \(never\|reached\) ' "${work}/nostop.txt" | tail -6
if [[ ${code} -eq 2 ]] && grep -q '^SAFETY_VIOLATION external.S3 at seed' "${work}/nostop.txt"; then
  echo "ok   the deadline rule finds the stopped Workspace that keeps its pod"
else
  failures=$((failures + 1)); echo "FAIL nostop: exit ${code}, no external.S3"; cat "${work}/nostop.err"
fi

[[ ${failures} -eq 0 ]] || { echo "${failures} check(s) failed"; exit 1; }
echo "all checks passed"

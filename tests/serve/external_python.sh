#!/usr/bin/env bash
# The CI job of external hunts (issue #33): a short `wsim hunt --scenario ... -- COMMAND` of the
# python3-kubernetes workspace controller (examples/python-controller), no network needed.
#   - the planted race (`racy`) must be FOUND: external.S1 within seeds 1..5, with its bundle,
#     summary and JUnit report (27 of seeds 1..30 find it; the hunt stops at the first);
#   - the correct variant must stay CLEAN over seeds 1..5 (100 of 100 measured);
#   - `wsim corpus add` of the racy bundle writes a file that names its COMMAND and expects
#     external.S1, and the committed corpus file examples/python-controller/corpus/*.textproto
#     meets its expectation when run as its header says (up to 3 tries: the process is outside
#     wsim, a run from the seed repeats the failure as often as the process repeats its requests).
# Exits 77 (SKIP) when /usr/bin/python3 cannot import kubernetes (Debian python3-kubernetes).
# Usage: tests/serve/external_python.sh PATH/TO/wsim
set -uo pipefail
wsim="$(realpath "${1:?usage: external_python.sh WSIM}")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# shellcheck source=tests/serve/lib_python.sh
source "${root}/tests/serve/lib_python.sh"

echo "--- racy variant, seeds 1..5 (stops at the first failure)"
(cd "${example}" && "${wsim}" hunt --scenario workspaces.textproto --seed-start 1 --runs 5 \
  --out "${work}/racy" --summary "${work}/racy.json" --junit "${work}/racy.xml" \
  -- "${python}" workspace_controller.py racy) >"${work}/racy.txt" 2>"${work}/racy.err"
code=$?
grep -v '^  \(never\|reached\) ' "${work}/racy.txt"
check "the planted race is found (exit 2, external.S1)" \
  grep -q '^SAFETY_VIOLATION external.S1 at seed' "${work}/racy.txt"
[[ ${code} -eq 2 ]] || { failures=$((failures + 1)); echo "FAIL racy hunt exit ${code}"; }
check "summary and JUnit report name it" grep -q '"invariant": "external.S1"' "${work}/racy.json"
check "JUnit failure" grep -q '<failure type="SAFETY_VIOLATION"' "${work}/racy.xml"
bundle=$(sed -n 's/^bundle //p' "${work}/racy.txt" | head -1)

echo "--- racy variant, probe-guided (--guided): the same race, its realism re-checked"
(cd "${example}" && "${wsim}" hunt --scenario workspaces.textproto --seed-start 1 --runs 4 \
  --guided --out "${work}/guided" -- "${python}" workspace_controller.py racy) \
  >"${work}/guided.txt" 2>"${work}/guided.err"
code=$?
check "a guided hunt finds it too (exit 2, external.S1)" \
  grep -q '^SAFETY_VIOLATION external.S1 at seed' "${work}/guided.txt"
[[ ${code} -eq 2 ]] || { failures=$((failures + 1)); echo "FAIL guided hunt exit ${code}"; }
check "the guided hunt says it was guided" grep -q 'probe-guided swarm' "${work}/guided.txt"
check "its realism was judged" grep -q '^realism: ' "${work}/guided.txt"

echo "--- correct variant, seeds 1..5"
(cd "${example}" && "${wsim}" hunt --scenario workspaces.textproto --seed-start 1 --runs 5 \
  --out "${work}/correct" -- "${python}" workspace_controller.py correct) \
  >"${work}/correct.txt" 2>"${work}/correct.err"
code=$?
grep -v '^  \(never\|reached\) ' "${work}/correct.txt" | tail -4
check "the correct variant is clean (exit 0)" test "${code}" -eq 0

echo "--- corpus add of the racy bundle"
if [[ -n "${bundle}" ]]; then
  "${wsim}" corpus add "${bundle}" --name python-racy --corpus "${work}/corpus" >"${work}/add.txt" 2>&1
  cat "${work}/add.txt"
  file=$(sed -n 's/^added //p' "${work}/add.txt")
  check "corpus add wrote a file" test -f "${file}"
  check "the file expects external.S1" grep -q 'invariant: "external.S1"' "${file}"
  check "the file names its COMMAND" grep -q '^  command: "racy"' "${file}"
  check "the file's header says how to run it" grep -q '^#   (cd .* && wsim serve --scenario' "${file}"
else
  failures=$((failures + 1)); echo "FAIL no bundle to add"
fi

echo "--- the committed corpus file, run as its header says"
for file in "${example}"/corpus/*.textproto; do
  expected=$(sed -n 's/^  invariant: "\(.*\)"$/\1/p' "${file}" | head -1)
  mapfile -t command < <(sed -n 's/^  command: "\(.*\)"$/\1/p' "${file}")
  workdir=$(sed -n 's/^  workdir: "\(.*\)"$/\1/p' "${file}")
  met=0
  for try in 1 2 3; do
    (cd "${root}/${workdir}" && "${wsim}" serve --scenario "${file}" --out "${work}/replay" \
      -- "${command[@]}") >"${work}/replay.txt" 2>&1
    grep '^verdict' "${work}/replay.txt"
    if grep -q "^  invariant ${expected} " "${work}/replay.txt"; then met=1; break; fi
  done
  check "$(basename "${file}") meets its expectation ${expected} (try ${try})" test "${met}" -eq 1
done
[[ ${failures} -eq 0 ]]

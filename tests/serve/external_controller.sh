#!/usr/bin/env bash
# `wsim serve --scenario` with a real external reconciler: the @kubernetes/client-node workspace
# controller of examples/node-controller. The correct variant must stay clean over 3 seeds; the
# planted race (VARIANT=racy) must be found as external.S1 by a hunt of at most 15 seeds, and
# its bundle must replay with the same verdict at least once in 3 tries (how often it
# reproduces exactly is a figure, serve/README.md, not a pass condition). Exits 77 (SKIP)
# without node/npm or when npm cannot install.
# Usage: tests/serve/external_controller.sh PATH/TO/wsim
set -uo pipefail
wsim="${1:?usage: external_controller.sh WSIM}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
"${root}/examples/node-controller/install.sh" "${work}/example"
code=$?
[[ ${code} -eq 0 ]] || exit "${code}"
cp "${root}/examples/node-controller/hunt.sh" "${work}/example/"
failures=0

echo "--- correct variant, seeds 1..3"
"${work}/example/hunt.sh" "${wsim}" correct 3 0 1 "${work}/correct"
code=$?
if [[ ${code} -eq 0 ]]; then echo "ok   correct variant clean"; else
  failures=$((failures + 1)); echo "FAIL correct variant: exit ${code}"; fi

echo "--- racy variant, seeds 1..15"
"${work}/example/hunt.sh" "${wsim}" racy 15 3 1 "${work}/racy" | tee "${work}/racy.txt"
code=${PIPESTATUS[0]}
if [[ ${code} -eq 2 ]] && grep -q 'invariant external.S1' "${work}/racy.txt"; then
  echo "ok   planted race found (external.S1)"
else
  failures=$((failures + 1)); echo "FAIL planted race not found as external.S1: exit ${code}"
fi
if grep -Eq 'replays reproducing the trace hash: [1-3]/3' "${work}/racy.txt"; then
  echo "ok   the bundle replays"
else
  failures=$((failures + 1)); echo "FAIL no replay reproduced the bundle"
  cat "${work}"/racy/replay-1.txt 2>/dev/null | tail -5
fi
[[ ${failures} -eq 0 ]]

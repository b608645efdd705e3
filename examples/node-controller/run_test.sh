#!/usr/bin/env bash
# The @kubernetes/client-node example controller against `wsim serve`: installs the client from
# npm into a scratch directory, runs controller.mjs (informer + work queue), and checks through
# the REST API that a source ConfigMap gets its copy, that an update of the source reaches the
# copy, and that deleting the source removes the copy (sim/kube's garbage collector follows the
# ownerReference the controller set). Exits 77 (ctest SKIP) without node/npm/curl or when npm
# cannot install (offline).
# Usage: examples/node-controller/run_test.sh PATH/TO/wsim
set -uo pipefail
wsim="${1:?usage: run_test.sh WSIM}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for tool in node npm curl; do
  command -v "${tool}" >/dev/null 2>&1 || { echo "SKIP: ${tool} is not installed"; exit 77; }
done
work="$(mktemp -d)"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "${pid}" 2>/dev/null; wait "${pid}" 2>/dev/null; done
  rm -rf "${work}"
}
trap cleanup EXIT
cp "${here}/package.json" "${here}/controller.mjs" "${work}/"
if ! (cd "${work}" && timeout 170 npm install --no-audit --no-fund --prefer-offline >npm.log 2>&1); then
  echo "SKIP: npm install of @kubernetes/client-node failed (offline?):"; tail -5 "${work}/npm.log"
  exit 77
fi

"${wsim}" serve --port-file "${work}/port" --exit-after 170s >"${work}/server.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do [[ -s "${work}/port" ]] && break; sleep 0.1; done
server="http://127.0.0.1:$(cat "${work}/port")"
(cd "${work}" && WSIM_SERVER="${server}" exec node controller.mjs >controller.log 2>&1) &
pids+=($!)

base="${server}/api/v1/namespaces/default/configmaps"
failures=0
# eventually DESCRIPTION COMMAND...: COMMAND succeeds within 30 s.
eventually() {
  local what="$1"
  shift
  for _ in $(seq 1 60); do
    if "$@" >/dev/null 2>&1; then echo "ok   ${what}"; return; fi
    sleep 0.5
  done
  failures=$((failures + 1))
  echo "FAIL ${what}"
}
copy_has() { curl -sf "${base}/s1-copy" | grep -q "\"k\":\"$1\""; }
copy_gone() { [[ "$(curl -s -o /dev/null -w '%{http_code}' "${base}/s1-copy")" == 404 ]]; }

eventually "the controller's informer is watching" grep -q 'controller: watching' "${work}/controller.log"
curl -sf -XPOST -H 'Content-Type: application/json' "${base}" \
  -d '{"metadata":{"name":"s1","labels":{"app":"source"}},"data":{"k":"v1"}}' >/dev/null
eventually "a source gets its copy" copy_has v1
curl -sf -XPATCH -H 'Content-Type: application/merge-patch+json' "${base}/s1" \
  -d '{"data":{"k":"v2"}}' >/dev/null
eventually "an update of the source reaches the copy" copy_has v2
curl -sf -XDELETE "${base}/s1" >/dev/null
eventually "deleting the source removes the copy (garbage collector)" copy_gone
echo "--- controller log"; cat "${work}/controller.log"
[[ ${failures} -eq 0 ]]

#!/usr/bin/env bash
# The JavaScript client @kubernetes/client-node against `wsim serve` (issue #32 item 4): runs
# tests/serve/client_node.mjs (VersionApi, create and read back, list with label selectors,
# watches from a resourceVersion / too old / with bookmarks, strategic merge and merge patches,
# delete and deleteCollection, an informer). The client is installed with
# examples/node-controller/install.sh (npm ci, package-lock.json) into DIR, kept between runs.
# Exits 77 (ctest SKIP) only when node or npm is missing or npm cannot install (offline).
# Usage: tests/serve/client_node.sh WSIM DIR
wsim="${1:?usage: client_node.sh WSIM DIR}"
dir="${2:?usage: client_node.sh WSIM DIR}"
here="$(cd "$(dirname "$0")" && pwd)"
source "${here}/lib.sh"
"${here}/../../examples/node-controller/install.sh" "${dir}"
code=$?
[[ ${code} -eq 0 ]] || exit "${code}"
cp "${here}/client_node.mjs" "${dir}/"
start_wsim "${wsim}" serve --exit-after 170s
timeout 120 node "${dir}/client_node.mjs" "${port}"

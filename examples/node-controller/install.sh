#!/usr/bin/env bash
# Installs the example's npm packages (@kubernetes/client-node, pinned by package-lock.json) into
# examples/node-controller/node_modules — the npm counterpart of scripts/deps. Exits 77 (ctest
# SKIP) without node/npm or when npm cannot install (offline). Usage: install.sh [DIR]
# (DIR: install a copy of the example there instead, e.g. a scratch directory).
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
dir="${1:-${here}}"
for tool in node npm; do
  command -v "${tool}" >/dev/null 2>&1 || { echo "SKIP: ${tool} is not installed"; exit 77; }
done
if [[ "${dir}" != "${here}" ]]; then
  mkdir -p "${dir}"
  cp "${here}"/package.json "${here}"/package-lock.json "${here}"/*.mjs "${here}"/*.textproto "${dir}/"
fi
if [[ -f "${dir}/node_modules/@kubernetes/client-node/package.json" ]] &&
   grep -q '"version": "1.4.0"' "${dir}/node_modules/@kubernetes/client-node/package.json"; then
  exit 0
fi
if ! (cd "${dir}" && timeout 170 npm ci --no-audit --no-fund --prefer-offline >"${dir}/npm.log" 2>&1); then
  echo "SKIP: npm ci of @kubernetes/client-node failed (offline?):"; tail -5 "${dir}/npm.log"
  exit 77
fi

# Shared set-up of the python3-kubernetes example's scripts (sourced after `wsim` and `root` are
# set): exits 77 (ctest SKIP) when /usr/bin/python3 cannot import kubernetes (Debian
# python3-kubernetes); defines $python, $example (examples/python-controller), a scratch $work
# removed on exit, $failures with check DESCRIPTION COMMAND... (counts a failing COMMAND), and
# bundle_of OUTPUT (the first "bundle PATH" line of a wsim output file).
# shellcheck shell=bash disable=SC2034,SC2154  # Variables for the sourcing script; it sets root.
python=/usr/bin/python3
if ! "${python}" -c 'import kubernetes' 2>/dev/null; then
  echo "SKIP: ${python} cannot import kubernetes (apt-get install python3-kubernetes)"
  exit 77
fi
example="${root}/examples/python-controller"
work="$(mktemp -d)"
trap 'rm -rf "${work}"' EXIT
failures=0
check() {  # check DESCRIPTION COMMAND...: COMMAND succeeds.
  local what="$1"
  shift
  if "$@"; then echo "ok   ${what}"; else failures=$((failures + 1)); echo "FAIL ${what}"; fi
}
bundle_of() { sed -n 's/^bundle //p' "$1" | head -1; }

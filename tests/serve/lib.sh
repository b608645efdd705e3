# Shared helpers of the kubectl scripts (sourced). Defines: skip_without_kubectl, start_wsim
# (runs a wsim command that serves, waits for its port, writes a throwaway kubeconfig and sets
# $K to the kubectl command line), expect_out / expect_fail / eventually_out (run kubectl, check
# the output), and cleans up the server on exit.
set -uo pipefail

skip_without_kubectl() {
  if ! command -v kubectl >/dev/null 2>&1; then
    echo "SKIP: kubectl is not installed"
    exit 77
  fi
}

work="$(mktemp -d)"
server_pid=""
failures=0
checks=0
cleanup() {
  if [[ -n "${server_pid}" ]]; then kill "${server_pid}" 2>/dev/null; wait "${server_pid}" 2>/dev/null; fi
  rm -rf "${work}"
}
trap cleanup EXIT

# start_wsim WSIM ARGS...: starts `WSIM ARGS... --port-file F`, waits up to 120 s for the port.
start_wsim() {
  "$@" --port-file "${work}/port" >"${work}/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 1 1200); do
    [[ -s "${work}/port" ]] && break
    if ! kill -0 "${server_pid}" 2>/dev/null; then
      echo "FAIL: the server exited:"; cat "${work}/server.log"; exit 1
    fi
    sleep 0.1
  done
  [[ -s "${work}/port" ]] || { echo "FAIL: no port after 120 s"; cat "${work}/server.log"; exit 1; }
  port="$(cat "${work}/port")"
  cat >"${work}/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: wsim, cluster: {server: "http://127.0.0.1:${port}"}}]
contexts: [{name: wsim, context: {cluster: wsim, user: wsim}}]
users: [{name: wsim, user: {}}]
current-context: wsim
KUBECONFIG
  K=(kubectl --kubeconfig "${work}/kubeconfig" --cache-dir "${work}/cache" --request-timeout 20s)
  echo "server on 127.0.0.1:${port}"
}

# expect_out DESCRIPTION REGEX -- ARGS...: kubectl ARGS must succeed with output matching REGEX.
expect_out() {
  local what="$1" regex="$2"
  shift 3
  checks=$((checks + 1))
  local out
  if out="$("${K[@]}" "$@" 2>&1)" && grep -Eq -- "${regex}" <<<"${out}"; then
    echo "ok   ${what}"
  else
    failures=$((failures + 1))
    echo "FAIL ${what}: kubectl $* gave:"; sed 's/^/     /' <<<"${out}"
  fi
}

# expect_fail DESCRIPTION REGEX -- ARGS...: kubectl ARGS must fail with output matching REGEX.
expect_fail() {
  local what="$1" regex="$2"
  shift 3
  checks=$((checks + 1))
  local out
  if ! out="$("${K[@]}" "$@" 2>&1)" && grep -Eq -- "${regex}" <<<"${out}"; then
    echo "ok   ${what}"
  else
    failures=$((failures + 1))
    echo "FAIL ${what}: kubectl $* gave:"; sed 's/^/     /' <<<"${out}"
  fi
}

finish() {
  echo "${checks} checks, ${failures} failed"
  [[ ${failures} -eq 0 ]]
}

# eventually_out DESCRIPTION REGEX -- ARGS...: like expect_out, retried for up to 60 s (for what
# the cluster's controllers do in virtual time that follows a loaded machine's wall clock).
eventually_out() {
  local what="$1" regex="$2"
  shift 3
  checks=$((checks + 1))
  local out=""
  for _ in $(seq 1 120); do
    if out="$("${K[@]}" "$@" 2>&1)" && grep -Eq -- "${regex}" <<<"${out}"; then
      echo "ok   ${what}"
      return
    fi
    sleep 0.5
  done
  failures=$((failures + 1))
  echo "FAIL ${what}: kubectl $* gave:"; sed 's/^/     /' <<<"${out}"
}

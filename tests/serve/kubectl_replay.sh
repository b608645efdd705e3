#!/usr/bin/env bash
# kubectl against a replayed bundle (`wsim replay BUNDLE --serve --at 1m`): makes a bundle with
# `wsim run` of the GitLab limbo scenario (corpus/regressions/gitlab/limbo-411205.textproto,
# agent A0a: a liveness violation), serves its world one minute in (the workspace is running)
# and at the end, and checks that `kubectl get ns,pods,deploy,cm -A` shows them and that writes
# are refused; then `get workspaces -o yaml` and `describe workspace` on a Gitpod bundle (the L5
# corpus scenario). Exits 77 (ctest SKIP) without kubectl.
# Usage: tests/serve/kubectl_replay.sh PATH/TO/wsim
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_without_kubectl
wsim="${1:?usage: kubectl_replay.sh WSIM}"
"${wsim}" run --scenario corpus/regressions/gitlab/limbo-411205.textproto --agent A0a \
  --out "${work}/out" >"${work}/run.log" 2>&1
bundle="$(find "${work}/out" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
if [[ -z "${bundle}" ]]; then echo "FAIL: wsim run wrote no bundle"; cat "${work}/run.log"; exit 1; fi
echo "bundle ${bundle}"

start_wsim "${wsim}" replay "${bundle}" --serve --at 1m --exit-after 60s
grep -q 'fingerprint matches the bundle' "${work}/server.log" || { echo "FAIL: replay differs"; cat "${work}/server.log"; exit 1; }
expect_out "at 1m: the workspace's namespace, pod, deployment and configmaps" \
  'namespace/.*ws-0' -- get ns,pods,deploy,cm -A
expect_out "at 1m: the workspace deployment is there" 'deployment.apps/' -- get deploy -A -o name
expect_out "at 1m: its pod runs" '^Running$' -- get pods -A -o 'jsonpath={.items[*].status.phase}'
expect_out "describe works on a replayed object" 'Namespace: +' -- describe deploy -A
expect_fail "writes are refused (read-only)" 'Forbidden.*read-only' -- create namespace x
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x, namespace: default}\n' >"${work}/x.yaml"
expect_fail "JSON writes too" 'Forbidden.*read-only' -- create --validate=false -f "${work}/x.yaml"
expect_fail "deletes too" 'Forbidden.*read-only' -- delete namespace gl-rd-ns-ws-0
kill "${server_pid}"; wait "${server_pid}" 2>/dev/null; server_pid=""; rm -f "${work}/port"

# --at-event: right before and right after the scripted `kubectl delete_namespace` (trace.jsonl).
event="$(grep '"verb":"delete_namespace"' "${bundle}/trace.jsonl" | head -n 1 | sed 's/^{"i":\([0-9]*\),.*/\1/')"
start_wsim "${wsim}" replay "${bundle}" --serve --at-event "$((event - 1))" --exit-after 60s
expect_out "before trace event ${event}: the namespace is Active" '^Active$' -- get ns gl-rd-ns-ws-0 -o 'jsonpath={.status.phase}'
kill "${server_pid}"; wait "${server_pid}" 2>/dev/null; server_pid=""; rm -f "${work}/port"
start_wsim "${wsim}" replay "${bundle}" --serve --at-event "${event}" --exit-after 60s
expect_out "after trace event ${event}: the namespace is Terminating" '^Terminating$' -- get ns gl-rd-ns-ws-0 -o 'jsonpath={.status.phase}'
kill "${server_pid}"; wait "${server_pid}" 2>/dev/null; server_pid=""; rm -f "${work}/port"

# After kubectl deleted the namespace (2m) the workspace's namespace and deployment are gone.
start_wsim "${wsim}" replay "${bundle}" --serve --at 5m --exit-after 60s
expect_out "at 5m: no deployment is left" 'No resources found' -- get deploy -A
kill "${server_pid}"; wait "${server_pid}" 2>/dev/null; server_pid=""; rm -f "${work}/port"

# A Gitpod bundle (corpus/regressions/gitpod/L5-s0-b6-then-stop.textproto): the Workspace CRD.
"${wsim}" run --scenario corpus/regressions/gitpod/L5-s0-b6-then-stop.textproto \
  --out "${work}/gitpod" >"${work}/gitpod.log" 2>&1
gitpod_bundle="$(find "${work}/gitpod" -mindepth 1 -maxdepth 1 -type d | head -n 1)"
if [[ -z "${gitpod_bundle}" ]]; then echo "FAIL: no gitpod bundle"; cat "${work}/gitpod.log"; exit 1; fi
start_wsim "${wsim}" replay "${gitpod_bundle}" --serve --exit-after 60s
expect_out "get workspaces -A -o yaml" 'kind: Workspace' -- get workspaces -A -o yaml
expect_out "get ws prints its phase" 'gitpod +ws[0-9a-z-]+ +[A-Z][a-z]+ +[0-9]+' -- get ws -A
expect_out "describe workspace" 'API Version: +workspace\.gitpod\.io/v1' -- describe workspace -n gitpod
finish

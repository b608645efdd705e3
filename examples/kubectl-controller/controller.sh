#!/usr/bin/env bash
# A workspace controller as a shell loop around kubectl, run as the reconciler of
#   wsim serve --scenario workspaces.textproto -- bash controller.sh
# (wsim sets WSIM_SERVER to its front-end's URL).
#
# For every Workspace (workspace.gitpod.io/v1) in NAMESPACE it keeps a namespace ws-<name> and
# one pod in it, both labelled workspace=<name>, and sets status.phase=Running; a finalizer lets
# it delete the namespace before the Workspace goes. Three `kubectl get --watch` loops (the
# Workspaces; namespaces and pods labelled workspace) turn every event into a reconcile of that
# workspace, run as a background job so one slow workspace does not hold up the watches (one
# waiting to start per workspace at most: later events find it queued). A
# reconcile reads everything live with kubectl (no cache); a failed one is retried at once (up
# to 20 times: every retry is requests, so it costs virtual time, and a wall-clock `sleep`
# would not replay). A watch that ends (410 Expired, an error) is started again: a relist.
#
# VARIANT=correct (default): a reconcile holds a per-workspace lock (flock), so two reconciles
# of one workspace never overlap.
# VARIANT=racy: the PLANTED RACE — no lock. The Workspace's own MODIFIED event (the finalizer
# just added) starts a second reconcile while the first is still working; both list the pods
# of ws-<name>, see none, and create one each (metadata.generateName): two pods for one
# workspace. `always: at most 1 Pod per label workspace` catches it.
#
# Usage: WSIM_SERVER=http://127.0.0.1:PORT [NAMESPACE=default] [KUBECTL=kubectl]
#        bash controller.sh [correct|racy]
# (or VARIANT=correct|racy in the environment; on the command line the variant is part of the
# COMMAND a bundle records, so `wsim replay` and `wsim corpus add` see it)
set -uo pipefail
server="${WSIM_SERVER:-}"
variant="${1:-${VARIANT:-correct}}"
namespace="${NAMESPACE:-default}"
if [[ -z "${server}" || ! "${variant}" =~ ^(correct|racy)$ ]]; then
  echo "controller.sh: set WSIM_SERVER=http://127.0.0.1:PORT; usage: controller.sh [correct|racy]" >&2
  exit 2
fi
finalizer="example.wsim/cleanup"
state="$(mktemp -d)"
trap 'rm -rf "${state}"; kill 0' EXIT
# kubectl's discovery cache lives with this run (the front-end's port changes every run).
export KUBECACHEDIR="${state}/cache"
export KUBECONFIG="${state}/kubeconfig"
cat >"${KUBECONFIG}" <<EOF
apiVersion: v1
kind: Config
clusters: [{name: wsim, cluster: {server: "${server}"}}]
users: [{name: controller, user: {}}]
contexts: [{name: wsim, context: {cluster: wsim, user: controller, namespace: ${namespace}}}]
current-context: wsim
EOF
k() { "${KUBECTL:-kubectl}" "$@"; }
log() { echo "$*"; }

# reconcile NAME: one pass; exit status non-zero when a kubectl call failed (retried).
reconcile() {
  local name="$1" ns="ws-$1" out line
  local ws="" ns_state=""  # KIND|deletionTimestamp|finalizers|status.phase; empty: none.
  # The Workspace and its namespace in one kubectl call.
  out=$(k get "workspaces.workspace.gitpod.io/${name}" "namespaces/${ns}" --ignore-not-found \
    -o jsonpath='{range .items[*]}{.kind}|{.metadata.deletionTimestamp}|{.metadata.finalizers}|{.status.phase}{"\n"}{end}') ||
    return 1
  while IFS= read -r line; do
    case "${line}" in
      Workspace\|*) ws="${line#*|}" ;;
      Namespace\|*) ns_state="${line#*|}" ;;
    esac
  done <<<"${out}"
  [[ -n "${ws}" ]] || return 0  # Gone.
  local deleting="${ws%%|*}" rest="${ws#*|}"
  local finalizers="${rest%%|*}" phase="${rest#*|}"
  local ns_deleting="${ns_state%%|*}"
  if [[ -n "${deleting}" ]]; then
    [[ "${finalizers}" == *"${finalizer}"* ]] || return 0
    if [[ -n "${ns_state}" ]]; then
      # Its DELETED event starts the next reconcile.
      [[ -n "${ns_deleting}" ]] || k delete namespace "${ns}" --wait=false --ignore-not-found ||
        return 1
      return 0
    fi
    # This world gives a Workspace no other finalizer than ours.
    k patch workspaces.workspace.gitpod.io "${name}" --type=merge \
      -p '{"metadata":{"finalizers":null}}' >/dev/null || return 1
    log "${name}: namespace gone, finalizer removed"
    return 0
  fi
  if [[ "${finalizers}" != *"${finalizer}"* ]]; then
    k patch workspaces.workspace.gitpod.io "${name}" --type=merge \
      -p "{\"metadata\":{\"finalizers\":[\"${finalizer}\"]}}" >/dev/null || return 1
  fi
  [[ -z "${ns_deleting}" ]] || return 0  # Terminating: its DELETED event comes.
  if [[ -z "${ns_state}" ]]; then
    printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s, labels: {workspace: %s}}\n' \
      "${ns}" "${name}" | k create --validate=false -f - >/dev/null || return 1
  fi
  out=$(k get pods -n "${ns}" -l "workspace=${name}" \
    -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.deletionTimestamp}{"\n"}{end}') || return 1
  if ! grep -q '=$' <<<"${out}"; then
    out=$(printf 'apiVersion: v1\nkind: Pod\nmetadata: {generateName: workspace-, namespace: %s, labels: {workspace: %s}}\nspec: {containers: [{name: ide, image: ide}]}\n' \
      "${ns}" "${name}" | k create --validate=false -f - -o name) || return 1
    log "${name}: created ${ns}/${out}"
  fi
  if [[ "${phase}" != "Running" ]]; then
    k patch workspaces.workspace.gitpod.io "${name}" --subresource=status --type=merge \
      -p '{"status":{"phase":"Running"}}' >/dev/null || return 1
  fi
}

# reconcile_retrying NAME: reconcile until it succeeds (at most 20 tries); the correct variant
# holds NAME's lock meanwhile. The pending mark (made by queue) goes once the reconcile starts:
# an event from then on queues the next one.
reconcile_retrying() {
  local name="$1" try
  for ((try = 1; try <= 20; try++)); do
    if [[ "${variant}" == correct ]]; then
      (flock 9 && rmdir "${state}/pending-${name}" 2>/dev/null; reconcile "${name}") \
        9>"${state}/${name}.lock" && return 0
    else
      rmdir "${state}/pending-${name}" 2>/dev/null
      reconcile "${name}" && return 0
    fi
  done
  log "${name}: still failing after 20 tries; waiting for its next event"
}

# queue NAME: a background reconcile of NAME, unless one is already waiting to start (the shell
# version of a work queue's de-duplication; it keeps the number of processes small).
queue() {
  mkdir "${state}/pending-$1" 2>/dev/null || return 0
  reconcile_retrying "$1" &
}

# watch_loop TYPES ARGS...: `kubectl get ARGS --watch --output-watch-events` printing the event
# type and a workspace name per line; every event of TYPES (a regex) starts a reconcile of that
# workspace. When the watch ends, it starts again (a relist: ADDED for everything there).
watch_loop() {
  local types="$1"
  shift
  while true; do
    k get "$@" --watch --output-watch-events 2>>"${state}/watch.err" | {
      while read -r type name; do
        [[ -n "${name}" && "${type}" =~ ^(${types})$ ]] && queue "${name}"
      done
      wait  # Its reconciles finish before the watch starts again (none is left orphaned).
    }
  done
}

log "controller.sh (${variant}): Workspaces in ${namespace} on ${server}"
watch_loop 'ADDED|MODIFIED|DELETED' workspaces.workspace.gitpod.io \
  -o 'jsonpath={.type} {.object.metadata.name}{"\n"}' &
watch_loop 'ADDED|MODIFIED|DELETED' namespaces -l workspace \
  -o 'jsonpath={.type} {.object.metadata.labels.workspace}{"\n"}' &
# Pods: a pod's status changes are no news; one that went is.
watch_loop 'ADDED|DELETED' pods -A -l workspace \
  -o 'jsonpath={.type} {.object.metadata.labels.workspace}{"\n"}' &
wait

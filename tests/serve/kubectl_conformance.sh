#!/usr/bin/env bash
# kubectl against `wsim serve` (serve/README.md, "What kubectl exercised"): discovery, get,
# create, apply (create then configure), patch (strategic, merge, json), label, replace with a
# stale resourceVersion (Conflict), delete --wait, a namespace terminating with content that
# refuses new objects (Forbidden), get -w, the Workspace CRD, describe. Exits 77 (ctest SKIP)
# without kubectl.
# Usage: tests/serve/kubectl_conformance.sh PATH/TO/wsim
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
skip_without_kubectl
wsim="${1:?usage: kubectl_conformance.sh WSIM}"
start_wsim "${wsim}" serve --exit-after 170s

expect_out "version shows the server" 'Server Version: v1\.32\.0-wsim' -- version
expect_out "api-resources lists workspaces" 'workspaces +ws +workspace\.gitpod\.io/v1 +true +Workspace' -- api-resources
expect_out "nodes are registered" 'node-1' -- get nodes
# Manifests are created without client-side validation (as before /openapi was served; clients.sh
# runs kubectl with its default, server-side field validation).
V=--validate=false
obj() {  # obj KIND NAME [NAMESPACE] [EXTRA YAML LINES]: writes a manifest, prints its path
  local f="${work}/$1-$2.yaml"
  printf 'apiVersion: %s\nkind: %s\nmetadata: {name: %s%s}\n%s' \
    "$( [[ $1 == Deployment ]] && echo apps/v1 || echo v1 )" "$1" "$2" \
    "$( [[ -n ${3:-} ]] && echo ", namespace: $3" )" "${4:-}" >"${f}"
  echo "${f}"
}
expect_out "create namespace" 'namespace/team created' -- create $V -f "$(obj Namespace team)"
cat >"${work}/cm-a.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: a, namespace: team, labels: {app: demo}}
data: {k: v}
YAML
expect_out "create -f" 'configmap/a created' -- create $V -f "${work}/cm-a.yaml"
expect_fail "create twice is AlreadyExists" 'AlreadyExists|already exists' -- create $V -f "${work}/cm-a.yaml"
expect_out "get -o jsonpath" '^v$' -- get configmap a -n team -o 'jsonpath={.data.k}'
sed 's/name: a/name: b/' "${work}/cm-a.yaml" >"${work}/cm-b.yaml"
expect_out "apply creates" 'configmap/b created' -- apply $V -f "${work}/cm-b.yaml"
sed 's/k: v/k: applied/' "${work}/cm-b.yaml" >"${work}/cm-b2.yaml"
expect_out "apply configures" 'configmap/b configured' -- apply $V -f "${work}/cm-b2.yaml"
expect_out "apply's change is stored" '^applied$' -- get cm b -n team -o 'jsonpath={.data.k}'
expect_out "server-side apply" 'configmap/c serverside-applied' -- apply $V --server-side -f <(sed 's/name: a/name: c/' "${work}/cm-a.yaml")
expect_out "strategic merge patch" 'configmap/a patched' -- patch cm a -n team -p '{"data":{"k":"v2"}}'
expect_out "merge patch" 'configmap/a patched' -- patch cm a -n team --type merge -p '{"data":{"m":"1"}}'
expect_out "json patch" 'configmap/a patched' -- patch cm a -n team --type json -p '[{"op":"add","path":"/data/j","value":"2"}]'
expect_out "patches are stored" '^v2 1 2$' -- get cm a -n team -o 'jsonpath={.data.k} {.data.m} {.data.j}'
expect_out "label" 'configmap/a labeled' -- label cm a -n team tier=web
expect_out "label selector" '^a$' -- get cm -n team -l tier=web -o 'jsonpath={.items[*].metadata.name}'
expect_out "field selector" '^b$' -- get cm -n team --field-selector metadata.name=b -o 'jsonpath={.items[*].metadata.name}'
"${K[@]}" get cm a -n team -o json >"${work}/a-old.json"
sed 's/"k": "v2"/"k": "replaced"/' "${work}/a-old.json" >"${work}/a-new.json"
expect_out "replace" 'configmap/a replaced' -- replace $V -f "${work}/a-new.json"
expect_out "replace is stored" '^replaced$' -- get cm a -n team -o 'jsonpath={.data.k}'
expect_fail "replace with a stale resourceVersion is Conflict" 'Conflict|the object has been modified' -- replace $V -f "${work}/a-old.json"

# kubectl's generators send protobuf bodies (Namespace, ConfigMap, Secret, Deployment, Pod).
expect_out "create namespace (protobuf)" 'namespace/gen created' -- create namespace gen
expect_out "create configmap --from-literal (protobuf)" 'configmap/lit created' -- create configmap lit -n gen --from-literal=a=b
expect_out "its data" '^b$' -- get cm lit -n gen -o 'jsonpath={.data.a}'
expect_out "create secret generic (protobuf)" 'secret/s created' -- create secret generic s -n gen --from-literal=p=q
expect_out "secret data is base64" '^cQ==$' -- get secret s -n gen -o 'jsonpath={.data.p}'
expect_out "create deployment (protobuf)" 'deployment.apps/d2 created' -- create deployment d2 -n gen --image=nginx
expect_out "run (protobuf pod)" 'pod/p created' -- run p -n gen --image=nginx --restart=Never
expect_out "the generated objects are listed" 'configmap/lit' -- get cm,secret,deploy,pods -n gen -o name

# get -w: a watch sees a create made meanwhile.
"${K[@]}" get cm -n team -w --output-watch-events -o name >"${work}/watch.out" 2>&1 &
watch_pid=$!
sleep 2
"${K[@]}" create $V -f "$(obj ConfigMap watched team 'data: {x: z}')" >/dev/null
sleep 2
kill "${watch_pid}" 2>/dev/null; wait "${watch_pid}" 2>/dev/null
checks=$((checks + 1))
if grep -q 'configmap/watched' "${work}/watch.out"; then echo "ok   get -w sees a new object";
else failures=$((failures + 1)); echo "FAIL get -w:"; cat "${work}/watch.out"; fi

expect_out "delete --wait" 'configmap "b" deleted' -- delete cm b -n team --wait=true --timeout=30s
expect_fail "get after delete is NotFound" 'NotFound|not found' -- get cm b -n team

# Workloads: the cluster's deployment controller, scheduler and kubelet act in (virtual) time.
expect_out "create deployment" 'deployment.apps/web created' -- create $V -f "$(obj Deployment web team 'spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: web, image: nginx}]}
')"
expect_out "kubectl wait: the deployment becomes available" 'condition met' -- wait --for=condition=Available deploy/web -n team --timeout=60s
expect_out "kubectl wait: the pod becomes Ready" 'condition met' -- wait --for=condition=Ready pod -l app=web -n team --timeout=60s
expect_out "the deployment's pod runs" '^Running$' -- get pods -n team -l app=web -o 'jsonpath={.items[*].status.phase}'
expect_out "get pods prints the server's table" 'web-[a-z0-9-]+ +1/1 +Running +0 +[0-9]+s' -- get pods -n team
expect_out "get -o wide adds the node" 'Running +0 +[0-9]+s +node-' -- get pods -n team -o wide
expect_out "describe deployment" 'Replicas: +1 desired' -- describe deployment web -n team
expect_out "scale down by patch" 'deployment.apps/web patched' -- patch deployment web -n team -p '{"spec":{"replicas":0}}'
eventually_out "the pod goes" 'No resources found' -- get pods -n team -l app=web

# Workspace CRD.
cat >"${work}/ws.yaml" <<'YAML'
apiVersion: workspace.gitpod.io/v1
kind: Workspace
metadata: {name: ws-1, namespace: team}
spec: {type: Regular, ownership: {owner: alice}}
YAML
expect_out "create a Workspace" 'workspace.workspace.gitpod.io/ws-1 created' -- apply $V -f "${work}/ws.yaml"
expect_out "get workspaces -o yaml" 'owner: alice' -- get workspaces -n team -o yaml
expect_out "status subresource patch" 'patched' -- patch workspace ws-1 -n team --subresource=status --type merge -p '{"status":{"phase":"Running"}}'
expect_out "status is stored" '^Running$' -- get ws ws-1 -n team -o 'jsonpath={.status.phase}'

# A namespace terminating with content: a finalizer holds a ConfigMap, the namespace waits.
expect_out "finalizer" 'configmap/a patched' -- patch cm a -n team --type merge -p '{"metadata":{"finalizers":["example.com/hold"]}}'
expect_out "delete namespace" 'namespace "team" deleted' -- delete namespace team --wait=false
expect_out "namespace is Terminating" '^Terminating$' -- get namespace team -o 'jsonpath={.status.phase}'
expect_out "get ns shows it Terminating" 'team +Terminating' -- get ns
expect_fail "create in a Terminating namespace is Forbidden" 'Forbidden|being terminated' -- create $V -f "$(obj ConfigMap late team)"
expect_out "release the finalizer" 'configmap/a patched' -- patch cm a -n team --type merge -p '{"metadata":{"finalizers":null}}'
expect_out "the namespace goes" 'deleted|condition met' -- wait --for=delete namespace/team --timeout=60s
[[ ${failures} -eq 0 ]] || "${K[@]}" get cm,deploy,pods,ws,ns -n team -o yaml
expect_out "get ns,pods,deploy,cm -A" 'default' -- get ns,pods,deploy,cm -A
finish

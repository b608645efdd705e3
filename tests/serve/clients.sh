#!/usr/bin/env bash
# Client suite against `wsim serve` (issue #32 items 2-4): kubectl round trip of a Deployment
# (types, dotted keys, lists) through rollout restart / set image / rollout status / describe /
# pause / scale, server-side apply with two managers (conflict, --force-conflicts, removal),
# explain, cluster-info, --show-labels, auth can-i; then the Python client (Debian
# python3-kubernetes): VersionApi, create, watch from a resourceVersion, delete_collection.
# Skips (77) without kubectl; the Python part is skipped (not failed) without the package.
# usage: clients.sh WSIM
wsim="$1"
here="$(cd "$(dirname "$0")" && pwd)"
source "${here}/lib.sh"
skip_without_kubectl
start_wsim "${wsim}" serve --exit-after 170s
cat >"${work}/dep.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: default, labels: {app: web}}
spec:
  replicas: 1
  paused: false
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {a.b/c: "x"}}
    spec:
      hostNetwork: false
      nodeSelector: {kubernetes.io/os: linux}
      containers:
      - {name: c, image: nginx:1, command: [sleep, "1"], ports: [{containerPort: 80}], env: [{name: A, value: "1"}]}
YAML
expect_out "created" "created" -- apply -f "${work}/dep.yaml"
expect_out "restarted" "restarted" -- rollout restart deploy/web
expect_out "image updated" "image updated" -- set image deploy/web c=nginx:2
expect_out '"hostNetwork":false' '"hostNetwork":false' -- get deploy web -o jsonpath='{.spec.template.spec}'
expect_out '"kubernetes.io/os":"linux"' '"kubernetes.io/os":"linux"' -- get deploy web -o jsonpath='{.spec.template.spec.nodeSelector}'
expect_out '"containerPort":80' '"containerPort":80' -- get deploy web -o jsonpath='{.spec.template.spec.containers[0].ports}'
expect_out 'nginx:2' 'nginx:2' -- get deploy web -o jsonpath='{.spec.template.spec.containers[0].image}'
eventually_out "successfully rolled out" "successfully rolled out" -- rollout status deploy/web --timeout=5s
expect_out "Name:" "Name:" -- describe deploy web
expect_out "paused" "paused" -- rollout pause deploy/web
expect_out "scaled" "scaled" -- scale deploy/web --replicas=2
expect_out "app=web" "app=web" -- get deploy --show-labels
expect_out "replicas" "replicas" -- explain deployment.spec.replicas
expect_out "running at" "running at" -- cluster-info
expect_out "yes" "yes" -- auth can-i create pods
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {a: "1", b: "2"}\n' >"${work}/cm1.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {a: "9"}\n' >"${work}/cm2.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {b: "2"}\n' >"${work}/cm3.yaml"
expect_out "serverside-applied" "serverside-applied" -- apply --server-side --field-manager=one -f "${work}/cm1.yaml"
expect_fail 'conflict with "one": [.]data[.]a' 'conflict with "one": [.]data[.]a' -- apply --server-side --field-manager=two -f "${work}/cm2.yaml"
expect_out "serverside-applied" "serverside-applied" -- apply --server-side --field-manager=two --force-conflicts -f "${work}/cm2.yaml"
expect_out "serverside-applied" "serverside-applied" -- apply --server-side --field-manager=one -f "${work}/cm3.yaml"
expect_out '"a":"9","b":"2"' '"a":"9","b":"2"' -- get cm cfg -o jsonpath='{.data}'
if /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
  checks=$((checks + 1))
  if ! out="$(/usr/bin/python3 - "${port}" 2>&1 <<'PY'
import sys
from kubernetes import client, watch
c = client.ApiClient(client.Configuration(host="http://127.0.0.1:" + sys.argv[1]))
v1 = client.CoreV1Api(c)
assert client.VersionApi(c).get_code().git_version.startswith("v1.32")
lst = v1.list_namespaced_config_map("default")
v1.create_namespaced_config_map("default", {"metadata": {"name": "py"}, "data": {"x": "1"}})
w = watch.Watch()
seen = [e["object"].metadata.name for e in w.stream(v1.list_namespaced_config_map, "default",
        resource_version=lst.metadata.resource_version, timeout_seconds=2)]
assert "py" in seen, seen
v1.delete_collection_namespaced_config_map("default")
print("deleted", len(v1.list_namespaced_config_map("default").items))
PY
)" || ! grep -q "deleted 0" <<<"${out}"; then
    echo "FAIL python client: ${out}"; failures=$((failures + 1))
  fi
else
  echo "SKIP (python): python3-kubernetes is not installed"
fi
finish

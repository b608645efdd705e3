#!/usr/bin/env bash
# Client suite against `wsim serve` (issue #32 items 2-4; serve/README.md "What the client suite
# exercises"): kubectl round trip of a Deployment (types, dotted keys, lists) through rollout
# restart / rollout history / set image / rollout status / describe / rollout pause / scale,
# watch tables (`get -w` rows with the columns and -L), --show-labels, -L, explain,
# cluster-info, auth can-i (and --list), server-side apply with two managers (managedFields,
# conflict, --force-conflicts, removal), a CRD then its kind, --dry-run=server; meanwhile the Python client (Debian python3-kubernetes,
# tests/serve/clients_python.py, in its own namespace). Every check asserts. Skips (77) without kubectl; the Python
# part is skipped (not failed) only when `import kubernetes` fails.
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
# The Python client's checks run meanwhile, in their own namespace.
python_pid=""
if /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
  /usr/bin/python3 "${here}/clients_python.py" "${port}" >"${work}/python.out" 2>&1 &
  python_pid=$!
else
  echo "SKIP (python): python3-kubernetes cannot be imported"
fi
expect_out "apply creates" 'deployment.apps/web created' -- apply -f "${work}/dep.yaml"
expect_out "booleans come back typed" '^false false$' -- get deploy web -o jsonpath='{.spec.paused} {.spec.template.spec.hostNetwork}'
expect_out "rollout restart" 'deployment.apps/web restarted' -- rollout restart deploy/web
expect_out "rollout restart keeps the dotted annotation and adds restartedAt" \
  '"a.b/c":"x","kubectl.kubernetes.io/restartedAt":"[0-9TZ:-]+"' -- get deploy web -o jsonpath='{.spec.template.metadata.annotations}'
expect_out "rollout history reads the restarted Deployment" 'deployment.apps/web' -- rollout history deploy/web
expect_out "set image" 'deployment.apps/web image updated' -- set image deploy/web c=nginx:2
expect_out "set image keeps ports, env, command" '^nginx:2 80 A=1 sleep,1$' -- get deploy web -o jsonpath='{.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort} {.spec.template.spec.containers[0].env[0].name}={.spec.template.spec.containers[0].env[0].value} {.spec.template.spec.containers[0].command[0]},{.spec.template.spec.containers[0].command[1]}'
expect_out "dotted nodeSelector key" '^\{"kubernetes.io/os":"linux"\}$' -- get deploy web -o jsonpath='{.spec.template.spec.nodeSelector}'
eventually_out "rollout status" 'successfully rolled out' -- rollout status deploy/web --timeout=5s
expect_out "describe" 'Replicas: +1 desired' -- describe deploy web
expect_out "rollout pause" 'deployment.apps/web paused' -- rollout pause deploy/web
expect_out "rollout pause sets spec.paused (a boolean)" '^true$' -- get deploy web -o jsonpath='{.spec.paused}'
# A watch table: the rows of `get -w` carry the Deployment's columns and the -L column.
"${K[@]}" get deploy web -w -L app >"${work}/watch.out" 2>&1 &
watch_pid=$!
sleep 1
expect_out "scale" 'deployment.apps/web scaled' -- scale deploy/web --replicas=2
expect_out "scale sets spec.replicas" '^2$' -- get deploy web -o jsonpath='{.spec.replicas}'
sleep 1
kill "${watch_pid}" 2>/dev/null; wait "${watch_pid}" 2>/dev/null
checks=$((checks + 1))
if grep -Eq '^web +[0-9]+/2 +[0-9]+ +[0-9]+ +[0-9a-z]+ +web$' "${work}/watch.out"; then
  echo "ok   get -w rows carry READY, UP-TO-DATE, AVAILABLE, AGE and the -L column"
else
  failures=$((failures + 1)); echo "FAIL get -w table rows:"; sed 's/^/     /' "${work}/watch.out"
fi
expect_out "get --show-labels" '^web +[0-9]+/2 .* app=web$' -- get deploy web --show-labels
expect_out "get -L (header)" 'AGE +APP$' -- get deploy -L app
expect_out "get -L (row)" '^web +[0-9]+/2 +[0-9]+ +[0-9]+ +[0-9a-z]+ +web$' -- get deploy -L app
expect_out "explain" 'FIELD: +replicas <integer>' -- explain deployment.spec.replicas
expect_out "cluster-info" 'control plane is running at http://127[.]0[.]0[.]1:' -- cluster-info
expect_out "auth can-i (no RBAC: every request is allowed)" '^yes$' -- auth can-i create pods
expect_out "auth can-i --list" '^[*][.][*] +\[\] +\[\] +\[[*]\]$' -- auth can-i --list
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {a: "1", b: "2"}\n' >"${work}/cm1.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {a: "9"}\n' >"${work}/cm2.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {b: "2"}\n' >"${work}/cm3.yaml"
printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg, namespace: default}\ndata: {}\n' >"${work}/cm4.yaml"
expect_out "apply --server-side (manager one)" 'configmap/cfg serverside-applied' -- apply --server-side --field-manager=one -f "${work}/cm1.yaml"
expect_fail "a second manager conflicts" 'Apply failed with 1 conflict: conflict with "one": [.]data[.]a' -- apply --server-side --field-manager=two -f "${work}/cm2.yaml"
expect_out "the conflict changed nothing" '^\{"a":"1","b":"2"\}$' -- get cm cfg -o jsonpath='{.data}'
expect_out "--force-conflicts" 'configmap/cfg serverside-applied' -- apply --server-side --field-manager=two --force-conflicts -f "${work}/cm2.yaml"
expect_out "managedFields: one owns b, two owns a" '^one:\{"f:data":\{"f:b":\{\}\}\}; two:\{"f:data":\{"f:a":\{\}\}\}; $' -- get cm cfg --show-managed-fields -o jsonpath='{range .metadata.managedFields[*]}{.manager}:{.fieldsV1}; {end}'
expect_out "manager one re-applies b only" 'configmap/cfg serverside-applied' -- apply --server-side --field-manager=one -f "${work}/cm3.yaml"
expect_out "two's forced value stays" '^\{"a":"9","b":"2"\}$' -- get cm cfg -o jsonpath='{.data}'
expect_out "manager one drops b" 'configmap/cfg serverside-applied' -- apply --server-side --field-manager=one -f "${work}/cm4.yaml"
expect_out "a field its only manager dropped is removed" '^\{"a":"9"\}$' -- get cm cfg -o jsonpath='{.data}'
# A CRD applied from a manifest serves its kind at once (discovery, OpenAPI for validation).
cat >"${work}/crd.yaml" <<'YAML'
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.example.org}
spec:
  group: example.org
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, shortNames: [gd]}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}, enabled: {type: boolean}}}
YAML
printf 'apiVersion: example.org/v1\nkind: Gadget\nmetadata: {name: g1, namespace: default}\nspec: {size: 3, enabled: true}\n' >"${work}/gadget.yaml"
expect_out "apply a CRD" 'customresourcedefinition.apiextensions.k8s.io/gadgets.example.org created' -- apply -f "${work}/crd.yaml"
expect_out "apply its custom kind" 'gadget.example.org/g1 created' -- apply -f "${work}/gadget.yaml"
expect_out "the custom object, typed" '^3 true$' -- get gd g1 -o jsonpath='{.spec.size} {.spec.enabled}'
expect_out "create --dry-run=server" 'configmap/dry created [(]server dry run[)]' -- create configmap dry --from-literal=a=b --dry-run=server
expect_fail "a dry run stores nothing" 'NotFound|not found' -- get cm dry
if [[ -n "${python_pid}" ]]; then
  checks=$((checks + 1))
  if wait "${python_pid}"; then
    cat "${work}/python.out"; echo "ok   the Python client's checks"
  else
    cat "${work}/python.out"; echo "FAIL the Python client (above)"; failures=$((failures + 1))
  fi
fi
finish

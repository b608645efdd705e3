// The JavaScript client @kubernetes/client-node (1.4.0) against `wsim serve` (issue #32 item 4),
// run by tests/serve/client_node.sh. Every check asserts what a real API server answers; a check
// that fails prints what it got and the script exits 1.
//
// Usage: node client_node.mjs PORT   (from a directory whose node_modules has the client)
import * as assert from 'node:assert/strict';

import * as k8s from '@kubernetes/client-node';
// Not re-exported by the package's index: the typed models back to their JSON (wire) names.
import { ObjectSerializer } from '@kubernetes/client-node/dist/serializer.js';

const port = process.argv[2];
if (!port) {
  console.error('usage: node client_node.mjs PORT');
  process.exit(2);
}
const server = `http://127.0.0.1:${port}`;
const kc = new k8s.KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'wsim', server, skipTLSVerify: true }],
  users: [{ name: 'client-node' }],
  contexts: [{ name: 'wsim', cluster: 'wsim', user: 'client-node' }],
  currentContext: 'wsim',
});
const core = kc.makeApiClient(k8s.CoreV1Api);
const apps = kc.makeApiClient(k8s.AppsV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);
const extensions = kc.makeApiClient(k8s.ApiextensionsV1Api);
const namespace = 'client-node';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// JSON with object keys sorted at every level: Kubernetes does not promise key order (a custom
// resource is served from a map), only the same document.
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
        .join(',')}}`;
  }
  return JSON.stringify(value);
}

// Every field of `written` is in `read` with the same value (the server adds metadata, status
// and defaults).
function assertSubset(read, written, path = '') {
  if (Array.isArray(written)) {
    assert.ok(Array.isArray(read), `${path}: not a list: ${JSON.stringify(read)}`);
    assert.equal(read.length, written.length, `${path}: ${JSON.stringify(read)}`);
    written.forEach((w, i) => assertSubset(read[i], w, `${path}[${i}]`));
  } else if (written !== null && typeof written === 'object') {
    assert.ok(read !== null && typeof read === 'object', `${path}: ${JSON.stringify(read)}`);
    for (const key of Object.keys(written)) assertSubset(read[key], written[key], `${path}.${key}`);
  } else {
    assert.equal(read, written, `${path}`);
  }
}

// Resolves with the ApiException of `promise` (which must fail).
async function failure(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail('the request succeeded');
}

// Runs a watch of `path` with `query` until `until(events)` holds (or `timeout_ms` passes);
// resolves with the events ({type, object}) and the error the stream ended with.
async function watchUntil(path, query, until, timeout_ms = 8000) {
  const events = [];
  let abort = null;
  let finish = null;
  const finished = new Promise((resolve) => { finish = resolve; });
  const timer = setTimeout(() => finish({ events, ended: 'timeout' }), timeout_ms);
  abort = await new k8s.Watch(kc).watch(path, query, (type, object) => {
    events.push({ type, object });
    if (until(events)) finish({ events, ended: 'done' });
  }, (err) => finish({ events, ended: err ? `error ${err.statusCode || ''} ${err}` : 'closed' }));
  const result = await finished;
  clearTimeout(timer);
  abort.abort();
  return result;
}

const checks = [];
const check = (name, fn) => checks.push({ name, fn });

check('VersionApi getCode: v1.32', async () => {
  const version = await kc.makeApiClient(k8s.VersionApi).getCode();
  assert.match(version.gitVersion, /^v1\.32\./);
  assert.equal(version.major, '1');
  assert.equal(version.minor, '32');
});

check('create a namespace', async () => {
  const created = await core.createNamespace({ body: { metadata: { name: namespace } } });
  assert.equal(created.metadata.name, namespace);
  assert.ok(created.metadata.uid);
});

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace,
    labels: { app: 'web', 'app.kubernetes.io/part-of': 'client-node' },
    annotations: { 'example.com/a.b': 'x/y', 'deployment.kubernetes.io/note': 'kept' },
  },
  spec: {
    replicas: 2,
    paused: true,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' }, annotations: { 'a.b/c': 'd' } },
      spec: {
        hostNetwork: false,
        automountServiceAccountToken: true,
        nodeSelector: { 'kubernetes.io/os': 'linux', 'topology.kubernetes.io/zone': 'z-1' },
        containers: [
          {
            name: 'app', image: 'nginx:1', command: ['sleep', '3600'],
            ports: [{ containerPort: 80, protocol: 'TCP' }, { containerPort: 443, protocol: 'TCP' }],
            env: [{ name: 'A', value: '1' }, { name: 'B.C/D', value: 'true' }],
            stdin: true, tty: false,
          },
          { name: 'sidecar', image: 'busybox:1', args: ['-c', 'echo hi'] },
        ],
      },
    },
  },
};

check('create a Deployment, read it back: every field written, typed (booleans, dotted and slashed keys, lists)', async () => {
  const created = await apps.createNamespacedDeployment({ namespace, body: deployment });
  assertSubset(ObjectSerializer.serialize(created, 'V1Deployment'), deployment);
  const read = await apps.readNamespacedDeployment({ name: 'web', namespace });
  assertSubset(ObjectSerializer.serialize(read, 'V1Deployment'), deployment);
  assert.equal(read.spec.paused, true);
  assert.equal(read.spec.template.spec.hostNetwork, false);
  assert.equal(read.spec.template.spec.containers[0].ports[1].containerPort, 443);
});

const widgetSpec = {
  'size.example.com/cores': 4,
  ratio: 0.25,
  enabled: true,
  disabled: false,
  nothing: null,
  tags: ['a', 'b/c', 'd.e'],
  nested: { 'x.y/z': { list: [{ k: 'v', on: true }, [1, 2, [3]], 'text', 7] }, empty: {} },
  emptyList: [],
  unicode: 'ünïcødé ✓',
};

check('a CRD, then a custom object read back as the same JSON document', async () => {
  await extensions.createCustomResourceDefinition({
    body: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.example.com' },
      spec: {
        group: 'example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{
          name: 'v1', served: true, storage: true,
          schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
        }],
      },
    },
  });
  const body = {
    apiVersion: 'example.com/v1', kind: 'Widget',
    metadata: { name: 'w1', namespace, labels: { 'example.com/kind': 'widget' } },
    spec: widgetSpec,
  };
  const created = await custom.createNamespacedCustomObject({
    group: 'example.com', version: 'v1', namespace, plural: 'widgets', body,
  });
  assert.equal(canonical(created.spec), canonical(widgetSpec));
  const read = await custom.getNamespacedCustomObject({
    group: 'example.com', version: 'v1', namespace, plural: 'widgets', name: 'w1',
  });
  assert.equal(canonical(read.spec), canonical(widgetSpec));
  assert.equal(read.apiVersion, 'example.com/v1');
  assert.equal(read.kind, 'Widget');
  assert.deepEqual(read.metadata.labels, { 'example.com/kind': 'widget' });
});

check('create twice: 409 AlreadyExists', async () => {
  const body = { metadata: { name: 'twice' }, data: { a: '1' } };
  await core.createNamespacedConfigMap({ namespace, body });
  const e = await failure(core.createNamespacedConfigMap({ namespace, body }));
  assert.equal(e.code, 409);
  assert.equal(JSON.parse(e.body).reason, 'AlreadyExists');
  await core.deleteNamespacedConfigMap({ name: 'twice', namespace });
});

check('read a missing object: 404 NotFound', async () => {
  const e = await failure(core.readNamespacedConfigMap({ name: 'missing', namespace }));
  assert.equal(e.code, 404);
  assert.equal(JSON.parse(e.body).reason, 'NotFound');
});

const names = (list) => list.items.map((o) => o.metadata.name).sort();

check('list with labelSelector (=, !=, exists, !exists, in, notin, several terms); limit/continue pages', async () => {
  const labelled = [['l1', { tier: 'a', 'example.com/team': 'x' }], ['l2', { tier: 'b' }],
    ['l3', { tier: 'c', 'example.com/team': 'y' }], ['l4', {}]];
  for (const [name, labels] of labelled) {
    await core.createNamespacedConfigMap({ namespace, body: { metadata: { name, labels } } });
  }
  const list = async (labelSelector) =>
    names(await core.listNamespacedConfigMap({ namespace, labelSelector }));
  assert.deepEqual(await list('tier=a'), ['l1']);
  assert.deepEqual(await list('tier==b'), ['l2']);
  assert.deepEqual(await list('tier!=a,tier'), ['l2', 'l3']);
  assert.deepEqual(await list('example.com/team'), ['l1', 'l3']);
  assert.deepEqual(await list('!example.com/team,tier'), ['l2']);
  assert.deepEqual(await list('tier in (a, c)'), ['l1', 'l3']);
  assert.deepEqual(await list('tier notin (a,c),tier'), ['l2']);
  assert.deepEqual(await list('tier in (a,b),example.com/team=x'), ['l1']);
  const all = await core.listNamespacedConfigMap({ namespace });
  assert.ok(Number(all.metadata.resourceVersion) > 0);
  // Pages: limit, then continue until the token is gone.
  const first = await core.listNamespacedConfigMap({ namespace, limit: 3 });
  assert.equal(first.items.length, 3);
  assert.ok(first.metadata._continue, JSON.stringify(first.metadata));
  assert.equal(first.metadata.remainingItemCount, 1);
  const second = await core.listNamespacedConfigMap({ namespace, limit: 3, _continue: first.metadata._continue });
  assert.deepEqual([...names(first), ...names(second)], ['l1', 'l2', 'l3', 'l4']);
  assert.equal(second.metadata._continue, undefined);
});

check('deleteCollection with a labelSelector, then without', async () => {
  await core.deleteCollectionNamespacedConfigMap({ namespace, labelSelector: 'tier in (a,b)' });
  assert.deepEqual(names(await core.listNamespacedConfigMap({ namespace })), ['l3', 'l4']);
  await core.deleteCollectionNamespacedConfigMap({ namespace });
  assert.deepEqual(names(await core.listNamespacedConfigMap({ namespace })), []);
});

const cmPath = `/api/v1/namespaces/${namespace}/configmaps`;

check('watch from a list resourceVersion: ADDED, MODIFIED, DELETED of one object, in order', async () => {
  const list = await core.listNamespacedConfigMap({ namespace });
  const rv = list.metadata.resourceVersion;
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'w' }, data: { v: '1' } } });
  await core.patchNamespacedConfigMap({ name: 'w', namespace, body: { data: { v: '2' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  await core.deleteNamespacedConfigMap({ name: 'w', namespace });
  // Still there when the watch starts: its creation is an ADDED event all the same.
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 'w2' }, data: { v: '1' } } });
  await core.patchNamespacedConfigMap({ name: 'w2', namespace, body: { data: { v: '2' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
  const { events, ended } = await watchUntil(cmPath, { resourceVersion: rv },
    (ev) => ev.filter((e) => e.object.metadata.name === 'w2').length === 2);
  const seen = events.map((e) => `${e.type} ${e.object.metadata.name} ${(e.object.data || {}).v}`);
  assert.deepEqual(seen, ['ADDED w 1', 'MODIFIED w 2', 'DELETED w 2', 'ADDED w2 1', 'MODIFIED w2 2'],
    `ended: ${ended}`);
  const rvs = events.map((e) => Number(e.object.metadata.resourceVersion));
  assert.ok(rvs.every((v, i) => i === 0 || v > rvs[i - 1]), `resourceVersions ${rvs}`);
  assert.ok(rvs[0] > Number(rv));
});

check('watch with a labelSelector from a resourceVersion: into the selector ADDED, out of it DELETED', async () => {
  const list = await core.listNamespacedConfigMap({ namespace });
  const rv = list.metadata.resourceVersion;
  const merge = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
  await core.createNamespacedConfigMap({ namespace, body: { metadata: { name: 's', labels: { pick: 'no' } } } });
  await core.patchNamespacedConfigMap({ name: 's', namespace, body: { metadata: { labels: { pick: 'yes' } } } }, merge);
  await core.patchNamespacedConfigMap({ name: 's', namespace, body: { data: { x: '1' } } }, merge);
  await core.patchNamespacedConfigMap({ name: 's', namespace, body: { metadata: { labels: { pick: 'no' } } } }, merge);
  const { events, ended } = await watchUntil(cmPath, { resourceVersion: rv, labelSelector: 'pick=yes' },
    (ev) => ev.some((e) => e.type === 'DELETED'));
  assert.deepEqual(events.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED'], `ended: ${ended}`);
  // Leaving the selector: the previous content (still pick=yes) at the change's resourceVersion.
  assert.equal(events[2].object.metadata.labels.pick, 'yes');
  assert.ok(Number(events[2].object.metadata.resourceVersion) >
            Number(events[1].object.metadata.resourceVersion));
  await core.deleteNamespacedConfigMap({ name: 's', namespace });
  await core.deleteNamespacedConfigMap({ name: 'w2', namespace });
});

check('watch from a too old resourceVersion: ERROR 410 Expired, then the stream ends', async () => {
  const { events, ended } = await watchUntil(cmPath, { resourceVersion: '1' }, () => false);
  assert.equal(events.length, 1, JSON.stringify(events));
  assert.equal(events[0].type, 'ERROR');
  assert.equal(events[0].object.kind, 'Status');
  assert.equal(events[0].object.code, 410);
  assert.equal(events[0].object.reason, 'Expired');
  assert.match(events[0].object.message, /too old resource version: 1 \(\d+\)/);
  assert.equal(ended, 'closed');
});

check('watches with timeoutSeconds=4: with allowWatchBookmarks a BOOKMARK before the deadline, without none', async () => {
  const list = await core.listNamespacedConfigMap({ namespace });
  const rv = Number(list.metadata.resourceVersion);
  const started = Date.now();
  const query = { resourceVersion: String(rv), timeoutSeconds: 4 };
  const [withBookmarks, without] = await Promise.all([
    watchUntil(cmPath, { ...query, allowWatchBookmarks: true }, () => false),
    watchUntil(cmPath, query, () => false),
  ]);
  const bookmarks = withBookmarks.events.filter((e) => e.type === 'BOOKMARK');
  assert.ok(bookmarks.length >= 1, `events: ${JSON.stringify(withBookmarks)}`);
  assert.equal(bookmarks[0].object.kind, 'ConfigMap');
  assert.equal(bookmarks[0].object.apiVersion, 'v1');
  assert.ok(Number(bookmarks[0].object.metadata.resourceVersion) >= rv);
  assert.equal(withBookmarks.ended, 'closed');
  assert.deepEqual(without.events, []);
  assert.equal(without.ended, 'closed');
  assert.ok(Date.now() - started < 7000, `the watches lasted ${Date.now() - started} ms`);
});

const strategic = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch);
const mergePatch = k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch);
const containers = (d) => d.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`);

check('strategic merge patch: containers merged by name (one changed, one added, one deleted)', async () => {
  let patched = await apps.patchNamespacedDeployment({
    name: 'web', namespace,
    body: { spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'busybox:2' }] } } } },
  }, strategic);
  assert.deepEqual(containers(patched), ['app=nginx:1', 'sidecar=busybox:2']);
  assert.deepEqual(patched.spec.template.spec.containers[1].args, ['-c', 'echo hi']);
  assert.equal(patched.spec.template.spec.containers[0].ports.length, 2);
  patched = await apps.patchNamespacedDeployment({
    name: 'web', namespace,
    body: { spec: { template: { spec: { containers: [
      { name: 'app', env: [{ name: 'C', value: '3' }] }, { name: 'extra', image: 'redis:7' }] } } } },
  }, strategic);
  assert.deepEqual(containers(patched), ['app=nginx:1', 'sidecar=busybox:2', 'extra=redis:7']);
  assert.deepEqual(patched.spec.template.spec.containers[0].env.map((e) => e.name), ['A', 'B.C/D', 'C']);
  patched = await apps.patchNamespacedDeployment({
    name: 'web', namespace,
    body: { spec: { template: { spec: { containers: [{ name: 'extra', $patch: 'delete' }] } } } },
  }, strategic);
  assert.deepEqual(containers(patched), ['app=nginx:1', 'sidecar=busybox:2']);
  const read = await apps.readNamespacedDeployment({ name: 'web', namespace });
  assert.deepEqual(containers(read), ['app=nginx:1', 'sidecar=busybox:2']);
});

check('merge patch: the containers list replaced whole; null removes a key', async () => {
  const patched = await apps.patchNamespacedDeployment({
    name: 'web', namespace,
    body: {
      metadata: { annotations: { 'deployment.kubernetes.io/note': null } },
      spec: { replicas: 3, template: { spec: { containers: [{ name: 'only', image: 'alpine:3' }] } } },
    },
  }, mergePatch);
  assert.deepEqual(containers(patched), ['only=alpine:3']);
  assert.equal(patched.spec.replicas, 3);
  assert.deepEqual(patched.metadata.annotations, { 'example.com/a.b': 'x/y' });
  assert.equal(patched.spec.template.spec.containers[0].ports, undefined);
});

check('patch with a stale metadata.resourceVersion: 409 Conflict', async () => {
  const e = await failure(apps.patchNamespacedDeployment({
    name: 'web', namespace, body: { metadata: { resourceVersion: '1' }, spec: { replicas: 1 } },
  }, mergePatch));
  assert.equal(e.code, 409);
  assert.equal(JSON.parse(e.body).reason, 'Conflict');
});

check('delete: a Success Status naming the object (V1Status), then 404', async () => {
  const uid = (await apps.readNamespacedDeployment({ name: 'web', namespace })).metadata.uid;
  const status = await apps.deleteNamespacedDeployment({ name: 'web', namespace });
  assert.equal(status.kind, 'Status');
  assert.equal(status.status, 'Success');
  assert.deepEqual({ ...status.details },
    { name: 'web', group: 'apps', kind: 'deployments', uid });
  const e = await failure(apps.readNamespacedDeployment({ name: 'web', namespace }));
  assert.equal(e.code, 404);
});

check('informer (makeInformer): add, update, delete; the cache follows', async () => {
  const got = [];
  const informer = k8s.makeInformer(kc, cmPath,
    () => core.listNamespacedConfigMap({ namespace, labelSelector: 'informed=yes' }), 'informed=yes');
  let wake = null;
  const note = (verb) => (obj) => {
    got.push(`${verb} ${obj.metadata.name} ${(obj.data || {}).v}`);
    if (wake) wake();
  };
  informer.on('add', note('add'));
  informer.on('update', note('update'));
  informer.on('delete', note('delete'));
  const errors = [];
  informer.on('error', (err) => errors.push(String(err)));
  const waitFor = async (text) => {
    for (let i = 0; i < 100 && !got.includes(text); ++i) {
      await Promise.race([new Promise((resolve) => { wake = resolve; }), sleep(100)]);
    }
    assert.ok(got.includes(text), `waiting for "${text}", got ${JSON.stringify(got)}, errors ${errors}`);
  };
  await core.createNamespacedConfigMap({ namespace,
    body: { metadata: { name: 'before', labels: { informed: 'yes' } }, data: { v: '0' } } });
  await informer.start();
  await waitFor('add before 0');
  await core.createNamespacedConfigMap({ namespace,
    body: { metadata: { name: 'i1', labels: { informed: 'yes' } }, data: { v: '1' } } });
  await core.createNamespacedConfigMap({ namespace,
    body: { metadata: { name: 'ignored', labels: { informed: 'no' } }, data: { v: '1' } } });
  await waitFor('add i1 1');
  await core.patchNamespacedConfigMap({ name: 'i1', namespace, body: { data: { v: '2' } } }, mergePatch);
  await waitFor('update i1 2');
  assert.equal(informer.get('i1', namespace).data.v, '2');
  await core.deleteNamespacedConfigMap({ name: 'i1', namespace });
  await waitFor('delete i1 2');
  assert.equal(informer.get('i1', namespace), undefined);
  assert.deepEqual(informer.list(namespace).map((o) => o.metadata.name), ['before']);
  assert.deepEqual(got, ['add before 0', 'add i1 1', 'update i1 2', 'delete i1 2']);
  assert.deepEqual(errors, []);
  await informer.stop();  // (Its watch's abort reaches the error callbacks: client-node's way.)
});

let failures = 0;
for (const { name, fn } of checks) {
  const started = Date.now();
  try {
    await fn();
    console.log(`ok   ${name} (${Date.now() - started} ms)`);
  } catch (e) {
    failures += 1;
    console.log(`FAIL ${name}: ${e.code ? `HTTP ${e.code} ${e.body || ''}` : ''}${e.stack || e}`);
  }
}
console.log(`${checks.length} checks, ${failures} failed`);
process.exit(failures === 0 ? 0 : 1);

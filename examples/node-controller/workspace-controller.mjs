// A workspace controller written the way @kubernetes/client-node users write them, run as the
// reconciler of `wsim serve --scenario workspaces.textproto -- node workspace-controller.mjs`.
//
// For every Workspace (workspace.gitpod.io/v1) in NAMESPACE it keeps a namespace ws-<name> and
// one pod in it, both labelled workspace=<name>, and sets status.phase=Running; a finalizer lets
// it delete the namespace before the Workspace goes (the finalizer is removed once its informer
// has seen the namespace disappear). Three informers (Workspaces, namespaces and pods labelled
// workspace) feed one de-duplicating work queue with one worker; failures (409, 5xx, 504) are
// requeued after 5 ms.
//
// VARIANT=correct (default): the pod has a fixed name, so a second create answers AlreadyExists.
// VARIANT=racy: the PLANTED RACE — the pod is created with metadata.generateName, and whether
// one exists is read from the pod informer's cache. When the cache lags (the pod's ADDED event
// not yet delivered) a second reconcile — woken by the Workspace's own status update — creates
// a second pod for the same workspace (the reason the ReplicaSet controller keeps
// "expectations"). `always: at most 1 Pod per label workspace` catches it.
//
// Usage: WSIM_SERVER=http://127.0.0.1:PORT [VARIANT=correct|racy] [NAMESPACE=default] node ...
import * as k8s from '@kubernetes/client-node';

const server = process.env.WSIM_SERVER;
const variant = process.env.VARIANT || 'correct';
const namespace = process.env.NAMESPACE || 'default';
if (!server || !['correct', 'racy'].includes(variant)) {
  console.error('workspace-controller: set WSIM_SERVER=http://127.0.0.1:PORT, VARIANT=correct|racy');
  process.exit(2);
}
const group = 'workspace.gitpod.io';
const version = 'v1';
const plural = 'workspaces';
const finalizer = 'example.wsim/cleanup';
const requeueMs = 5;

const kc = new k8s.KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'wsim', server, skipTLSVerify: true }],
  users: [{ name: 'workspace-controller' }],
  contexts: [{ name: 'wsim', cluster: 'wsim', user: 'workspace-controller' }],
  currentContext: 'wsim',
});
const core = kc.makeApiClient(k8s.CoreV1Api);
const custom = kc.makeApiClient(k8s.CustomObjectsApi);

const workspaces = k8s.makeInformer(
  kc, `/apis/${group}/${version}/namespaces/${namespace}/${plural}`,
  () => custom.listNamespacedCustomObject({ group, version, namespace, plural }));
const namespaces = k8s.makeInformer(
  kc, '/api/v1/namespaces', () => core.listNamespace({ labelSelector: 'workspace' }), 'workspace');
const pods = k8s.makeInformer(
  kc, '/api/v1/pods', () => core.listPodForAllNamespaces({ labelSelector: 'workspace' }),
  'workspace');

// The work queue: a key is queued at most once; one worker.
const queue = [];
const queued = new Set();
let working = false;
function enqueue(name) {
  if (!name || queued.has(name)) return;
  queued.add(name);
  queue.push(name);
  setImmediate(work);
}

const status = (e) => e.code || e.statusCode || 0;
async function ignore(codes, promise) {
  try {
    return await promise;
  } catch (e) {
    if (!codes.includes(status(e))) throw e;
    return null;
  }
}

async function finalize(ws) {
  const nsName = `ws-${ws.metadata.name}`;
  const ns = namespaces.get(nsName);
  if (ns) {
    if (!ns.metadata.deletionTimestamp) await ignore([404], core.deleteNamespace({ name: nsName }));
    return;  // Its DELETED event requeues the workspace.
  }
  const body = { ...ws, metadata: { ...ws.metadata,
    finalizers: (ws.metadata.finalizers || []).filter((f) => f !== finalizer) } };
  await custom.replaceNamespacedCustomObject(
    { group, version, namespace, plural, name: ws.metadata.name, body });
  console.log(`${ws.metadata.name}: namespace gone, finalizer removed`);
}

async function ensurePod(ws, nsName) {
  const name = ws.metadata.name;
  const existing = pods.list(nsName).filter(
    (p) => p.metadata.labels?.workspace === name && !p.metadata.deletionTimestamp);
  if (existing.length > 0) return;
  const metadata = variant === 'racy'
    ? { generateName: 'workspace-', labels: { workspace: name } }
    : { name: 'workspace', labels: { workspace: name } };
  const body = { metadata, spec: { containers: [{ name: 'ide', image: ws.spec?.image || 'ide' }] } };
  const pod = await ignore([409], core.createNamespacedPod({ namespace: nsName, body }));
  if (pod) console.log(`${name}: created pod ${nsName}/${pod.metadata.name}`);
}

async function reconcile(name) {
  const ws = workspaces.get(name, namespace);
  if (!ws) return;
  if (ws.metadata.deletionTimestamp) {
    if ((ws.metadata.finalizers || []).includes(finalizer)) await finalize(ws);
    return;
  }
  if (!(ws.metadata.finalizers || []).includes(finalizer)) {
    const body = { ...ws, metadata: { ...ws.metadata,
      finalizers: [...(ws.metadata.finalizers || []), finalizer] } };
    await custom.replaceNamespacedCustomObject({ group, version, namespace, plural, name, body });
    return;  // Its MODIFIED event requeues the workspace.
  }
  const nsName = `ws-${name}`;
  const ns = namespaces.get(nsName);
  if (ns?.metadata.deletionTimestamp) return;  // Its DELETED event requeues the workspace.
  if (!ns) {
    await ignore([409], core.createNamespace(
      { body: { metadata: { name: nsName, labels: { workspace: name } } } }));
  }
  await ensurePod(ws, nsName);
  if (ws.status?.phase !== 'Running') {
    const body = { ...ws, status: { ...(ws.status || {}), phase: 'Running' } };
    await custom.replaceNamespacedCustomObjectStatus(
      { group, version, namespace, plural, name, body });
  }
}

async function work() {
  if (working) return;
  working = true;
  while (queue.length > 0) {
    const name = queue.shift();
    queued.delete(name);
    try {
      await reconcile(name);
    } catch (e) {
      console.log(`reconcile ${name}: ${status(e)} ${(e.body && e.body.reason) || e.message}; requeued`);
      setTimeout(() => enqueue(name), requeueMs);
    }
  }
  working = false;
}

const byLabel = (obj) => enqueue(obj.metadata.labels?.workspace);
for (const verb of ['add', 'update', 'delete']) {
  workspaces.on(verb, (obj) => enqueue(obj.metadata.name));
  namespaces.on(verb, byLabel);
  pods.on(verb, byLabel);
}
for (const informer of [workspaces, namespaces, pods]) {
  informer.on('error', (err) => {
    console.log(`informer error: ${err}; restarting`);
    setTimeout(() => informer.start(), requeueMs);
  });
}
await Promise.all([workspaces.start(), namespaces.start(), pods.start()]);
console.log(`workspace-controller (${variant}): watching Workspaces in ${namespace} on ${server}`);
process.on('SIGTERM', () => process.exit(0));

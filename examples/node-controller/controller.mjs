// A small reconciler written the way @kubernetes/client-node users write them: an informer on
// ConfigMaps labelled app=source feeds a de-duplicating work queue; each key is reconciled by
// making a "<name>-copy" ConfigMap with the same data, owned by the source (the garbage collector
// removes the copy when the source goes). Conflicts (409) are requeued.
//
// Usage: WSIM_SERVER=http://127.0.0.1:PORT [NAMESPACE=default] node controller.mjs
import * as k8s from '@kubernetes/client-node';

const server = process.env.WSIM_SERVER;
const namespace = process.env.NAMESPACE || 'default';
if (!server) {
  console.error('controller: set WSIM_SERVER=http://127.0.0.1:PORT');
  process.exit(2);
}

const kc = new k8s.KubeConfig();
kc.loadFromOptions({
  clusters: [{ name: 'wsim', server, skipTLSVerify: true }],
  users: [{ name: 'controller' }],
  contexts: [{ name: 'wsim', cluster: 'wsim', user: 'controller' }],
  currentContext: 'wsim',
});
const core = kc.makeApiClient(k8s.CoreV1Api);

const informer = k8s.makeInformer(
  kc, `/api/v1/namespaces/${namespace}/configmaps`,
  () => core.listNamespacedConfigMap({ namespace, labelSelector: 'app=source' }), 'app=source');

// The work queue: a key is queued at most once; one worker.
const queue = [];
const queued = new Set();
let working = false;
function enqueue(name) {
  if (queued.has(name)) return;
  queued.add(name);
  queue.push(name);
  setImmediate(work);
}

async function reconcile(name) {
  const source = informer.get(name, namespace);
  if (!source) return;  // Deleted: the garbage collector removes the copy.
  const copyName = `${name}-copy`;
  let copy = null;
  try {
    copy = await core.readNamespacedConfigMap({ name: copyName, namespace });
  } catch (e) {
    if (e.code !== 404) throw e;
  }
  const data = source.data || {};
  if (copy === null) {
    await core.createNamespacedConfigMap({
      namespace,
      body: {
        metadata: {
          name: copyName, namespace, labels: { app: 'copy' },
          ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name, uid: source.metadata.uid,
                              controller: true, blockOwnerDeletion: true }],
        },
        data,
      },
    });
    console.log(`reconciled ${name}: created ${copyName}`);
  } else if (JSON.stringify(copy.data || {}) !== JSON.stringify(data)) {
    copy.data = data;
    await core.replaceNamespacedConfigMap({ name: copyName, namespace, body: copy });
    console.log(`reconciled ${name}: updated ${copyName}`);
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
      console.log(`reconcile ${name}: ${e.code || ''} ${e.message || e}; requeued`);
      setTimeout(() => enqueue(name), 200);
    }
  }
  working = false;
}

for (const verb of ['add', 'update', 'delete']) {
  informer.on(verb, (obj) => enqueue(obj.metadata.name));
}
informer.on('error', (err) => {
  console.log(`informer error: ${err}; restarting`);
  setTimeout(() => informer.start(), 500);
});
await informer.start();
console.log(`controller: watching ConfigMaps app=source in ${namespace} on ${server}`);
process.on('SIGTERM', () => { informer.stop(); process.exit(0); });

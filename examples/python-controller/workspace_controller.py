#!/usr/bin/python3
"""A workspace controller written with the Kubernetes Python client (Debian python3-kubernetes).

Run as the reconciler of
    wsim serve --scenario workspaces.textproto -- /usr/bin/python3 workspace_controller.py
(wsim sets WSIM_SERVER to its front-end's URL).

For every Workspace (workspace.gitpod.io/v1) in NAMESPACE it keeps a namespace ws-<name> and one
pod in it, both labelled workspace=<name>, and sets status.phase=Running; a finalizer lets it
delete the namespace before the Workspace goes. A Workspace with spec.desired=stopped (the
start/stop workload of start-stop.textproto) has its pods deleted and status.phase=Stopped. The shape is the usual one for this client:
three informers (a thread each: list, then watch from the list's resourceVersion, relist on any
error or 410 Expired) keep caches and feed one work queue; WORKERS threads (default 2) take keys
from the queue and reconcile them. Reads come from the caches; before it creates a pod or drops
its finalizer a reconcile confirms what the cache says with a live read of the API server (the
cache may lag: a delayed watch event), so one reconcile at a time per key is safe.

VARIANT=correct (default): the work queue has client-go's semantics (a key is queued at most
once, and a key being reconciled is never handed to another worker: it is marked dirty and
queued again when its worker is done).
VARIANT=racy: the PLANTED RACE. The queue only de-duplicates keys that are waiting: a key added
again while a worker reconciles it (the namespace's ADDED event arrives while the pod is being
created) goes to the other worker, and two reconciles of one workspace run at once. Both see no
pod in the cache, both confirm it with a live list before either create lands, and both create
one (metadata.generateName): two pods for one workspace. `always: at most 1 Pod per label
workspace` catches it.

Failed reconciles are queued again at once, not after a back-off timer: the process's timers run
in wall time, which wsim's lockstep cannot replay (docs/external.md); every retry is a request,
so it costs virtual time.

Usage: WSIM_SERVER=http://127.0.0.1:PORT [WORKERS=2] [NAMESPACE=default]
       /usr/bin/python3 workspace_controller.py [correct|racy|nostop]
(the variant may also come from VARIANT in the environment; on the command line it is part of
the COMMAND a bundle records, so `wsim replay` and `wsim corpus add` see it)
VARIANT=nostop: correct, but deaf to spec.desired=stopped (a PLANTED BUG for the start/stop
world of start-stop.textproto: a stopped Workspace keeps its pod, external.S3 there).
"""

import collections
import json
import os
import sys
import threading

import kubernetes.client
import kubernetes.watch
from kubernetes.client.rest import ApiException

GROUP = "workspace.gitpod.io"
VERSION = "v1"
PLURAL = "workspaces"
FINALIZER = "example.wsim/cleanup"


def log(message):
    print(message, flush=True)


def body_of(response):
    """The JSON body of a call made with _preload_content=False, as a dict."""
    return json.loads(response.data)


class Informer:
    """A reflector and its cache: list, watch from the list's resourceVersion, relist on errors.

    `list_call(**kwargs)` is a list method of the client (it takes watch=True for watches);
    every change calls `handler(obj)` with the object as a dict, after the cache has it."""

    def __init__(self, name, list_call, handler, **kwargs):
        self.name = name
        self.list_call = list_call
        self.kwargs = kwargs
        self.handler = handler
        self.lock = threading.Lock()
        self.items = {}
        self.synced = threading.Event()

    @staticmethod
    def key(obj):
        meta = obj["metadata"]
        return (meta.get("namespace", ""), meta["name"])

    def get(self, namespace, name):
        with self.lock:
            return self.items.get((namespace, name))

    def list(self):
        with self.lock:
            return list(self.items.values())

    def _replace(self, objects):
        fresh = {self.key(obj): obj for obj in objects}
        with self.lock:
            gone = [obj for key, obj in self.items.items() if key not in fresh]
            self.items = fresh
        for obj in list(fresh.values()) + gone:
            self.handler(obj)

    def _apply(self, kind, obj):
        with self.lock:
            if kind == "DELETED":
                self.items.pop(self.key(obj), None)
            else:
                self.items[self.key(obj)] = obj
        self.handler(obj)

    def run(self):
        while True:
            try:
                listed = body_of(self.list_call(_preload_content=False, **self.kwargs))
                self._replace(listed.get("items") or [])
                self.synced.set()
                watch = kubernetes.watch.Watch()
                # No timeout_seconds: the client resumes a watch that ended once on its own; a
                # second 410 Expired raises, and the loop relists.
                for event in watch.stream(self.list_call,
                                          resource_version=listed["metadata"]["resourceVersion"],
                                          **self.kwargs):
                    if event["type"] in ("ADDED", "MODIFIED", "DELETED"):
                        self._apply(event["type"], event["raw_object"])
            except Exception as error:  # pylint: disable=broad-except
                log(f"informer {self.name}: {type(error).__name__} "
                    f"{getattr(error, 'status', '')}; relisting")


class WorkQueue:
    """Keys to reconcile. exclusive=True: client-go's workqueue (a key waiting is queued once; a
    key being processed is marked dirty and queued again by done()). exclusive=False: the planted
    race: only waiting keys are de-duplicated."""

    def __init__(self, exclusive):
        self.exclusive = exclusive
        self.cond = threading.Condition()
        self.queue = collections.deque()
        self.dirty = set()
        self.processing = set()

    def add(self, key):
        with self.cond:
            if key in self.dirty:
                return
            self.dirty.add(key)
            if self.exclusive and key in self.processing:
                return  # done() queues it again.
            self.queue.append(key)
            self.cond.notify()

    def get(self):
        with self.cond:
            while not self.queue:
                self.cond.wait()
            key = self.queue.popleft()
            self.dirty.discard(key)
            self.processing.add(key)
            return key

    def done(self, key):
        with self.cond:
            self.processing.discard(key)
            if self.exclusive and key in self.dirty:
                self.queue.append(key)
                self.cond.notify()


class Controller:
    def __init__(self, server, namespace, variant):
        configuration = kubernetes.client.Configuration()
        configuration.host = server
        client = kubernetes.client.ApiClient(configuration)
        self.core = kubernetes.client.CoreV1Api(client)
        self.custom = kubernetes.client.CustomObjectsApi(client)
        self.namespace = namespace
        self.queue = WorkQueue(exclusive=(variant != "racy"))
        self.stops = variant != "nostop"

        def by_label(obj):
            name = (obj["metadata"].get("labels") or {}).get("workspace")
            if name:
                self.queue.add(name)

        self.workspaces = Informer(
            "workspaces", self.custom.list_namespaced_custom_object,
            lambda obj: self.queue.add(obj["metadata"]["name"]),
            group=GROUP, version=VERSION, namespace=namespace, plural=PLURAL)
        self.namespaces = Informer("namespaces", self.core.list_namespace, by_label,
                                   label_selector="workspace")
        self.pods = Informer("pods", self.core.list_pod_for_all_namespaces, by_label,
                             label_selector="workspace")

    def replace_workspace(self, ws, status=False):
        call = (self.custom.replace_namespaced_custom_object_status if status
                else self.custom.replace_namespaced_custom_object)
        call(GROUP, VERSION, self.namespace, PLURAL, ws["metadata"]["name"], ws)

    def finalize(self, ws, ns_name):
        ns = self.namespaces.get("", ns_name)
        if ns is None:
            try:  # The cache may not have seen it yet: ask the API server.
                ns = body_of(self.core.read_namespace(ns_name, _preload_content=False))
            except ApiException as error:
                if error.status != 404:
                    raise
        if ns is not None:
            if not ns["metadata"].get("deletionTimestamp"):
                try:
                    self.core.delete_namespace(ns_name, _preload_content=False)
                except ApiException as error:
                    if error.status != 404:
                        raise
            return  # Its DELETED event queues the workspace again.
        ws = json.loads(json.dumps(ws))
        ws["metadata"]["finalizers"] = [
            f for f in ws["metadata"].get("finalizers") or [] if f != FINALIZER]
        self.replace_workspace(ws)
        log(f"{ws['metadata']['name']}: namespace gone, finalizer removed")

    def ensure_pod(self, ws, ns_name):
        name = ws["metadata"]["name"]

        def live(pods):
            return [p for p in pods if not p["metadata"].get("deletionTimestamp")]

        cached = [p for p in self.pods.list()
                  if p["metadata"].get("namespace") == ns_name
                  and (p["metadata"].get("labels") or {}).get("workspace") == name]
        if live(cached):
            return
        # The cache may lag behind a create of ours: ask the API server before creating.
        listed = body_of(self.core.list_namespaced_pod(
            ns_name, label_selector=f"workspace={name}", _preload_content=False))
        if live(listed.get("items") or []):
            return
        image = (ws.get("spec") or {}).get("image") or "ide"
        pod = {"metadata": {"generateName": "workspace-", "labels": {"workspace": name}},
               "spec": {"containers": [{"name": "ide", "image": image}]}}
        created = body_of(self.core.create_namespaced_pod(ns_name, pod, _preload_content=False))
        log(f"{name}: created pod {ns_name}/{created['metadata']['name']}")

    def stop_pods(self, ws, ns_name):
        name = ws["metadata"]["name"]
        listed = body_of(self.core.list_namespaced_pod(
            ns_name, label_selector=f"workspace={name}", _preload_content=False))
        for pod in listed.get("items") or []:
            if pod["metadata"].get("deletionTimestamp"):
                continue
            try:
                self.core.delete_namespaced_pod(pod["metadata"]["name"], ns_name,
                                                _preload_content=False)
                log(f"{name}: stopped, deleted pod {ns_name}/{pod['metadata']['name']}")
            except ApiException as error:
                if error.status != 404:
                    raise

    def reconcile(self, name):
        ws = self.workspaces.get(self.namespace, name)
        if ws is None:
            return
        meta = ws["metadata"]
        finalizers = meta.get("finalizers") or []
        ns_name = f"ws-{name}"
        if meta.get("deletionTimestamp"):
            if FINALIZER in finalizers:
                self.finalize(ws, ns_name)
            return
        if FINALIZER not in finalizers:
            ws = json.loads(json.dumps(ws))
            ws["metadata"]["finalizers"] = finalizers + [FINALIZER]
            self.replace_workspace(ws)
            return  # Its MODIFIED event queues the workspace again.
        ns = self.namespaces.get("", ns_name)
        if ns is not None and ns["metadata"].get("deletionTimestamp"):
            return  # Its DELETED event queues the workspace again.
        if ns is None:
            try:
                self.core.create_namespace(
                    {"metadata": {"name": ns_name, "labels": {"workspace": name}}},
                    _preload_content=False)
            except ApiException as error:
                if error.status != 409:
                    raise
        phase = "Running"
        if self.stops and (ws.get("spec") or {}).get("desired") == "stopped":
            self.stop_pods(ws, ns_name)
            phase = "Stopped"
        else:
            self.ensure_pod(ws, ns_name)
        if (ws.get("status") or {}).get("phase") != phase:
            ws = json.loads(json.dumps(ws))
            ws["status"] = dict(ws.get("status") or {}, phase=phase)
            self.replace_workspace(ws, status=True)

    def worker(self):
        while True:
            key = self.queue.get()
            try:
                self.reconcile(key)
            except ApiException as error:
                log(f"reconcile {key}: {error.status} {error.reason}; requeued")
                self.queue.add(key)
            except Exception as error:  # pylint: disable=broad-except
                log(f"reconcile {key}: {type(error).__name__} {error}; requeued")
                self.queue.add(key)
            finally:
                self.queue.done(key)

    def run(self, workers):
        informers = [self.workspaces, self.namespaces, self.pods]
        threads = [threading.Thread(target=i.run, name=i.name, daemon=True) for i in informers]
        for thread in threads:
            thread.start()
        for informer in informers:
            informer.synced.wait()
        for index in range(workers):
            thread = threading.Thread(target=self.worker, name=f"worker-{index}", daemon=True)
            thread.start()
            threads.append(thread)
        for thread in threads:
            thread.join()


def main():
    server = os.environ.get("WSIM_SERVER")
    variant = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("VARIANT", "correct")
    namespace = os.environ.get("NAMESPACE", "default")
    workers = int(os.environ.get("WORKERS", "2"))
    if not server or variant not in ("correct", "racy", "nostop") or workers < 1:
        print("workspace_controller.py: set WSIM_SERVER=http://127.0.0.1:PORT, WORKERS>=1; "
              "usage: workspace_controller.py [correct|racy|nostop]", file=sys.stderr)
        return 2
    log(f"workspace_controller.py ({variant}, {workers} workers): Workspaces in {namespace} "
        f"on {server}")
    Controller(server, namespace, variant).run(workers)
    return 0


if __name__ == "__main__":
    sys.exit(main())

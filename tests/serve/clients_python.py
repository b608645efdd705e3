#!/usr/bin/python3
"""The Python client (Debian's python3-kubernetes) against `wsim serve` (issue #32 item 4).

Run by tests/serve/clients.sh: clients_python.py PORT. Every check asserts; prints "ok   NAME"
per check and "N python checks" at the end; exits 1 on the first failure (with the reason).
"""
import sys
import threading
import time

from kubernetes import client, watch
from kubernetes.client.rest import ApiException

NS = "pyclient"  # Its own namespace: clients.sh runs kubectl in "default" meanwhile.
checks = 0


def check(name, condition, detail=""):
    global checks
    checks += 1
    if not condition:
        print("FAIL python %s: %s" % (name, detail))
        sys.exit(1)
    print("ok   python %s" % name)


def api_error(call, *args, **kwargs):
    """The ApiException `call` raises (None when it succeeds)."""
    try:
        call(*args, **kwargs)
    except ApiException as e:
        return e
    return None


def stream(func, *args, **kwargs):
    """The events of a watch (Watch.stream, which ends at timeout_seconds) and its wall time."""
    start = time.monotonic()
    events = [(e["type"], e["raw_object"]) for e in watch.Watch().stream(func, *args, **kwargs)]
    return events, time.monotonic() - start


def main(port):
    api = client.ApiClient(client.Configuration(host="http://127.0.0.1:%s" % port))
    v1 = client.CoreV1Api(api)
    apps = client.AppsV1Api(api)

    v1.create_namespace({"metadata": {"name": NS}})
    info = client.VersionApi(api).get_code()
    check("VersionApi", info.git_version.startswith("v1.32") and info.major == "1"
          and info.minor == "32", info)

    # create / read / patch (strategic for a dict, JSON patch for a list) / delete.
    lst = v1.list_namespaced_config_map(NS)
    rv0 = lst.metadata.resource_version
    made = v1.create_namespaced_config_map(
        NS, {"metadata": {"name": "py", "labels": {"app": "py"}}, "data": {"x": "1"}})
    check("create", made.metadata.name == "py" and made.data == {"x": "1"}, made)
    e = api_error(v1.create_namespaced_config_map, NS, {"metadata": {"name": "py"}})
    check("create twice is 409 AlreadyExists", e is not None and e.status == 409
          and '"AlreadyExists"' in e.body, e)
    p = v1.patch_namespaced_config_map("py", NS, {"data": {"y": "2"}})
    check("patch (strategic merge)", p.data == {"x": "1", "y": "2"}, p.data)
    p = v1.patch_namespaced_config_map("py", NS, [{"op": "replace", "path": "/data/x",
                                                   "value": "3"}])
    check("patch (JSON patch)", p.data == {"x": "3", "y": "2"}, p.data)
    e = api_error(v1.patch_namespaced_config_map, "py", NS,
                  [{"op": "test", "path": "/data/x", "value": "wrong"}])
    check("a failing JSON patch test is 422", e is not None and e.status == 422, e)
    d = apps.create_namespaced_deployment(NS, {
        "metadata": {"name": "pyweb"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "pyweb"}},
                 "template": {"metadata": {"labels": {"app": "pyweb"}}, "spec": {
                     "hostNetwork": False,
                     "containers": [{"name": "c", "image": "nginx:1",
                                     "ports": [{"containerPort": 80}],
                                     "env": [{"name": "A", "value": "1"}]}]}}}})
    check("create Deployment (typed fields back)", d.spec.replicas == 1
          and d.spec.template.spec.host_network is False, d.spec)
    d = apps.patch_namespaced_deployment("pyweb", NS, {"spec": {"template": {"spec": {
        "containers": [{"name": "c", "image": "nginx:2"}]}}}})
    c = d.spec.template.spec.containers
    check("patch Deployment: containers merged by name", len(c) == 1 and c[0].image == "nginx:2"
          and c[0].ports[0].container_port == 80 and c[0].env[0].name == "A", c)
    st = v1.delete_namespaced_config_map("py", NS)
    check("delete answers a Success Status", st.status == "Success"
          and st.details.name == "py", st)
    e = api_error(v1.read_namespaced_config_map, "py", NS)
    check("read after delete is 404", e is not None and e.status == 404, e)

    # list with resource_version (and resourceVersionMatch), and its timeout.
    now = v1.list_namespaced_config_map(NS, resource_version="0", timeout_seconds=5)
    check("list resource_version=0", int(now.metadata.resource_version) > int(rv0), now.metadata)
    e = api_error(v1.list_namespaced_config_map, NS, resource_version=rv0,
                  resource_version_match="Exact")
    check("list at an older resource_version with Exact is 410", e is not None
          and e.status == 410, e)

    # A watch from the first list's resource_version replays the changes since, in order,
    # and ends at timeout_seconds (the client does not re-list or re-watch).
    events, took = stream(v1.list_namespaced_config_map, NS, resource_version=rv0,
                          timeout_seconds=2)
    seen = [(t, o["metadata"]["name"]) for t, o in events if o["metadata"]["name"] == "py"]
    check("watch from resource_version sees ADDED, MODIFIED, DELETED",
          seen == [("ADDED", "py"), ("MODIFIED", "py"), ("MODIFIED", "py"), ("DELETED", "py")],
          seen)
    rvs = [int(o["metadata"]["resourceVersion"]) for _, o in events]
    check("watch resourceVersions increase", rvs == sorted(rvs) and len(rvs) == len(set(rvs)),
          rvs)
    print("     watch of timeout_seconds=2 ended after %.2f s" % took)
    check("watch ends at its timeout", took < 20, took)

    check("no BOOKMARK without allow_watch_bookmarks",
          all(t != "BOOKMARK" for t, _ in events), events)

    # A change made while the watch is open is delivered; with allow_watch_bookmarks a BOOKMARK
    # comes before the watch's deadline.
    rv1 = v1.list_namespaced_config_map(NS).metadata.resource_version
    timer = threading.Timer(0.5, lambda: v1.create_namespaced_config_map(
        NS, {"metadata": {"name": "live"}, "data": {"a": "b"}}))
    timer.start()
    events, _ = stream(v1.list_namespaced_config_map, NS, resource_version=rv1,
                       timeout_seconds=3, allow_watch_bookmarks=True)
    timer.join()
    changes = [(t, o["metadata"]["name"]) for t, o in events if t != "BOOKMARK"]
    check("watch gets a change made while it is open", changes == [("ADDED", "live")], events)
    marks = [o for t, o in events if t == "BOOKMARK"]
    check("allow_watch_bookmarks gives a BOOKMARK", len(marks) >= 1
          and int(marks[-1]["metadata"]["resourceVersion"]) >= int(rv1)
          and marks[-1]["kind"] == "ConfigMap", events)

    # 410 Gone: a watch from a resourceVersion older than the server's history.
    try:
        stream(v1.list_namespaced_config_map, NS, resource_version="1", timeout_seconds=2)
        e = None
    except ApiException as raised:
        e = raised
    check("watch from a too-old resource_version raises 410", e is not None and e.status == 410
          and "too old resource version" in str(e.reason), e)
    # Without timeout_seconds the client retries once after a 410, then raises.
    try:
        stream(v1.list_namespaced_config_map, NS, resource_version="1")
        e = None
    except ApiException as raised:
        e = raised
    check("watch without timeout: 410 after its one retry", e is not None and e.status == 410, e)

    # delete_collection: by label selector, then the rest.
    for name, app in (("k1", "a"), ("k2", "a"), ("k3", "b")):
        v1.create_namespaced_config_map(NS, {"metadata": {"name": name, "labels": {"app": app}}})
    v1.delete_collection_namespaced_config_map(NS, label_selector="app=a")
    names = sorted(i.metadata.name for i in v1.list_namespaced_config_map(NS).items)
    check("delete_collection with a label selector", "k3" in names and "k1" not in names
          and "k2" not in names, names)
    v1.delete_collection_namespaced_config_map(NS)
    left = v1.list_namespaced_config_map(NS).items
    check("delete_collection of the rest", left == [], [i.metadata.name for i in left])
    print("%d python checks" % checks)


if __name__ == "__main__":
    main(sys.argv[1])

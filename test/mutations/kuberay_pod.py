"""The Pod KubeRay v1.7.0 creates from a RayCluster's head or worker template, for the differential test of the core/v1
Pod rules: kube-apiserver validates a Pod when it is created, so a dry run of that Pod is an oracle for the rules that
`validate` applies to the template (run_corpus.py --server, mutations that carry Mutation.pod).

What KubeRay adds (ray-operator/controllers/ray/common/pod.go and utils/util.go at v1.7.0, default operator flags,
no feature gates on): the generateName from utils.PodName; the labels of labelPod merged over the template's and
the group's labels; for a worker the "wait-gcs-ready" init container, a copy of the Ray container's image, pull
policy, security context, env and volume mounts; the Ray container's command and args running `ray start` with the
parameters setMissingRayStartParams completes; the env vars of setContainerEnvVars and of the init containers; a
"metrics" port when the Ray container has none of that name; the /dev/shm emptyDir (sized to the container's memory)
unless rayStartParams set plasma-directory; liveness and readiness probes when the template has none; the
autoscaler sidecar and its shared log volume on a head with in-tree autoscaling. Only this shape matters here, not
the exact strings.
"""
import copy

DEFAULT_METRICS_PORT = 8080
DEFAULT_AGENT_PORT = 52365
DEFAULT_GCS_PORT = 6379


def _lower_prefix(prefix, kind):
    return (prefix[:50] + "-" + kind + "-").lower()


def _check_label(s):
    if len(s) > 63:
        s = s[len(s) - 63:]
    if s and not s[0].isalnum():
        s = "r" + s[1:]
    return s


def _label_pod(node, cluster, group, override):
    labels = {
        "ray.io/is-ray-node": "yes",
        "ray.io/cluster": cluster,
        "ray.io/node-type": node,
        "ray.io/group": group,
        "ray.io/identifier": _check_label("%s-%s" % (cluster, node)),
        "app.kubernetes.io/name": "kuberay",
        "app.kubernetes.io/created-by": "kuberay-operator",
    }
    for k, v in (override or {}).items():
        if k in ("ray.io/node-type", "ray.io/group", "ray.io/cluster"):
            continue
        labels[k] = v
    return labels


def _env_exists(env, name):
    return any(isinstance(e, dict) and e.get("name") == name for e in env or [])


def _memory(container):
    res = container.get("resources") or {}
    for k in ("limits", "requests"):
        m = (res.get(k) or {}).get("memory")
        if m is not None:
            return m
    return None


def build_pod(cluster_obj, node, group_index=0, namespace="default"):
    """The Pod (a dict) KubeRay builds for `node` ("head" or "worker", worker group `group_index`) of a RayCluster
    object, or None when the object has no such template."""
    spec = cluster_obj.get("spec") or {}
    name = (cluster_obj.get("metadata") or {}).get("name") or "cluster"
    head_group = spec.get("headGroupSpec") or {}
    if node == "head":
        group = head_group
        group_name = "headgroup"
    else:
        groups = spec.get("workerGroupSpecs") or []
        if group_index >= len(groups):
            return None
        group = groups[group_index]
        group_name = group.get("groupName") or ""
    tmpl = copy.deepcopy(group.get("template") or {})
    pspec = tmpl.get("spec")
    if not isinstance(pspec, dict) or not pspec.get("containers"):
        return None
    meta = tmpl.get("metadata") if isinstance(tmpl.get("metadata"), dict) else {}
    params = dict(group.get("rayStartParams") or {})
    head_params = head_group.get("rayStartParams") or {}
    head_port = str(head_params.get("port", DEFAULT_GCS_PORT))
    fqdn = "%s-head-svc.%s.svc.cluster.local" % (name, namespace)
    autoscaling = spec.get("enableInTreeAutoscaling") is True
    opts = spec.get("autoscalerOptions") or {}
    v2 = autoscaling and opts.get("version") == "v2"

    pod_meta = {"namespace": namespace}
    if node == "head" and meta.get("name"):
        pod_meta["name"] = meta["name"]
    pod_meta["generateName"] = _lower_prefix(name if node == "head" else "%s-%s" % (name, group_name),
                                             "head" if node == "head" else "worker")
    merged = dict(meta.get("labels") or {})
    merged.update(group.get("labels") or {})
    pod_meta["labels"] = _label_pod(node, name, group_name, merged)
    ann = dict(meta.get("annotations") or {})
    if node == "head":
        ann["ray.io/ft-enabled"] = "false"
    pod_meta["annotations"] = ann
    if meta.get("finalizers"):
        pod_meta["finalizers"] = meta["finalizers"]

    c0 = pspec["containers"][0]
    if node == "worker":
        params.setdefault("address", "%s:%s" % (fqdn, head_port))
        init = {"name": "wait-gcs-ready", "image": c0.get("image"), "command": ["/bin/bash", "-c", "--"],
                "args": ["until ray health-check --address %s:%s; do sleep 5; done" % (fqdn, head_port)],
                "resources": {"limits": {"cpu": "200m", "memory": "256Mi"},
                              "requests": {"cpu": "200m", "memory": "256Mi"}}}
        for k in ("imagePullPolicy", "securityContext"):
            if k in c0:
                init[k] = copy.deepcopy(c0[k])
        if c0.get("env") is not None:
            init["env"] = copy.deepcopy(c0.get("env"))
        if c0.get("volumeMounts") is not None:
            init["volumeMounts"] = copy.deepcopy(c0.get("volumeMounts"))
        pspec.setdefault("initContainers", [])
        if isinstance(pspec["initContainers"], list):
            pspec["initContainers"].append(init)
    else:
        params.setdefault("dashboard-host", "0.0.0.0")
        if autoscaling:
            params["no-monitor"] = "true"
            # utils.CheckName(utils.GetHeadGroupServiceAccountName): the template's name, else the cluster's.
            sa = pspec.get("serviceAccountName") or name
            sa = sa[len(sa) - 50:] if len(sa) > 50 else sa
            if sa and (sa[0].isdigit() or not sa[0].isalnum()):
                sa = "r" + sa[1:]
            pspec["serviceAccountName"] = sa
            scaler = {"name": "autoscaler", "image": opts.get("image") or c0.get("image"),
                      "imagePullPolicy": opts.get("imagePullPolicy") or "IfNotPresent",
                      "command": ["/bin/bash", "-c", "--"], "args": ["ray kuberay-autoscaler"],
                      "env": [{"name": "RAY_CLUSTER_NAME",
                               "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ray.io/cluster']"}}},
                              {"name": "RAY_CLUSTER_NAMESPACE",
                               "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
                              {"name": "KUBERAY_CRD_VER", "value": "v1"}] + list(opts.get("env") or []),
                      "resources": opts.get("resources") or {"limits": {"cpu": "500m", "memory": "512Mi"},
                                                             "requests": {"cpu": "500m", "memory": "512Mi"}}}
            for k in ("envFrom", "volumeMounts", "securityContext", "command", "args"):
                if opts.get(k):
                    scaler[k] = copy.deepcopy(opts[k])
            pspec["containers"].append(scaler)
            env = c0.setdefault("env", [])
            env.append({"name": "RAY_enable_autoscaler_v2", "value": "true" if v2 else "false"})
    if v2:
        pspec["restartPolicy"] = "Never"
    params.setdefault("metrics-export-port", str(DEFAULT_METRICS_PORT))
    params["block"] = "true"
    params.setdefault("dashboard-agent-listen-port", str(DEFAULT_AGENT_PORT))
    if not any(isinstance(p, dict) and p.get("name") == "metrics" for p in c0.get("ports") or []):
        c0.setdefault("ports", []).append({"name": "metrics", "containerPort": DEFAULT_METRICS_PORT})

    # BuildPod: /dev/shm, the ray start command, env vars, probes.
    volumes = pspec.setdefault("volumes", []) if isinstance(pspec.get("volumes", []), list) else []

    def add_empty_dir(container, vol_name, mount_path, medium):
        if any(isinstance(m, dict) and m.get("mountPath") == mount_path for m in container.get("volumeMounts") or []):
            return
        if not any(isinstance(v, dict) and v.get("name") == vol_name for v in volumes):
            ed = {"medium": medium} if medium else {}
            if medium == "Memory" and _memory(container) is not None:
                ed["sizeLimit"] = _memory(container)
            volumes.append({"name": vol_name, "emptyDir": ed})
        container.setdefault("volumeMounts", []).append({"name": vol_name, "mountPath": mount_path})

    if "plasma-directory" not in params:
        add_empty_dir(c0, "shared-mem", "/dev/shm", "Memory")
    if node == "head" and autoscaling:
        add_empty_dir(c0, "ray-logs", "/tmp/ray", "")
        add_empty_dir(pspec["containers"][-1], "ray-logs", "/tmp/ray", "")
    cmd = " ".join((c0.get("command") or []) + (c0.get("args") or []))
    start = "ray start %s%s" % ("--head " if node == "head" else "",
                                " ".join("--%s=%s" % (k, v) for k, v in sorted(params.items())))
    if ann.get("ray.io/overwrite-container-cmd", "").lower() != "true" and "ray start" not in cmd:
        c0["command"] = ["/bin/bash", "-c", "--"]
        c0["args"] = [("%s && " % cmd if cmd else "") + "ulimit -n 65536; " + start]
    for ic in pspec.get("initContainers") or []:
        if isinstance(ic, dict):
            ic.setdefault("env", [])
            if isinstance(ic["env"], list):
                ic["env"] += [{"name": "FQ_RAY_IP", "value": fqdn}, {"name": "RAY_IP", "value": fqdn.split(".")[0]}]
    env = c0.setdefault("env", [])
    if isinstance(env, list):
        if node == "worker":
            env += [{"name": "FQ_RAY_IP", "value": fqdn}, {"name": "RAY_IP", "value": fqdn.split(".")[0]}]
        env += [{"name": "RAY_CLUSTER_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ray.io/cluster']"}}},
                {"name": "RAY_CLUSTER_NAMESPACE", "valueFrom": {"fieldRef": {"fieldPath": "metadata.namespace"}}},
                {"name": "RAY_CLOUD_INSTANCE_ID", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                {"name": "RAY_NODE_TYPE_NAME", "valueFrom": {"fieldRef": {"fieldPath": "metadata.labels['ray.io/group']"}}},
                {"name": "KUBERAY_GEN_RAY_START_CMD", "value": start}]
        if not _env_exists(env, "RAY_PORT"):
            env.append({"name": "RAY_PORT", "value": head_port})
        if not _env_exists(env, "RAY_ADDRESS"):
            env.append({"name": "RAY_ADDRESS",
                        "value": "%s:%s" % ("127.0.0.1" if node == "head" else fqdn, head_port)})
        if not _env_exists(env, "RAY_USAGE_STATS_KUBERAY_IN_USE"):
            env.append({"name": "RAY_USAGE_STATS_KUBERAY_IN_USE", "value": "1"})
        if node == "head":
            env.append({"name": "RAY_USAGE_STATS_EXTRA_TAGS", "value": "kuberay_version=v1.7.0;kuberay_crd=RayCluster"})
        if not _env_exists(env, "RAY_DASHBOARD_ENABLE_K8S_DISK_USAGE"):
            env.append({"name": "RAY_DASHBOARD_ENABLE_K8S_DISK_USAGE", "value": "1"})
    probe_cmd = {"exec": {"command": ["bash", "-c", "wget -T 2 -q -O- http://localhost:%d/api/local_raylet_healthz"
                                      % DEFAULT_AGENT_PORT]}}
    if "livenessProbe" not in c0:
        c0["livenessProbe"] = dict(probe_cmd, initialDelaySeconds=30, timeoutSeconds=5 if node == "head" else 1,
                                   periodSeconds=5, successThreshold=1, failureThreshold=120)
    if "readinessProbe" not in c0:
        c0["readinessProbe"] = dict(probe_cmd, initialDelaySeconds=10, timeoutSeconds=5 if node == "head" else 1,
                                    periodSeconds=5, successThreshold=1, failureThreshold=10)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": pod_meta, "spec": pspec}


def pod_path_to_template(path, tmpl_path):
    """A field path of the apiserver's answer about the Pod ("spec.containers[0].image") as a path of the template
    ("spec.headGroupSpec.template.spec.containers[0].image"); metadata paths too."""
    if path.startswith("spec.") or path.startswith("metadata."):
        return tmpl_path + "." + path
    return tmpl_path

#!/usr/bin/env python3
"""Checks the opt-in objects of a deployment (kustomize build or Helm render) against the operator's Deployment and
metrics Service in the same output, and against deploy/monitoring/.

  opt_in_objects.py FILE --expect KIND=N... [--pdb-api-version V] [--job J] [--extra-ingress-port P]...
                    [--metrics-from-namespace NS] [--dashboard JSON] [--alerts YAML]

Prints one line per check, "ok ..." or "FAIL ...", and exits 0 (the caller counts the lines); exits 2 on bad input.
  --expect KIND=N    the output holds N objects of KIND (PodDisruptionBudget, NetworkPolicy, PrometheusRule, and
                     ConfigMap for the dashboard's ConfigMap); 0 checks that an opt-in object is absent.
  PodDisruptionBudget  its apiVersion (--pdb-api-version); its selector picks the Deployment's pods and no other
                     Deployment's; exactly one of minAvailable and maxUnavailable; a drain can go on: with the
                     Deployment's replicas, at least one pod may be evicted and at least one stays.
  NetworkPolicy      it selects the Deployment's pods; types Ingress and Egress; ingress opens exactly the container's
                     metrics and webhook-server ports (when declared), its health port and the --extra-ingress-port
                     ports, every rule naming its ports; with --metrics-from-namespace, only the metrics rule has
                     that namespace as its source; egress opens TCP 443 and 6443 and UDP and TCP 53, every rule naming its ports.
  ConfigMap          (the one labelled grafana_dashboard) one .json key whose JSON is --dashboard's, under 128 KiB
                     (so that `kubectl apply` can keep it in its last-applied annotation).
  PrometheusRule     apiVersion monitoring.coreos.com/v1; spec is --alerts' with job="..." set to --job, or else to
                     the name of the output's metrics Service (the job a ServiceMonitor gives), in that Service's
                     namespace.
"""
import argparse
import json
import re
import sys

import yaml

KUSTOMIZE_JOB = 'job="codeflare-operator-controller-manager-metrics-service"'


def out(ok, msg):
    print(("ok " if ok else "FAIL ") + msg)


def name_of(d):
    return (d.get("metadata") or {}).get("name")


def picks(selector, labels):
    match = (selector or {}).get("matchLabels") or {}
    return bool(match) and all(labels.get(k) == v for k, v in match.items()) and not selector.get("matchExpressions")


def pod_labels(dep):
    return ((dep["spec"]["template"].get("metadata") or {}).get("labels")) or {}


def container_ports(dep):
    ports = {}
    for c in dep["spec"]["template"]["spec"]["containers"]:
        for p in c.get("ports") or []:
            ports[p.get("name")] = p.get("containerPort")
    return ports


def rule_ports(rules):
    """{(protocol, port)} of the rules, and whether a rule leaves its ports out (which allows every port)."""
    found, open_rule = set(), False
    for r in rules or []:
        if not r.get("ports"):
            open_rule = True
        for p in r.get("ports") or []:
            found.add((p.get("protocol", "TCP"), p.get("port")))
    return found, open_rule


def check_pdb(pdb, deps, dep, want_api):
    what = f"PodDisruptionBudget {name_of(pdb)}"
    out(pdb.get("apiVersion") == want_api, f"{what}: apiVersion {pdb.get('apiVersion')}, want {want_api}")
    sel = pdb["spec"].get("selector")
    others = [name_of(d) for d in deps if d is not dep and picks(sel, pod_labels(d))]
    out(picks(sel, pod_labels(dep)) and not others,
        f"{what}: selector {sel} picks the pods of Deployment {name_of(dep)} (and of no other: {others})")
    spec = pdb["spec"]
    has_min, has_max = "minAvailable" in spec, "maxUnavailable" in spec
    out(has_min != has_max, f"{what}: exactly one of minAvailable and maxUnavailable ({spec})")
    replicas = dep["spec"].get("replicas", 1)

    def count(v):
        if isinstance(v, str) and v.endswith("%"):
            return int(v[:-1]) * replicas / 100
        return int(v)
    may_evict = replicas - count(spec["minAvailable"]) if has_min else count(spec.get("maxUnavailable", 0))
    stays = count(spec["minAvailable"]) if has_min else replicas - count(spec.get("maxUnavailable", 0))
    out(replicas >= 2 and may_evict >= 1 and stays >= 1,
        f"{what}: with {replicas} replicas a drain may evict {may_evict:g} pod(s) and keeps {stays:g}")


def check_network_policy(np, dep, extra_ports, metrics_ns):
    what = f"NetworkPolicy {name_of(np)}"
    spec = np["spec"]
    out(picks(spec.get("podSelector"), pod_labels(dep)),
        f"{what}: podSelector {spec.get('podSelector')} picks the pods of Deployment {name_of(dep)}")
    out(sorted(spec.get("policyTypes") or []) == ["Egress", "Ingress"], f"{what}: policyTypes {spec.get('policyTypes')}")
    ports = container_ports(dep)
    want_in = {("TCP", ports["health"])} | {("TCP", p) for p in extra_ports}
    for named in ("metrics", "webhook-server"):
        if named in ports:
            want_in.add(("TCP", ports[named]))
    got_in, open_in = rule_ports(spec.get("ingress"))
    out(got_in == want_in and not open_in,
        f"{what}: ingress opens {sorted(got_in)}, want exactly {sorted(want_in)} (the container's metrics, health and "
        f"webhook ports {ports}, and {sorted(extra_ports)}), every rule naming its ports")
    if metrics_ns:
        sources = []
        for r in spec.get("ingress") or []:
            nss = [(f.get("namespaceSelector") or {}).get("matchLabels", {}).get("kubernetes.io/metadata.name")
                   for f in r.get("from") or []]
            sources.append(([p.get("port") for p in r.get("ports") or []], nss))
        out(sources and all((nss == [metrics_ns]) == (ports.get("metrics") in rp) for rp, nss in sources),
            f"{what}: only the metrics port is limited to namespace {metrics_ns}: {sources}")
    want_out = {("TCP", 443), ("TCP", 6443), ("UDP", 53), ("TCP", 53)}
    got_out, open_out = rule_ports(spec.get("egress"))
    out(want_out <= got_out and not open_out,
        f"{what}: egress opens {sorted(got_out)}, including {sorted(want_out)}, every rule naming its ports")


def check_dashboard(cm, dashboard):
    what = f"ConfigMap {name_of(cm)}"
    data = cm.get("data") or {}
    keys = [k for k in data if k.endswith(".json")]
    out(len(keys) == 1 and len(data) == 1, f"{what}: one .json key ({sorted(data)})")
    if len(keys) == 1:
        size = len(data[keys[0]].encode())
        out(json.loads(data[keys[0]]) == dashboard and size < 128 * 1024,
            f"{what}: {keys[0]} is deploy/monitoring's dashboard ({size} bytes, under 128 KiB)")


def check_rule(rule, docs, alerts_text, job):
    what = f"PrometheusRule {name_of(rule)}"
    out(rule.get("apiVersion") == "monitoring.coreos.com/v1", f"{what}: apiVersion {rule.get('apiVersion')}")
    services = [d for d in docs if d.get("kind") == "Service"
                and any(p.get("name") == "metrics" for p in d["spec"].get("ports") or [])]
    if job is None:
        if len(services) != 1:
            out(False, f"{what}: {len(services)} metrics Services to take the job from, want 1")
            return
        job = name_of(services[0])
        ns = services[0]["metadata"].get("namespace")
        out(rule["metadata"].get("namespace") == ns, f"{what}: in namespace {rule['metadata'].get('namespace')}, "
                                                     f"with the metrics Service ({ns})")
    want = yaml.safe_load(alerts_text.replace(KUSTOMIZE_JOB, f'job="{job}"'))
    out(rule.get("spec") == want, f"{what}: spec is deploy/monitoring's alerts with job=\"{job}\"")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--expect", action="append", default=[])
    p.add_argument("--pdb-api-version", default="policy/v1")
    p.add_argument("--job")
    p.add_argument("--extra-ingress-port", type=int, action="append", default=[])
    p.add_argument("--metrics-from-namespace")
    p.add_argument("--dashboard", default="deploy/monitoring/codeflare-operator-dashboard.json")
    p.add_argument("--alerts", default="deploy/monitoring/codeflare-operator-alerts.yaml")
    opts = p.parse_args()
    with open(opts.file, encoding="utf-8") as f:
        docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
    deps = [d for d in docs if d.get("kind") == "Deployment"]
    if len(deps) != 1:
        out(False, f"{len(deps)} Deployments in {opts.file}, want 1")
        return
    dep = deps[0]
    found = {
        "PodDisruptionBudget": [d for d in docs if d.get("kind") == "PodDisruptionBudget"],
        "NetworkPolicy": [d for d in docs if d.get("kind") == "NetworkPolicy"],
        "PrometheusRule": [d for d in docs if d.get("kind") == "PrometheusRule"],
        "ConfigMap": [d for d in docs if d.get("kind") == "ConfigMap"
                      and "grafana_dashboard" in ((d.get("metadata") or {}).get("labels") or {})],
    }
    for e in opts.expect:
        kind, _, n = e.partition("=")
        out(len(found[kind]) == int(n), f"{len(found[kind])} {kind}(s), want {n}")
    with open(opts.dashboard, encoding="utf-8") as f:
        dashboard = json.load(f)
    with open(opts.alerts, encoding="utf-8") as f:
        alerts_text = f.read()
    for pdb in found["PodDisruptionBudget"]:
        check_pdb(pdb, deps, dep, opts.pdb_api_version)
    for np in found["NetworkPolicy"]:
        check_network_policy(np, dep, opts.extra_ingress_port, opts.metrics_from_namespace)
    for cm in found["ConfigMap"]:
        check_dashboard(cm, dashboard)
    for rule in found["PrometheusRule"]:
        check_rule(rule, docs, alerts_text, opts.job)


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError, yaml.YAMLError) as e:
        print(f"opt_in_objects.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)

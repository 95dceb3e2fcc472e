#!/usr/bin/env python3
"""Checks on the Helm chart's rendered objects, for test/integration/helm_chart.sh.

Each subcommand prints one line per check: "ok ...", "FAIL ..." or "note ..." (a documented, intended difference),
and exits 0 (the caller counts the lines); it exits 2 on bad input.

  compare.py kustomize KUSTOMIZE_YAML HELM_YAML --fullname F --run-help FILE
      The chart rendered with default values against `kubectl kustomize config/default`: the same objects (names
      mapped as in NAME_MAP below; kustomize's Namespace has no chart counterpart), the same RBAC rules as
      (apiGroup, resource, verb) sets, the same bindings, the same Deployment (pod and container settings, ports,
      probes, resources, and args compared by meaning: flags left out count as the binary's defaults from
      `run --help`), the same metrics Service (ports; each side's selector picks its own Deployment's pods and its
      targetPort is a port that Deployment's container declares) and the same CRD spec. Every difference is a FAIL
      line.

  compare.py values HELM_YAML --chart CHART_DIR [-f VALUES]... --release R --namespace NS --run-help FILE
      Each setting of the values files took effect in the render: names, image, args (leader election, metrics and
      probe addresses, log format, shutdown timeout), container ports, probes, resources, pod metadata, scheduling,
      ServiceAccount, and which objects exist (rbac.create, serviceAccount.create, crds.install/keep, the metrics
      Service, the ServiceMonitor, whose selector and port must reach the metrics Service).
      A setting of the first values file that equals the chart default is itself a FAIL: its check would prove
      nothing.

  compare.py flags HELM_YAML --run-help FILE
      Every flag the Deployment passes to `codeflare-operator run` is one that `run --help` documents.
"""
import argparse
import re
import sys

import yaml

# kustomize base name (before config/default's namePrefix) -> chart name, per kind. "{F}" is the chart's fullname
# (release name + chart name, or fullnameOverride). The CRD's name is fixed by its group and plural.
NAME_MAP = [
    ("ServiceAccount", "controller-manager", "{F}"),
    ("Deployment", "controller-manager", "{F}"),
    ("ClusterRole", "manager-role", "{F}-manager"),
    ("ClusterRoleBinding", "manager-rolebinding", "{F}-manager"),
    ("Role", "leader-election-role", "{F}-leader-election"),
    ("RoleBinding", "leader-election-rolebinding", "{F}-leader-election"),
    ("ClusterRole", "codeflareworkload-viewer-role", "{F}-codeflareworkload-viewer"),
    ("ClusterRole", "codeflareworkload-editor-role", "{F}-codeflareworkload-editor"),
    ("Service", "controller-manager-metrics-service", "{F}-metrics"),
    ("Service", "webhook-service", "{F}-webhook-service"),
    ("Secret", "webhook-server-cert", "{F}-webhook-server-cert"),
    ("ValidatingWebhookConfiguration", "validating-webhook-configuration", "{F}-validating-webhook-configuration"),
    ("Role", "webhook-cert-role", "{F}-webhook-cert"),
    ("RoleBinding", "webhook-cert-rolebinding", "{F}-webhook-cert"),
    ("ClusterRole", "webhook-configuration-role", "{F}-webhook-configuration"),
    ("ClusterRoleBinding", "webhook-configuration-rolebinding", "{F}-webhook-configuration"),
]
CRD_NAME = "codeflareworkloads.codeflare.dev"
AGGREGATE_PREFIX = "rbac.authorization.k8s.io/aggregate-to-"


def out(status, msg):
    print(f"{status} {msg}")


def load_docs(path):
    with open(path, encoding="utf-8") as f:
        return [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]


def name_of(obj):
    return (obj.get("metadata") or {}).get("name", "")


def ns_of(obj):
    return (obj.get("metadata") or {}).get("namespace")


def labels_of(obj):
    return (obj.get("metadata") or {}).get("labels") or {}


def find(docs, kind, name):
    return [d for d in docs if d.get("kind") == kind and name_of(d) == name]


def diff(a, b, path=""):
    """Paths where two YAML values differ, with both sides."""
    if isinstance(a, dict) and isinstance(b, dict):
        found = []
        for k in sorted(set(a) | set(b), key=str):
            p = f"{path}.{k}" if path else str(k)
            if k not in a:
                found.append(f"{p}: only in helm ({b[k]!r})")
            elif k not in b:
                found.append(f"{p}: only in kustomize ({a[k]!r})")
            else:
                found.extend(diff(a[k], b[k], p))
        return found
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        found = []
        for i, (x, y) in enumerate(zip(a, b)):
            found.extend(diff(x, y, f"{path}[{i}]"))
        return found
    return [] if a == b else [f"{path or '(whole)'}: kustomize {a!r}, helm {b!r}"]


def rule_triples(role):
    """(apiGroup, resource, verb) for every rule, plus anything that a triple cannot express."""
    triples, extra = set(), []
    for i, rule in enumerate(role.get("rules") or []):
        for key in ("resourceNames", "nonResourceURLs"):
            if rule.get(key):
                extra.append(f"rule {i} {key}={rule[key]}")
        for g in rule.get("apiGroups") or []:
            for r in rule.get("resources") or []:
                for v in rule.get("verbs") or []:
                    triples.add((g, r, v))
    return triples, extra


def parse_help(path):
    """Flags that `codeflare-operator run --help` documents, and the default of those whose help says '(default X'."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    # A flag's help may go on over lines indented past the flag (the help is folded at 120 columns): they are joined.
    entries = []
    for line in text.splitlines():
        m = re.match(r" {0,6}(?:-\w, )?--([a-z0-9-]+)", line)  # a flag at the flag column, not a folded line
        if m:
            entries.append([m.group(1), line])
        elif entries and re.match(r"\s{8,}\S", line):
            entries[-1][1] += " " + line.strip()
        elif line.strip() == "" or not line.startswith(" "):
            entries.append(None) if entries and entries[-1] is not None else None
    known, defaults = set(), {}
    for entry in entries:
        if entry is None:
            continue
        name, line = entry
        known.add(name)
        d = re.search(r"\(default ([^:,)\s][^,)\s]*)", line)
        if d:
            defaults[name] = d.group(1)
    return known, defaults


def parse_args(args):
    """['run', '--a=1', '--b', '2', '--a=3'] -> ('run', {'a': ['1', '3'], 'b': ['2']}, problems)."""
    if not args:
        return None, {}, ["no args"]
    sub, flags, problems = args[0], {}, []
    i = 1
    while i < len(args):
        a = args[i]
        if not a.startswith("--"):
            problems.append(f"unexpected argument {a!r}")
            i += 1
            continue
        if "=" in a:
            k, v = a[2:].split("=", 1)
        elif i + 1 < len(args) and not args[i + 1].startswith("-"):
            k, v = a[2:], args[i + 1]
            i += 1
        else:
            k, v = a[2:], "true"
        flags.setdefault(k, []).append(v)
        i += 1
    return sub, flags, problems


def effective_flags(flags, defaults):
    eff = {k: list(v) for k, v in flags.items()}
    for k, v in defaults.items():
        eff.setdefault(k, [v])
    return eff


def deployment_container(dep, name="manager"):
    containers = (((dep.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []
    match = [c for c in containers if c.get("name") == name]
    return match[0] if len(match) == 1 else None


def image_repo(image):
    # registry:port/path/name:tag -> registry:port/path/name (a digest is cut as well)
    image = image.split("@", 1)[0]
    slash = image.rfind("/")
    colon = image.rfind(":")
    return image[:colon] if colon > slash else image


# --- kustomize -----------------------------------------------------------------------------------------------------


def cmd_kustomize(opts):
    kdocs, hdocs = load_docs(opts.kustomize), load_docs(opts.helm)
    full = opts.fullname
    with open(opts.kustomization, encoding="utf-8") as f:
        prefix = (yaml.safe_load(f) or {}).get("namePrefix", "")
    known, defaults = parse_help(opts.run_help)

    # The name mapping, both ways.
    pairs, k_to_h = [], {}
    for kind, base, helm_name in NAME_MAP:
        kname, hname = prefix + base, helm_name.replace("{F}", full)
        k_to_h[(kind, kname)] = hname
        ks, hs = find(kdocs, kind, kname), find(hdocs, kind, hname)
        if len(ks) == 1 and len(hs) == 1:
            pairs.append((kind, ks[0], hs[0]))
            out("ok", f"{kind} {kname} (kustomize) <-> {hname} (helm)")
        else:
            out("FAIL", f"{kind}: {len(ks)} named {kname} in kustomize, {len(hs)} named {hname} in helm (want 1 and 1)")
    ks, hs = find(kdocs, "CustomResourceDefinition", CRD_NAME), find(hdocs, "CustomResourceDefinition", CRD_NAME)
    if len(ks) == 1 and len(hs) == 1:
        pairs.append(("CustomResourceDefinition", ks[0], hs[0]))
    else:
        out("FAIL", f"CustomResourceDefinition {CRD_NAME}: {len(ks)} in kustomize, {len(hs)} in helm (want 1 and 1)")

    # Nothing left over on either side (kustomize's Namespace is the one intended difference).
    mapped_k = {(k, name_of(a)) for k, a, _ in pairs}
    mapped_h = {(k, name_of(b)) for k, _, b in pairs}
    for d in kdocs:
        key = (d.get("kind"), name_of(d))
        if d.get("kind") == "Namespace":
            out("note", f"Namespace {name_of(d)}: only in kustomize; with Helm the release namespace comes from "
                        "`helm install -n NS --create-namespace`")
        elif key not in mapped_k:
            out("FAIL", f"{key[0]} {key[1]}: in kustomize, no counterpart in the chart")
    for d in hdocs:
        key = (d.get("kind"), name_of(d))
        if key not in mapped_h:
            out("FAIL", f"{key[0]} {key[1]}: in the chart, no counterpart in kustomize")
    kinds_k = {d.get("kind") for d in kdocs} - {"Namespace"}
    kinds_h = {d.get("kind") for d in hdocs}
    if kinds_k == kinds_h:
        out("ok", f"same kinds besides Namespace: {', '.join(sorted(kinds_h))}")
    else:
        out("FAIL", f"kinds differ: only kustomize {sorted(kinds_k - kinds_h)}, only helm {sorted(kinds_h - kinds_k)}")
    out("note", "labels differ by design: kustomize sets app.kubernetes.io/name, managed-by=kustomize and "
                "control-plane; the chart sets Helm's standard labels (helm.sh/chart, name, instance, version, "
                "managed-by=Helm), and its pod selector is name + instance")

    for kind, k, h in pairs:
        what = f"{kind} {name_of(h)}"
        # Namespaced objects land in the same namespace.
        if ns_of(k) != ns_of(h):
            out("FAIL", f"{what}: namespace kustomize {ns_of(k)!r}, helm {ns_of(h)!r}")
        if kind in ("ClusterRole", "Role"):
            tk, ek = rule_triples(k)
            th, eh = rule_triples(h)
            problems = []
            if tk - th:
                problems.append(f"only in kustomize {sorted(tk - th)}")
            if th - tk:
                problems.append(f"only in helm {sorted(th - tk)}")
            # resourceNames name objects of the release: compare them through the name mapping.
            names_k2h = {kn: hn for (_, kn), hn in k_to_h.items()}
            ek = [re.sub(r"resourceNames=\[(.*)\]",
                         lambda m: "resourceNames=" + str([names_k2h.get(n.strip(" '"), n.strip(" '"))
                                                           for n in m.group(1).split(",")]), e) for e in ek]
            if ek != eh:
                problems.append(f"resourceNames/nonResourceURLs kustomize {ek}, helm {eh}")
            ak = {x: v for x, v in labels_of(k).items() if x.startswith(AGGREGATE_PREFIX)}
            ah = {x: v for x, v in labels_of(h).items() if x.startswith(AGGREGATE_PREFIX)}
            if ak != ah:
                problems.append(f"aggregation labels kustomize {ak}, helm {ah}")
            if k.get("aggregationRule") != h.get("aggregationRule"):
                problems.append("aggregationRule differs")
            if problems:
                out("FAIL", f"{what}: rules differ: {'; '.join(problems)}")
            else:
                out("ok", f"{what}: same {len(th)} (apiGroup, resource, verb) rules and aggregation labels")
        elif kind in ("ClusterRoleBinding", "RoleBinding"):
            rk, rh = dict(k.get("roleRef") or {}), dict(h.get("roleRef") or {})
            rk["name"] = k_to_h.get((rk.get("kind"), rk.get("name")), f"<unmapped {rk.get('name')}>")
            sk = [(s.get("kind"), k_to_h.get((s.get("kind"), s.get("name")), s.get("name")), s.get("namespace"))
                  for s in k.get("subjects") or []]
            sh = [(s.get("kind"), s.get("name"), s.get("namespace")) for s in h.get("subjects") or []]
            if rk == rh and sorted(sk) == sorted(sh):
                out("ok", f"{what}: same roleRef and subjects (names mapped)")
            else:
                out("FAIL", f"{what}: roleRef kustomize {rk} helm {rh}; subjects kustomize {sk} helm {sh}")
        elif kind == "ServiceAccount":
            problems = diff({x: v for x, v in k.items() if x != "metadata"},
                            {x: v for x, v in h.items() if x != "metadata"})
            if problems:
                out("FAIL", f"{what}: {'; '.join(problems)}")
            else:
                out("ok", f"{what}: same")
        elif kind == "CustomResourceDefinition":
            problems = diff(k.get("spec"), h.get("spec"), "spec")
            if problems:
                more = f" (and {len(problems) - 10} more)" if len(problems) > 10 else ""
                out("FAIL", f"{what}: spec differs (run deploy/helm/sync-crd.sh): {'; '.join(problems[:10])}{more}")
            else:
                out("ok", f"{what}: same spec")
            out("note", f"{what}: metadata differs by design: Helm labels, and (unless crds.keep=false) the "
                        "annotations helm.sh/resource-policy: keep and argocd.argoproj.io/sync-options: "
                        "Delete=false,Prune=false")
        elif kind == "Deployment":
            compare_deployments(what, k, h, k_to_h, known, defaults)
        elif kind == "ValidatingWebhookConfiguration":
            # The webhooks, with the Service they call mapped; the labels differ by design.
            kw = [dict(w, clientConfig=dict(w.get("clientConfig") or {})) for w in k.get("webhooks") or []]
            for w in kw:
                svc = dict(w["clientConfig"].get("service") or {})
                svc["name"] = k_to_h.get(("Service", svc.get("name")), f"<unmapped {svc.get('name')}>")
                w["clientConfig"]["service"] = svc
            problems = diff(kw, h.get("webhooks") or [], "webhooks")
            problems += diff((k["metadata"].get("annotations") or {}), (h["metadata"].get("annotations") or {}),
                             "metadata.annotations")
            out("FAIL" if problems else "ok", f"{what}: " + ("; ".join(problems) if problems else
                                                             "same webhooks (the Service mapped) and annotations"))
        elif kind == "Secret":
            problems = diff({x: v for x, v in k.items() if x != "metadata"},
                            {x: v for x, v in h.items() if x != "metadata"})
            out("FAIL" if problems else "ok", f"{what}: " + ("; ".join(problems) if problems else "same type, no data"))
        elif kind == "Service":
            compare_services(what, k, h, kdocs, hdocs)


def pod_labels(dep):
    return ((((dep.get("spec") or {}).get("template") or {}).get("metadata") or {}).get("labels")) or {}


def container_port_names(dep):
    names = set()
    for c in (((dep.get("spec") or {}).get("template") or {}).get("spec") or {}).get("containers") or []:
        names.update(p.get("name") for p in c.get("ports") or [] if p.get("name"))
    return names


def compare_services(what, k, h, kdocs, hdocs):
    """The metrics Service: the same ports and type; on each side it selects the Deployment's pods and targets a
    port that Deployment's container declares (the selectors differ with the labels, by design)."""
    ks, hs = dict(k.get("spec") or {}), dict(h.get("spec") or {})
    ksel, hsel = ks.pop("selector", None) or {}, hs.pop("selector", None) or {}
    problems = diff(ks, hs, "spec")
    for side, svc_sel, spec, docs in (("kustomize", ksel, ks, kdocs), ("helm", hsel, hs, hdocs)):
        deps = [d for d in docs if d.get("kind") == "Deployment"]
        picked = [d for d in deps if svc_sel and all(pod_labels(d).get(x) == y for x, y in svc_sel.items())]
        if len(picked) != 1:
            problems.append(f"{side}: selector {svc_sel} picks the pods of {len(picked)} Deployment(s), want 1")
            continue
        declared = container_port_names(picked[0])
        for port in spec.get("ports") or []:
            if port.get("targetPort") not in declared:
                problems.append(f"{side}: port {port.get('name')} targets {port.get('targetPort')!r}, not one of "
                                f"the container ports {sorted(declared)}")
    if problems:
        for p in problems:
            out("FAIL", f"{what}: {p}")
    else:
        ports = [(p.get("name"), p.get("port"), p.get("targetPort")) for p in hs.get("ports") or []]
        out("ok", f"{what}: same ports {ports}; on both sides it selects the Deployment's pods and targets a "
                  "declared container port")


def compare_deployments(what, k, h, k_to_h, known, defaults):
    ks, hs = k.get("spec") or {}, h.get("spec") or {}
    # Deployment spec besides the selector and the pod template's metadata (labels by design, see the note).
    problems = diff({x: v for x, v in ks.items() if x not in ("selector", "template")},
                    {x: v for x, v in hs.items() if x not in ("selector", "template")}, "spec")
    kpod = dict((ks.get("template") or {}).get("spec") or {})
    hpod = dict((hs.get("template") or {}).get("spec") or {})
    kann = ((ks.get("template") or {}).get("metadata") or {}).get("annotations")
    hann = ((hs.get("template") or {}).get("metadata") or {}).get("annotations")
    problems += diff(kann, hann, "spec.template.metadata.annotations")
    ksa = kpod.pop("serviceAccountName", None)
    hsa = hpod.pop("serviceAccountName", None)
    if k_to_h.get(("ServiceAccount", ksa)) != hsa:
        problems.append(f"serviceAccountName: kustomize {ksa!r} maps to {k_to_h.get(('ServiceAccount', ksa))!r}, "
                        f"helm {hsa!r}")
    kcs, hcs = kpod.pop("containers", []) or [], hpod.pop("containers", []) or []
    problems += diff(kpod, hpod, "spec.template.spec")
    if [c.get("name") for c in kcs] != [c.get("name") for c in hcs]:
        problems.append(f"containers: kustomize {[c.get('name') for c in kcs]}, helm {[c.get('name') for c in hcs]}")
    arg_lines = []
    for kc, hc in zip(kcs, hcs):
        cname = kc.get("name")
        kc, hc = dict(kc), dict(hc)
        kimg, himg = kc.pop("image", ""), hc.pop("image", "")
        if image_repo(kimg) != image_repo(himg):
            problems.append(f"container {cname} image repository: kustomize {kimg!r}, helm {himg!r}")
        elif kimg != himg:
            out("note", f"{what}: container {cname} image tag differs by design: kustomize {kimg!r} (placeholder "
                        f"for `kustomize edit set image`), helm {himg!r} (image.tag, default the chart's appVersion)")
        kargs, hargs = kc.pop("args", None), hc.pop("args", None)
        problems += diff(kc, hc, f"container {cname}")
        ksub, kflags, kp = parse_args(kargs or [])
        hsub, hflags, hp = parse_args(hargs or [])
        problems += [f"container {cname} kustomize args: {p}" for p in kp]
        problems += [f"container {cname} helm args: {p}" for p in hp]
        for side, flags in (("kustomize", kflags), ("helm", hflags)):
            unknown = sorted(set(flags) - known)
            if unknown:
                problems.append(f"container {cname} {side} args: flags not in `run --help`: {unknown}")
        if ksub != hsub:
            problems.append(f"container {cname} subcommand: kustomize {ksub!r}, helm {hsub!r}")
        ek, eh = effective_flags(kflags, defaults), effective_flags(hflags, defaults)
        if ek != eh:
            problems.append(f"container {cname} effective flags (binary defaults filled in): kustomize {ek}, "
                            f"helm {eh}")
        else:
            arg_lines.append(f"container {cname}: same effective flags {ek} (kustomize {kargs}, helm {hargs})")
    if problems:
        for p in problems:
            out("FAIL", f"{what}: {p}")
    else:
        out("ok", f"{what}: same replicas, pod and container security contexts, ports, probes, resources, "
                  "scheduling, terminationGracePeriodSeconds, service account (mapped)")
    for line in arg_lines:
        out("ok", f"{what}: {line}")


# --- values --------------------------------------------------------------------------------------------------------


def merge(dst, src):
    outm = dict(dst)
    for key, v in src.items():
        if isinstance(v, dict) and isinstance(outm.get(key), dict):
            outm[key] = merge(outm[key], v)
        elif v is None:
            outm.pop(key, None)
        else:
            outm[key] = v
    return outm


def check(ok, msg):
    out("ok" if ok else "FAIL", msg)


def cmd_values(opts):
    docs = load_docs(opts.helm)
    with open(f"{opts.chart}/values.yaml", encoding="utf-8") as f:
        defaults = yaml.safe_load(f) or {}
    with open(f"{opts.chart}/Chart.yaml", encoding="utf-8") as f:
        chart = yaml.safe_load(f)
    layers = []
    for path in opts.values:
        with open(path, encoding="utf-8") as f:
            layers.append((path, yaml.safe_load(f) or {}))
    v = defaults
    for _, layer in layers:
        v = merge(v, layer)
    ns = opts.namespace

    # The first values file must really change what it sets; otherwise its checks prove nothing.
    first_path, first = layers[0]
    for key, val in first.items():
        if isinstance(val, dict):
            for sub, sval in val.items():
                if (defaults.get(key) or {}).get(sub) == sval:
                    out("FAIL", f"{first_path}: {key}.{sub} equals the chart default")
        elif defaults.get(key) == val:
            out("FAIL", f"{first_path}: {key} equals the chart default")

    # Names: fullnameOverride, else release-name with the chart name (or nameOverride) appended unless contained.
    name = v.get("nameOverride") or chart["name"]
    if v.get("fullnameOverride"):
        full = v["fullnameOverride"]
    elif name in opts.release:
        full = opts.release
    else:
        full = f"{opts.release}-{name}"
    full = full[:63].rstrip("-")
    sa_name = (v["serviceAccount"].get("name") or full) if v["serviceAccount"]["create"] \
        else (v["serviceAccount"].get("name") or "default")

    def one(kind, nm):
        found = find(docs, kind, nm)
        return found[0] if len(found) == 1 else None

    dep = one("Deployment", full)
    check(dep is not None, f"Deployment named {full!r} (fullname from release {opts.release!r}, "
                           f"nameOverride {v.get('nameOverride')!r}, fullnameOverride {v.get('fullnameOverride')!r})")
    for d in docs:
        if d.get("kind") != "CustomResourceDefinition" and not name_of(d).startswith(full):
            out("FAIL", f"{d.get('kind')} {name_of(d)}: name does not start with {full!r}")
        if d.get("kind") in ("Deployment", "ServiceAccount", "Role", "RoleBinding", "Service", "ServiceMonitor") \
                and ns_of(d) != ns:
            out("FAIL", f"{d.get('kind')} {name_of(d)}: namespace {ns_of(d)!r}, want the release's {ns!r}")
        for s in d.get("subjects") or []:
            if s.get("kind") == "ServiceAccount":
                check(s.get("name") == sa_name and s.get("namespace") == ns,
                      f"{d.get('kind')} {name_of(d)}: subject ServiceAccount {s.get('namespace')}/{s.get('name')}, "
                      f"want {ns}/{sa_name}")

    # Which objects exist.
    rbac = [d for d in docs if d.get("kind") in ("ClusterRole", "ClusterRoleBinding", "Role", "RoleBinding")]
    want_rbac = (6 + (4 if v["webhook"]["enabled"] else 0)) if v["rbac"]["create"] else 0
    check(len(rbac) == want_rbac,
          f"rbac.create={v['rbac']['create']}, webhook.enabled={v['webhook']['enabled']}: {len(rbac)} RBAC objects, "
          f"want {want_rbac}")
    sas = [d for d in docs if d.get("kind") == "ServiceAccount"]
    check(len(sas) == (1 if v["serviceAccount"]["create"] else 0),
          f"serviceAccount.create={v['serviceAccount']['create']}: {len(sas)} ServiceAccount(s)")
    if sas:
        sa = sas[0]
        check(name_of(sa) == sa_name, f"ServiceAccount name {name_of(sa)!r}, want {sa_name!r}")
        want = v["serviceAccount"].get("annotations") or None
        check((sa["metadata"].get("annotations") or None) == want,
              f"ServiceAccount annotations {sa['metadata'].get('annotations')}, want {want}")
    crds = find(docs, "CustomResourceDefinition", CRD_NAME)
    check(len(crds) == (1 if v["crds"]["install"] else 0), f"crds.install={v['crds']['install']}: {len(crds)} CRD(s)")
    if crds:
        ann = crds[0]["metadata"].get("annotations") or {}
        keep = ann.get("helm.sh/resource-policy") == "keep"
        argo = ann.get("argocd.argoproj.io/sync-options") == "Delete=false,Prune=false"
        check(keep == argo == bool(v["crds"]["keep"]),
              f"crds.keep={v['crds']['keep']}: helm.sh/resource-policy keep is {keep}, "
              f"Argo CD Delete=false,Prune=false is {argo}")

    check_metrics_objects([d for d in docs if name_of(d) != f"{full}-webhook-service"], v, full, dep)
    check_webhook_objects(docs, v, full)

    if dep is None:
        return
    spec = dep["spec"]
    pod = spec["template"]
    c = deployment_container(dep)
    if c is None:
        out("FAIL", "no container named manager")
        return
    tag = v["image"].get("tag") or chart.get("appVersion")
    check(c.get("image") == f"{v['image']['repository']}:{tag}", f"image {c.get('image')!r}")
    check(c.get("imagePullPolicy") == v["image"]["pullPolicy"], f"imagePullPolicy {c.get('imagePullPolicy')!r}")
    le, metrics, health = v["leaderElection"], v["metrics"], v["healthProbe"]
    want_args = ["run"]
    if le["enabled"]:
        want_args.append("--leader-elect")
        if le.get("id"):
            want_args.append(f"--leader-election-id={le['id']}")
        for key, flag in (("leaseDuration", "lease-duration"), ("renewDeadline", "renew-deadline"),
                          ("retryPeriod", "retry-period")):
            if le.get(key):
                want_args.append(f"--leader-elect-{flag}={le[key]}")
        if le.get("releaseOnCancel"):
            want_args.append("--leader-elect-release-on-cancel")
    want_args.append(f"--health-probe-bind-address=:{health['port']}")
    want_args.append(f"--metrics-bind-address=:{metrics['port']}" if metrics["enabled"] else "--metrics-bind-address=0")
    want_args += [f"--log-level={v['logLevel']}", f"--log-format={v['logFormat']}",
                  f"--max-concurrent-reconciles={v['maxConcurrentReconciles']}"]
    if v.get("gracefulShutdownTimeout") not in (None, ""):
        want_args.append(f"--graceful-shutdown-timeout={v['gracefulShutdownTimeout']}")
    want_args += [f"--namespace={n}" for n in v.get("watchNamespaces") or []]
    if v.get("labelSelector"):
        want_args.append(f"--label-selector={v['labelSelector']}")
    hook = v["webhook"]
    if hook["enabled"]:
        want_args += [f"--webhook-bind-address=:{hook['port']}", "--webhook-cert-secret=$(WEBHOOK_CERT_SECRET)",
                      "--webhook-service=$(WEBHOOK_SERVICE)", "--webhook-configuration=$(WEBHOOK_CONFIGURATION)"]
        if hook["guards"]["enabled"]:
            want_args.append("--webhook-configuration=$(WEBHOOK_GUARDS_CONFIGURATION)")
    want_args += list(v.get("extraArgs") or [])
    check(c.get("args") == want_args, f"args {c.get('args')}, want {want_args}")
    want_env = None
    if hook["enabled"]:
        want_env = [{"name": "WEBHOOK_CERT_SECRET",
                     "value": "" if v["certManager"]["enabled"] else f"{full}-webhook-server-cert"},
                    {"name": "WEBHOOK_SERVICE", "value": f"{full}-webhook-service"},
                    {"name": "WEBHOOK_CONFIGURATION", "value": f"{full}-validating-webhook-configuration"}]
        if hook["guards"]["enabled"]:
            want_env.append({"name": "WEBHOOK_GUARDS_CONFIGURATION", "value": f"{full}-validating-webhook-guards"})
    check(c.get("env") == want_env, f"env {c.get('env')}, want {want_env}")
    args = c.get("args") or []
    check(spec.get("replicas", 1) <= 1 or "--leader-elect" in args,
          f"replicas {spec.get('replicas')}: {'with' if '--leader-elect' in args else 'WITHOUT'} --leader-elect")
    # Ports: "metrics" only while metrics are served; "health" always.
    want_ports = []
    if metrics["enabled"]:
        want_ports.append({"name": "metrics", "containerPort": metrics["port"], "protocol": "TCP"})
    want_ports.append({"name": "health", "containerPort": health["port"], "protocol": "TCP"})
    if hook["enabled"]:
        want_ports.append({"name": "webhook-server", "containerPort": hook["port"], "protocol": "TCP"})
    check(c.get("ports") == want_ports, f"container ports {c.get('ports')}, want {want_ports}")
    declared = {p.get("name"): p.get("containerPort") for p in c.get("ports") or []}
    for probe, path in (("livenessProbe", "/healthz"), ("readinessProbe", "/readyz?exclude=leader")):
        got = c.get(probe) or {}
        get = got.get("httpGet") or {}
        timing = {x: y for x, y in got.items() if x != "httpGet"}
        check(get.get("path") == path and declared.get(get.get("port")) == health["port"]
              and timing == (health.get(probe) or {}),
              f"{probe}: GET {get.get('path')} on port {get.get('port')!r} (container port "
              f"{declared.get(get.get('port'))}), timing {timing}; want {path} on healthProbe.port {health['port']}, "
              f"timing {health.get(probe)}")
    check(c.get("resources") == v["resources"], f"resources {c.get('resources')}")
    check(spec.get("replicas") == v["replicaCount"], f"replicas {spec.get('replicas')}")
    ps = pod["spec"]
    check(ps.get("serviceAccountName") == sa_name, f"serviceAccountName {ps.get('serviceAccountName')!r}")
    check(ps.get("terminationGracePeriodSeconds") == v["terminationGracePeriodSeconds"],
          f"terminationGracePeriodSeconds {ps.get('terminationGracePeriodSeconds')}")
    check((ps.get("imagePullSecrets") or []) == (v.get("imagePullSecrets") or []),
          f"imagePullSecrets {ps.get('imagePullSecrets')}")
    for key in ("nodeSelector", "tolerations", "affinity"):
        check((ps.get(key) or None) == (v.get(key) or None), f"{key} {ps.get(key)}")
    check(ps.get("securityContext") == v["podSecurityContext"], "pod securityContext as podSecurityContext")
    check(c.get("securityContext") == v["securityContext"], "container securityContext as securityContext")
    meta = pod.get("metadata") or {}
    check((meta.get("annotations") or None) == (v.get("podAnnotations") or None),
          f"pod annotations {meta.get('annotations')}")
    labels = meta.get("labels") or {}
    missing = {x: y for x, y in (v.get("podLabels") or {}).items() if labels.get(x) != y}
    check(not missing, f"pod labels include podLabels {v.get('podLabels')}")
    sel = spec["selector"]["matchLabels"]
    check(sel == {"app.kubernetes.io/name": name[:63].rstrip("-"), "app.kubernetes.io/instance": opts.release},
          f"selector {sel} (name + instance only, so podLabels never change it)")
    check(all(labels.get(x) == y for x, y in sel.items()), "pod labels match the selector")


def check_webhook_objects(docs, v, full):
    """The webhook objects exist exactly when webhook.enabled (the guards with webhook.guards.enabled, the Certificate
    with certManager.enabled), and follow the values (failurePolicy, timeoutSeconds, selectors)."""
    hook = v["webhook"]
    on, guards, cm = bool(hook["enabled"]), bool(hook["enabled"] and hook["guards"]["enabled"]), \
        bool(hook["enabled"] and v["certManager"]["enabled"])
    configs = {name_of(d): d for d in docs if d.get("kind") == "ValidatingWebhookConfiguration"}
    want = ({f"{full}-validating-webhook-configuration"} if on else set()) | \
        ({f"{full}-validating-webhook-guards"} if guards else set())
    check(set(configs) == want, f"webhook.enabled={hook['enabled']}, guards {hook['guards']['enabled']}: "
                                f"configurations {sorted(configs)}, want {sorted(want)}")
    for name, cfg in configs.items():
        guard = name.endswith("-guards")
        g = hook["guards"] if guard else hook
        for w in cfg.get("webhooks") or []:
            namespaced = (w.get("rules") or [{}])[0].get("scope") == "Namespaced"
            want_ns = (g.get("namespaceSelector") or None) if namespaced else None
            want_obj = g.get("objectSelector") or None
            if not guard:
                # Unset, the CodeFlareWorkload webhook's selectors follow watchNamespaces and labelSelector (the
                # labelSelector's translation is test/helm/webhook_scope_test.sh's: here only "some selector").
                if want_ns is None and v.get("watchNamespaces"):
                    want_ns = {"matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In",
                                                     "values": list(v["watchNamespaces"])}]}
                if want_obj is None and v.get("labelSelector") and w.get("objectSelector"):
                    want_obj = w["objectSelector"]
            got = (w.get("failurePolicy"), w.get("timeoutSeconds"), w.get("namespaceSelector"), w.get("objectSelector"))
            want_w = (g["failurePolicy"], g["timeoutSeconds"], want_ns, want_obj)
            check(got == want_w, f"{name}/{w.get('name')}: (failurePolicy, timeoutSeconds, namespaceSelector, "
                                 f"objectSelector) {got}, want {want_w}")
    for kind, nm, want_one in (("Service", f"{full}-webhook-service", on), ("Secret", f"{full}-webhook-server-cert", on),
                               ("Certificate", f"{full}-serving-cert", cm)):
        check(len(find(docs, kind, nm)) == int(want_one), f"{kind} {nm}: {len(find(docs, kind, nm))}, want {int(want_one)}")


def check_metrics_objects(docs, v, full, dep):
    """The metrics Service and the ServiceMonitor exist exactly when the values ask for them, and reach each other."""
    metrics = v["metrics"]
    want_svc = bool(metrics["enabled"] and metrics["service"]["enabled"])
    want_sm = bool(metrics["serviceMonitor"]["enabled"])
    services = [d for d in docs if d.get("kind") == "Service"]
    monitors = [d for d in docs if d.get("kind") == "ServiceMonitor"]
    check(len(services) == int(want_svc),
          f"metrics.enabled={metrics['enabled']}, metrics.service.enabled={metrics['service']['enabled']}: "
          f"{len(services)} Service(s)")
    check(len(monitors) == int(want_sm),
          f"metrics.serviceMonitor.enabled={metrics['serviceMonitor']['enabled']}: {len(monitors)} ServiceMonitor(s)")
    svc = services[0] if len(services) == 1 else None
    if svc is not None:
        sspec = svc.get("spec") or {}
        want_ports = [{"name": "metrics", "port": metrics["port"], "targetPort": "metrics", "protocol": "TCP"}]
        check(name_of(svc) == f"{full}-metrics" and sspec.get("ports") == want_ports,
              f"Service {name_of(svc)}: ports {sspec.get('ports')}, want {full}-metrics with {want_ports}")
        want_ann = metrics["service"].get("annotations") or None
        check((svc["metadata"].get("annotations") or None) == want_ann,
              f"Service annotations {svc['metadata'].get('annotations')}, want {want_ann}")
        if dep is not None:
            sel = sspec.get("selector") or {}
            check(sel and sel == dep["spec"]["selector"]["matchLabels"],
                  f"Service selector {sel} is the Deployment's pod selector")
    if monitors:
        sm = monitors[0]
        smspec = sm.get("spec") or {}
        check(sm.get("apiVersion") == "monitoring.coreos.com/v1", f"ServiceMonitor apiVersion {sm.get('apiVersion')}")
        want_labels = metrics["serviceMonitor"].get("labels") or {}
        got_labels = labels_of(sm)
        check(all(got_labels.get(x) == y for x, y in want_labels.items()),
              f"ServiceMonitor labels {got_labels} include metrics.serviceMonitor.labels {want_labels}")
        match = (smspec.get("selector") or {}).get("matchLabels") or {}
        endpoints = smspec.get("endpoints") or []
        if svc is None:
            out("FAIL", "ServiceMonitor rendered without a metrics Service to select")
        else:
            slabels = labels_of(svc)
            check(match and all(slabels.get(x) == y for x, y in match.items()),
                  f"ServiceMonitor selector {match} matches the metrics Service's labels")
            port_names = {p.get("name") for p in (svc.get("spec") or {}).get("ports") or []}
            want_interval = metrics["serviceMonitor"].get("interval") or None
            check(len(endpoints) == 1 and endpoints[0].get("port") in port_names
                  and endpoints[0].get("path") == "/metrics" and endpoints[0].get("interval") == want_interval,
                  f"ServiceMonitor endpoints {endpoints}: port in the Service's {sorted(port_names)}, path /metrics, "
                  f"interval {want_interval}")


def cmd_flags(opts):
    known, _ = parse_help(opts.run_help)
    for dep in [d for d in load_docs(opts.helm) if d.get("kind") == "Deployment"]:
        c = deployment_container(dep)
        sub, flags, problems = parse_args((c or {}).get("args") or [])
        unknown = sorted(set(flags) - known)
        check(sub == "run" and not unknown and not problems,
              f"Deployment {name_of(dep)}: `{sub}` with flags {sorted(flags)}, all in `run --help`"
              + (f"; unknown {unknown}" if unknown else "") + (f"; {problems}" if problems else ""))


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    k = sub.add_parser("kustomize")
    k.add_argument("kustomize")
    k.add_argument("helm")
    k.add_argument("--fullname", required=True)
    k.add_argument("--kustomization", default="config/default/kustomization.yaml")
    k.add_argument("--run-help", required=True)
    v = sub.add_parser("values")
    v.add_argument("helm")
    v.add_argument("--chart", required=True)
    v.add_argument("-f", dest="values", action="append", required=True)
    v.add_argument("--release", required=True)
    v.add_argument("--namespace", required=True)
    fl = sub.add_parser("flags")
    fl.add_argument("helm")
    fl.add_argument("--run-help", required=True)
    opts = p.parse_args()
    {"kustomize": cmd_kustomize, "values": cmd_values, "flags": cmd_flags}[opts.cmd](opts)


if __name__ == "__main__":
    try:
        main()
    except (OSError, yaml.YAMLError, KeyError, TypeError) as e:
        print(f"compare.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)

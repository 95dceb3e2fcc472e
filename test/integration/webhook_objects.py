#!/usr/bin/env python3
"""Checks the admission webhook objects of a deployment (kustomize build or Helm render) against its Deployment.

  webhook_objects.py FILE [--guards] [--cert-manager] [--run-help FILE] [--cfw-failure-policy P]
                     [--guards-failure-policy P]

Prints one line per check, "ok ..." or "FAIL ...", and exits 0 (the caller counts the lines); exits 2 on bad input.
  CodeFlareWorkload  one ValidatingWebhookConfiguration webhook for codeflareworkloads (codeflare.dev v1alpha1,
                     CREATE and UPDATE): path /validate-codeflare-dev-v1alpha1-codeflareworkload, sideEffects None,
                     admissionReviewVersions [v1], timeoutSeconds 10, failurePolicy (--cfw-failure-policy, Fail).
  guards             with --guards one more configuration whose webhooks cover RayCluster, RayJob (ray.io v1),
                     AppWrapper (workload.codeflare.dev v1beta2) and Kueue's LocalQueue, ClusterQueue,
                     ResourceFlavor, WorkloadPriorityClass (v1beta1 and v1beta2), each at the path the operator serves
                     it, failurePolicy (--guards-failure-policy, Ignore), sideEffects None, with an objectSelector that
                     skips the operator's own children (codeflare.dev/workload) and, for namespaced kinds, a
                     namespaceSelector; without --guards no such webhook.
  Service            every webhook calls a Service of the output on port 443, in the Deployment's namespace, that
                     selects the Deployment's pods and targets its container port "webhook-server".
  Deployment         --webhook-bind-address names that port; the names its --webhook-* flags give (after $(VAR)
                     expansion from the container's env) are the output's: --webhook-service the Service,
                     --webhook-configuration every configuration (and nothing else), --webhook-cert-secret the Secret
                     (self-managed) or empty (--cert-manager); the certificate folder (--webhook-cert-dir, default
                     /tmp/k8s-webhook-server/serving-certs) is a volume: an emptyDir (self-managed, the root
                     filesystem being read-only) or that Secret (--cert-manager); with --run-help every flag is one
                     `run --help` documents.
  RBAC               the Deployment's ServiceAccount gets get and update on exactly that Secret (a Role of its
                     namespace, resourceNames) and get and patch on exactly the configurations (resourceNames), and
                     no other right on secrets or webhook configurations from any role bound to it.
  cert-manager       with --cert-manager a Certificate whose secretName is the Secret, whose dnsNames are the
                     Service's <name>.<namespace>.svc(.cluster.local), issued by an Issuer of the output, and every
                     configuration annotated cert-manager.io/inject-ca-from: <namespace>/<Certificate>; without it,
                     no Certificate and no such annotation.
"""
import argparse
import re
import sys

import yaml

CFW_PATH = "/validate-codeflare-dev-v1alpha1-codeflareworkload"
GUARDS = {
    # resource: (group, versions, path)
    "rayclusters": ("ray.io", ["v1"], "/validate-ray-io-v1-raycluster"),
    "rayjobs": ("ray.io", ["v1"], "/validate-ray-io-v1-rayjob"),
    "appwrappers": ("workload.codeflare.dev", ["v1beta2"], "/validate-workload-codeflare-dev-v1beta2-appwrapper"),
    "localqueues": ("kueue.x-k8s.io", ["v1beta1", "v1beta2"], "/validate-kueue-x-k8s-io-v1beta2-localqueue"),
    "clusterqueues": ("kueue.x-k8s.io", ["v1beta1", "v1beta2"], "/validate-kueue-x-k8s-io-v1beta2-clusterqueue"),
    "resourceflavors": ("kueue.x-k8s.io", ["v1beta1", "v1beta2"], "/validate-kueue-x-k8s-io-v1beta2-resourceflavor"),
    "workloadpriorityclasses": ("kueue.x-k8s.io", ["v1beta1", "v1beta2"],
                                "/validate-kueue-x-k8s-io-v1beta2-workloadpriorityclass"),
}
CLUSTER_SCOPED = {"clusterqueues", "resourceflavors", "workloadpriorityclasses"}
DEFAULT_CERT_DIR = "/tmp/k8s-webhook-server/serving-certs"
INJECT = "cert-manager.io/inject-ca-from"


def out(ok, msg):
    print(("ok " if ok else "FAIL ") + msg)


def name_of(d):
    return (d.get("metadata") or {}).get("name")


def ns_of(d):
    return (d.get("metadata") or {}).get("namespace")


def pod_labels(dep):
    return ((dep["spec"]["template"].get("metadata") or {}).get("labels")) or {}


def flags_of(container):
    """--flag=value args, expanded with the container's literal env values, as {flag: [values]}."""
    env = {e["name"]: e.get("value", "") for e in container.get("env") or [] if "valueFrom" not in e}
    flags = {}
    for a in container.get("args") or []:
        m = re.match(r"--([a-z0-9-]+)(?:=(.*))?$", a)
        if not m:
            continue
        value = re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda v: env.get(v.group(1), v.group(0)), m.group(2) or "")
        flags.setdefault(m.group(1), []).append(value)
    return flags


def role_rules_for(docs, sa_name, sa_ns):
    """Rules of every Role/ClusterRole bound to the ServiceAccount: [(role kind, role name, namespace, rule)]."""
    roles = {(d["kind"], name_of(d), ns_of(d) if d["kind"] == "Role" else None): d
             for d in docs if d.get("kind") in ("Role", "ClusterRole")}
    found = []
    for b in docs:
        if b.get("kind") not in ("RoleBinding", "ClusterRoleBinding"):
            continue
        if not any(s.get("kind") == "ServiceAccount" and s.get("name") == sa_name and s.get("namespace") == sa_ns
                   for s in b.get("subjects") or []):
            continue
        ref = b.get("roleRef") or {}
        key = (ref.get("kind"), ref.get("name"), ns_of(b) if ref.get("kind") == "Role" else None)
        role = roles.get(key)
        if role is None:
            continue
        where = ns_of(b) if b["kind"] == "RoleBinding" else None
        for r in role.get("rules") or []:
            found.append((role["kind"], name_of(role), where, r))
    return found


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("--guards", action="store_true")
    p.add_argument("--cert-manager", action="store_true")
    p.add_argument("--run-help")
    p.add_argument("--cfw-failure-policy", default="Fail")
    p.add_argument("--guards-failure-policy", default="Ignore")
    opts = p.parse_args()
    try:
        with open(opts.file, encoding="utf-8") as f:
            docs = [d for d in yaml.safe_load_all(f) if isinstance(d, dict)]
    except (OSError, yaml.YAMLError) as e:
        print(f"cannot read {opts.file}: {e}", file=sys.stderr)
        sys.exit(2)

    deps = [d for d in docs if d.get("kind") == "Deployment"]
    if len(deps) != 1:
        out(False, f"{len(deps)} Deployments, want 1")
        return
    dep = deps[0]
    dep_ns = ns_of(dep)
    pod = dep["spec"]["template"]["spec"]
    container = next((c for c in pod.get("containers") or [] if c.get("name") == "manager"), None)
    if container is None:
        out(False, "the Deployment has no container named manager")
        return
    ports = {pt.get("name"): pt.get("containerPort") for pt in container.get("ports") or []}
    configs = [d for d in docs if d.get("kind") == "ValidatingWebhookConfiguration"]
    services = {name_of(d): d for d in docs if d.get("kind") == "Service"}
    secrets = [d for d in docs if d.get("kind") == "Secret"]

    # --- the webhooks ---
    hooks = [(c, w) for c in configs for w in c.get("webhooks") or []]
    cfw = [(c, w) for c, w in hooks
           if any("codeflareworkloads" in (r.get("resources") or []) for r in w.get("rules") or [])]
    if len(cfw) != 1:
        out(False, f"{len(cfw)} webhooks for codeflareworkloads, want 1")
    else:
        c, w = cfw[0]
        rule = (w.get("rules") or [{}])[0]
        got = (w["clientConfig"].get("service", {}).get("path"), w.get("failurePolicy"), w.get("sideEffects"),
               w.get("admissionReviewVersions"), w.get("timeoutSeconds"), rule.get("apiGroups"),
               rule.get("apiVersions"), sorted(rule.get("operations") or []))
        want = (CFW_PATH, opts.cfw_failure_policy, "None", ["v1"], 10, ["codeflare.dev"], ["v1alpha1"],
                ["CREATE", "UPDATE"])
        out(got == want, f"{name_of(c)}/{w.get('name')}: (path, failurePolicy, sideEffects, reviewVersions, timeout, "
                         f"groups, versions, operations) {got}, want {want}")
    guard_hooks = [(c, w) for c, w in hooks if (c, w) not in cfw]
    if not opts.guards:
        out(not guard_hooks, f"no guard webhooks: {[w.get('name') for _, w in guard_hooks]}")
    else:
        covered = {}
        for c, w in guard_hooks:
            for r in w.get("rules") or []:
                for res in r.get("resources") or []:
                    covered[res] = (c, w, r)
        out(set(covered) == set(GUARDS), f"the guards cover {sorted(covered)}, want {sorted(GUARDS)}")
        for res, (group, versions, path) in GUARDS.items():
            if res not in covered:
                continue
            c, w, r = covered[res]
            objsel = ((w.get("objectSelector") or {}).get("matchExpressions")) or []
            skips_children = {"key": "codeflare.dev/workload", "operator": "DoesNotExist"} in objsel
            nssel = w.get("namespaceSelector") is not None
            got = (w["clientConfig"].get("service", {}).get("path"), r.get("apiGroups"), r.get("apiVersions"),
                   sorted(r.get("operations") or []), w.get("failurePolicy"), w.get("sideEffects"),
                   w.get("admissionReviewVersions"), skips_children, nssel or res in CLUSTER_SCOPED)
            want = (path, [group], versions, ["CREATE", "UPDATE"], opts.guards_failure_policy, "None", ["v1"], True,
                    True)
            out(got == want, f"guard {w.get('name')} for {res}: (path, groups, versions, operations, failurePolicy, "
                             f"sideEffects, reviewVersions, skips codeflare.dev/workload, namespaceSelector) {got}, "
                             f"want {want}")

    # --- the Service every webhook calls ---
    targets = {(w["clientConfig"].get("service", {}).get("name"), w["clientConfig"].get("service", {}).get("namespace"),
                w["clientConfig"].get("service", {}).get("port", 443)) for _, w in hooks}
    out(len(targets) == 1, f"every webhook calls one Service: {sorted(targets, key=str)}")
    svc_name = None
    if len(targets) == 1:
        svc_name, svc_ns, svc_port = next(iter(targets))
        svc = services.get(svc_name)
        if svc is None:
            out(False, f"the webhooks call Service {svc_name}, which the output does not have")
        else:
            sel = svc["spec"].get("selector") or {}
            picks = bool(sel) and all(pod_labels(dep).get(k) == v for k, v in sel.items())
            sp = [pt for pt in svc["spec"].get("ports") or [] if pt.get("port") == svc_port]
            tgt = sp[0].get("targetPort") if sp else None
            out(svc_ns == dep_ns == ns_of(svc) and picks and tgt in ("webhook-server", ports.get("webhook-server"))
                and "webhook-server" in ports,
                f"Service {svc_name} ({ns_of(svc)}; the webhooks say {svc_ns}) selects the Deployment's pods: {picks}; "
                f"port {svc_port} targets {tgt!r}, the container's webhook-server port {ports.get('webhook-server')}")

    # --- the Deployment's flags, names and volume ---
    flags = flags_of(container)
    bind = flags.get("webhook-bind-address", [":9443"])
    out(bind == [f":{ports.get('webhook-server')}"],
        f"--webhook-bind-address {bind} names the container port webhook-server ({ports.get('webhook-server')})")
    out(flags.get("webhook-service") == [svc_name], f"--webhook-service {flags.get('webhook-service')} is the "
                                                    f"Service the webhooks call ({svc_name})")
    conf_names = sorted(name_of(c) for c in configs)
    out(sorted(flags.get("webhook-configuration", [])) == conf_names,
        f"--webhook-configuration {sorted(flags.get('webhook-configuration', []))}, want the output's configurations "
        f"{conf_names}")
    secret_names = [name_of(s) for s in secrets if ns_of(s) == dep_ns]
    want_secret = "" if opts.cert_manager else (secret_names[0] if len(secret_names) == 1 else None)
    out(len(secret_names) == 1 and flags.get("webhook-cert-secret", [""]) == [want_secret],
        f"--webhook-cert-secret {flags.get('webhook-cert-secret', [''])}, want {want_secret!r} (Secrets of "
        f"{dep_ns}: {secret_names})")
    cert_dir = flags.get("webhook-cert-dir", [DEFAULT_CERT_DIR])[0]
    mounts = [m for m in container.get("volumeMounts") or [] if m.get("mountPath") == cert_dir]
    volumes = {v.get("name"): v for v in pod.get("volumes") or []}
    vol = volumes.get(mounts[0].get("name")) if len(mounts) == 1 else None
    if opts.cert_manager:
        ok = vol is not None and (vol.get("secret") or {}).get("secretName") in secret_names and "emptyDir" not in vol
    else:
        ok = vol is not None and "emptyDir" in vol and "secret" not in vol
    out(ok, f"the certificate folder {cert_dir} is {'the Secret' if opts.cert_manager else 'an emptyDir'}: {vol}")
    if opts.run_help:
        with open(opts.run_help, encoding="utf-8") as f:
            known = set(re.findall(r"^\s*(?:-\w, )?--([a-z0-9-]+)", f.read(), re.M))
        webhook_flags = sorted(k for k in flags if k.startswith("webhook-"))
        out(set(webhook_flags) <= known, f"`run --help` documents {webhook_flags}")

    # --- RBAC ---
    sa = pod.get("serviceAccountName")
    rules = role_rules_for(docs, sa, dep_ns)
    secret_rights, config_rights = set(), set()
    stray = []
    for kind, role, where, r in rules:
        for res in r.get("resources") or []:
            for g in r.get("apiGroups") or []:
                names = tuple(r.get("resourceNames") or ["*"])
                for verb in r.get("verbs") or []:
                    if (g, res) == ("", "secrets"):
                        if kind == "Role" and where == dep_ns:
                            secret_rights.add((verb, names))
                        else:
                            stray.append(f"{kind} {role}: {verb} secrets")
                    elif (g, res) == ("admissionregistration.k8s.io", "validatingwebhookconfigurations"):
                        config_rights.update((verb, n) for n in names)
                    elif g in ("", "*") and res == "*" or g == "*":
                        stray.append(f"{kind} {role}: wildcard {g}/{res}")
    want_secret_rights = {("get", tuple(secret_names)), ("update", tuple(secret_names))}
    out(secret_rights == want_secret_rights and not stray,
        f"the ServiceAccount may {sorted(secret_rights)} on Secrets of {dep_ns}, want {sorted(want_secret_rights)}; "
        f"elsewhere: {stray}")
    want_config_rights = {(v, n) for v in ("get", "patch") for n in conf_names}
    out(config_rights == want_config_rights,
        f"the ServiceAccount may {sorted(config_rights)} on ValidatingWebhookConfigurations, want "
        f"{sorted(want_config_rights)}")

    # --- cert-manager ---
    certs = [d for d in docs if d.get("kind") == "Certificate"]
    annotated = {name_of(c): (c["metadata"].get("annotations") or {}).get(INJECT) for c in configs}
    if not opts.cert_manager:
        out(not certs and not any(annotated.values()),
            f"no Certificate ({[name_of(c) for c in certs]}) and no {INJECT} annotation ({annotated})")
        return
    if len(certs) != 1:
        out(False, f"{len(certs)} Certificates, want 1")
        return
    cert = certs[0]
    spec = cert.get("spec") or {}
    want_dns = [f"{svc_name}.{dep_ns}.svc", f"{svc_name}.{dep_ns}.svc.cluster.local"]
    issuers = {(d.get("kind"), name_of(d)) for d in docs if d.get("kind") in ("Issuer", "ClusterIssuer")}
    ref = spec.get("issuerRef") or {}
    out(spec.get("secretName") in secret_names and sorted(spec.get("dnsNames") or []) == sorted(want_dns)
        and (ref.get("kind", "Issuer"), ref.get("name")) in issuers and ns_of(cert) == dep_ns,
        f"Certificate {name_of(cert)}: secretName {spec.get('secretName')} (Secrets {secret_names}), dnsNames "
        f"{spec.get('dnsNames')} (want {want_dns}), issuerRef {ref} (Issuers of the output {sorted(issuers)})")
    want_ann = f"{dep_ns}/{name_of(cert)}"
    out(all(v == want_ann for v in annotated.values()), f"every configuration has {INJECT}: {want_ann}: {annotated}")


if __name__ == "__main__":
    main()

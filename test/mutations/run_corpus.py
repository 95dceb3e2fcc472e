#!/usr/bin/env python3
"""Mutation corpus test of `codeflare-operator validate`.

Builds a deterministic corpus of single mutations of valid samples (config/samples rendered with `render`, and the
shared upstream samples that the validator accepts), each labelled with its verdict, path and rule
(schema_mutations.py, rule_mutations.py), runs `validate -o json` on it in a few batches, and checks that
  * every base sample is valid (the upstream samples it rejects are listed, with the reason, and left out),
  * every invalid mutation is rejected with an error at its path, with its rule (unless the rule id is marked as
    unstable: CEL-based rules may change ids),
  * every valid mutation passes, with the expected warning where one is named,
  * every rule id of controller/validation/rules/*.cpp and every schema family is covered, and N >= 500.
With --server it also sends the objects to the apiserver of KUBECONFIG with `kubectl create --dry-run=server`
(the 1.20 test control plane) and compares verdicts where the apiserver can judge (see corpus_base
SERVER_JUDGED_FAMILIES): a disagreement fails the test.

Known validator bugs are listed in known_failures.py. Output: a summary, the failures, exit 0 or 1.

Usage: run_corpus.py --operator BIN --crds DIR [--shared DIR] [--repo DIR] [--server] [--keep DIR] [--seed S]
                     [--jobs N] [--list]
"""
import argparse
import collections
import concurrent.futures
import copy
import glob
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from corpus_base import (Mutation, SERVER_JUDGED_FAMILIES, ptr_path, load_crds, render_our_samples,  # noqa: E402
                         upstream_samples, composed_sets, dump_docs, get_at, kueue_max_pod_sets)
from schema_mutations import SchemaMutator  # noqa: E402
from rule_mutations import GENERATORS, Ctx  # noqa: E402
from known_failures import KNOWN_FAILURES  # noqa: E402
from kuberay_pod import build_pod, pod_path_to_template  # noqa: E402

WANTED_KINDS = ("RayCluster", "RayJob", "AppWrapper", "ClusterQueue", "LocalQueue", "ResourceFlavor",
                "WorkloadPriorityClass")

# Schema rule families that must each have at least one mutation.
REQUIRED_FAMILIES = ("schema:type", "schema:required", "schema:default", "schema:enum", "schema:pattern",
                     "schema:maxLength", "schema:minLength", "schema:maxItems", "schema:minItems", "schema:minimum",
                     "schema:maxProperties", "schema:unknownField", "schema:listMapDuplicate",
                     "schema:listSetDuplicate", "schema:intOrString", "schema:nullable", "embedded", "metadata")

MIN_MUTATIONS = 500


def log(*a):
    print(*a, flush=True)


# ---- rule ids of the validator --------------------------------------------------------------------------------

def validator_rule_ids(repo):
    """Every rule id reported by a Sink call in controller/validation/rules/*.cpp: the first string literal in the
    call that looks like a rule id (CamelCase, or schema:<keyword>); and every string literal that names an upstream
    validation function (validateX / ValidateX: the rule ids of the core/v1 Pod port, some passed to helpers) or an
    upstream Pod Security check (CheckX: pod_security_checks.cpp passes them to its own reporting helpers)."""
    ids = set()
    for path in sorted(glob.glob(os.path.join(repo, "controller", "validation", "rules", "*.cpp"))):
        text = open(path, encoding="utf-8").read()
        ids.update(re.findall(r'"([vV]alidate[A-Z][A-Za-z0-9]*|Check[A-Z][A-Za-z0-9]*)"', text))
        for m in re.finditer(r"\bsink\.(?:error|warn|add)\(", text):
            depth, i = 1, m.end()
            while i < len(text) and depth:
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
            for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', text[m.end():i]):
                if re.fullmatch(r"[A-Z][A-Za-z0-9]+|schema:[A-Za-z]+", lit):
                    ids.add(lit)
                    break
    return ids


# ---- running validate ---------------------------------------------------------------------------------------------

def run_validate(operator, crds, files_dir, profile="vanilla", pod_security="privileged"):
    """(exit code, findings list) of one `validate -o json` run over the files of DIR, each given with its own -f: a
    folder given with -f would be one closed set, while every corpus file is a set of its own."""
    args = [operator, "validate", "--crds", crds, "-o", "json", "--profile", profile,
            "--pod-security-level", pod_security]
    for name in sorted(os.listdir(files_dir)):
        args += ["-f", os.path.join(files_dir, name)]
    proc = subprocess.run(args, capture_output=True, text=True)
    findings = []
    if proc.returncode in (0, 1):
        try:
            findings = json.loads(proc.stdout) if proc.stdout.strip() else []
        except ValueError:
            return 2, [], "unparsable output: " + proc.stdout[:500]
    return proc.returncode, findings, proc.stderr


def validate_files(operator, crds, files, work, jobs, profiles=None):
    """{file: [findings]} for a list of corpus files, in `jobs` parallel batches per way of judging (one validate
    process each); `profiles` maps a file to (cluster profile, Pod Security level), default (vanilla, privileged)."""
    by_profile = collections.defaultdict(list)
    for f in files:
        by_profile[(profiles or {}).get(f, ("vanilla", "privileged"))].append(f)
    batches = []  # (folder, (profile, level))
    for (profile, level), group in sorted(by_profile.items()):
        for i in range(jobs):
            chunk = group[i::jobs]
            if not chunk:
                continue
            d = os.path.join(work, "batch-%s-%s-%d" % (profile, level, i))
            os.makedirs(d, exist_ok=True)
            for f in chunk:
                os.link(f, os.path.join(d, os.path.basename(f)))
            batches.append((d, (profile, level)))
    dirs = [d for d, _ in batches]
    by_file = {os.path.basename(f): [] for f in files}
    codes = {}
    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        results = list(pool.map(lambda b: run_validate(operator, crds, b[0], *b[1]), batches))
    for d, (rc, findings, err) in zip(dirs, results):
        if rc == 2:
            raise RuntimeError("validate -f %s exited 2: %s" % (d, err[-2000:]))
        for f in findings:
            by_file.setdefault(os.path.basename(f["file"]), []).append(f)
        has_error = any(f["severity"] == "error" for f in findings)
        codes[d] = (rc, has_error)
    for d, (rc, has_error) in codes.items():
        if rc != (1 if has_error else 0):
            raise RuntimeError("validate -f %s: exit code %d but error findings: %s" % (d, rc, has_error))
    for d in dirs:
        shutil.rmtree(d)
    return by_file


# ---- checking verdicts ----------------------------------------------------------------------------------------

def errors_of(findings, doc=None):
    return [f for f in findings if f["severity"] == "error" and (doc is None or f["document"] == doc)]


def brief(findings, n=4):
    return "; ".join("%s %s [%s]" % (f["path"] or "<object>", f["reason"][:90], f["rule"]) for f in findings[:n]) + \
        (" (+%d more)" % (len(findings) - n) if len(findings) > n else "")


def check(m, findings):
    """(ok, problem, rule_drift) for one mutation."""
    if m.expect == "invalid":
        errs = errors_of(findings, m.doc_index)
        if not errs:
            return False, "accepted, expected an error at %s [%s]%s" % (
                m.path, m.rule, "; warnings: " + brief(findings) if findings else ""), None
        at = [f for f in errs if f["path"] == m.path]
        if not at:
            return False, "rejected, but not at %s [%s]: %s" % (m.path, m.rule, brief(errs)), None
        if m.rules and not any(f["rule"] in m.rules for f in at):
            got = ", ".join(sorted({f["rule"] for f in at}))
            if m.rule_stable:
                return False, "error at %s with rule %s, expected %s" % (m.path, got, "/".join(m.rules)), None
            if all(f["rule"].startswith("cel:") for f in at):
                return True, None, "cel"  # the CEL evaluator reports this rule under the CRD's own message
            return True, None, "%s: rule %s instead of %s" % (m.path, got, "/".join(m.rules))
        return True, None, None
    errs = errors_of(findings)
    if errs:
        return False, "rejected, expected valid: %s" % brief(errs), None
    if m.warn:
        wpath, wrule = m.warn
        if not any(f["path"] == wpath and f["rule"] == wrule for f in findings):
            return False, "valid, but no warning %s at %s (warnings: %s)" % (wrule, wpath, brief(findings) or "none"), \
                None
    return True, None, None


def known_failure(m):
    for n, kf in enumerate(KNOWN_FAILURES):
        fields = {"base": m.base, "family": m.family, "path": m.path or "", "note": m.note}
        if all(re.search(kf[k], fields[k]) for k in ("base", "family", "path", "note") if k in kf):
            return n
    return None


# ---- the apiserver ------------------------------------------------------------------------------------------------

def kubectl(args, kubeconfig, timeout=300):
    return subprocess.run([os.environ.get("KUBECTL", "kubectl"), "--kubeconfig", kubeconfig] + args,
                          capture_output=True, text=True, timeout=timeout)


def server_mode(m):
    """'compare': the apiserver must reach our verdict; 'observe': sent, its verdict only reported;
    'skip': not sent (why in m.server)."""
    s = m.server or ""
    if len(m.docs) > 1 or s.startswith("not sent"):
        return "skip"
    if s == "judged":
        return "compare"
    return "compare" if m.expect == "valid" else "observe"


def server_copy(m, base_doc, ns, seq):
    """The object as sent: given a name unique in this run and moved to the test namespace, unless the mutation is
    about its name or namespace."""
    obj = copy.deepcopy(m.docs[m.doc_index])
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else None
    if meta is None:
        return obj
    base_meta = base_doc.get("metadata") or {}
    if meta.get("namespace") == base_meta.get("namespace"):
        if obj.get("kind") in ("ClusterQueue", "ResourceFlavor", "WorkloadPriorityClass", "Cohort"):
            meta.pop("namespace", None)
        else:
            meta["namespace"] = ns
    if all(meta.get(k) == base_meta.get(k) for k in ("name", "generateName")):
        meta["name"] = "m%04d-%s" % (seq, str(obj.get("kind", "x")).lower()[:30])
        meta.pop("generateName", None)
    return obj


def dry_run(entries, kubeconfig, work, jobs):
    """entries: [(key, object)] -> {key: (accepted, message)}. Objects go in batches, one `kubectl create
    --dry-run=server` per batch, with at most one object of each kind and name per batch (the verdict of an object
    is read back by kind and name); objects without a name (generateName) are sent alone."""
    out = {}
    batches, solo = [], []
    for key, obj in entries:
        name = get_at(obj, ("metadata", "name"))
        if not isinstance(name, str) or not name:
            solo.append((key, obj))
            continue
        ident = (str(obj.get("kind", "")).lower(), name)
        for batch in batches:
            if ident not in batch:
                batch[ident] = (key, obj)
                break
        else:
            batches.append({ident: (key, obj)})
    # split the big first batches so that the parallel kubectl calls get similar shares
    size = max(1, (len(entries) + jobs * 2 - 1) // (jobs * 2))
    chunks = []
    for batch in batches:
        items = list(batch.items())
        chunks += [items[i:i + size] for i in range(0, len(items), size)]

    def run(n_chunk):
        n, chunk = n_chunk
        path = os.path.join(work, "dry-run-%03d.json" % n)
        with open(path, "w") as f:  # a JSON stream: kubectl reads a file that starts with '{' as one
            f.write("\n".join(json.dumps(obj) for _, (_, obj) in chunk) + "\n")
        proc = kubectl(["create", "--dry-run=server", "--validate=false", "-o", "name", "-f", path], kubeconfig)
        accepted = set()
        for line in proc.stdout.split():
            resource, _, name = line.partition("/")
            accepted.add((resource.split(".")[0], name))
        messages = collections.defaultdict(list)
        for line in proc.stderr.splitlines():
            for kind, name in re.findall(r'(\w+)\.[\w.-]+ "([^"]*)" is invalid', line):
                messages[(kind.lower(), name)].append(line.strip())
            for kind, name in re.findall(r'(?:^|[\s:])([A-Z]\w*) "([^"]*)" is invalid', line):  # core kinds (Pod)
                if (kind.lower(), name) not in messages:
                    messages[(kind.lower(), name)].append(line.strip())
        res = {}
        for ident, (key, obj) in chunk:
            ok = ident in accepted
            res[key] = (ok, " | ".join(messages.get(ident, [])) or ("" if ok else proc.stderr.strip()[-600:]))
        return res

    def run_solo(n_entry):
        n, (key, obj) = n_entry
        path = os.path.join(work, "dry-run-solo-%03d.json" % n)
        with open(path, "w") as f:
            f.write(json.dumps(obj) + "\n")
        proc = kubectl(["create", "--dry-run=server", "--validate=false", "-o", "name", "-f", path], kubeconfig)
        return {key: (proc.returncode == 0 and bool(proc.stdout.strip()), proc.stderr.strip()[-600:])}

    with concurrent.futures.ThreadPoolExecutor(jobs) as pool:
        for res in pool.map(run, enumerate(chunks)):
            out.update(res)
        for res in pool.map(run_solo, enumerate(solo)):
            out.update(res)
    return out


# ---- main ---------------------------------------------------------------------------------------------------------

def collect_bases(args):
    bases = render_our_samples(args.operator, args.crds, args.repo)
    up = upstream_samples(args.shared)
    return bases + up + composed_sets(up)


def generate(accepted, crds, crds120, seed, max_pod_sets=8):
    schema = SchemaMutator(crds, crds120, seed)
    muts = []
    for b in accepted:
        b.max_pod_sets = max_pod_sets
        if not b.is_set:
            muts += schema.mutations(b)
        c = Ctx(b)
        for gen in GENERATORS:
            if b.is_set and gen.__name__ != "kueue_references":
                continue
            muts += list(gen(c))
    seen, corpus = set(), []
    for m in muts:  # two generators may reach the same change
        key = json.dumps([m.docs, m.doc_index, m.expect], sort_keys=True)
        if key not in seen:
            seen.add(key)
            corpus.append(m)
    counters = collections.Counter()
    for m in corpus:
        counters[m.base] += 1
        m.id = "%s#%03d" % (m.base, counters[m.base])
    return corpus


def write_files(directory, named_docs):
    os.makedirs(directory)
    files = []
    for name, docs in named_docs:
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            f.write(dump_docs(docs))
        files.append(path)
    return files


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--operator", default=os.environ.get("CFO_OPERATOR_BIN"))
    ap.add_argument("--crds", default=os.environ.get("UPSTREAM_CRDS"), help="folder laid out like shared/crds")
    ap.add_argument("--shared", default=os.environ.get("CFO_SHARED_DIR"))
    ap.add_argument("--repo", default=os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))
    ap.add_argument("--server", action="store_true", help="also dry-run on the apiserver of KUBECONFIG")
    ap.add_argument("--keep", help="write the corpus to this folder and keep it")
    ap.add_argument("--seed", default="cfo-mutations-1")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true", help="print every mutation")
    args = ap.parse_args()
    if not args.operator or not os.access(args.operator, os.X_OK):
        log("error: --operator (or CFO_OPERATOR_BIN) must name the codeflare-operator binary")
        return 2
    if not args.crds or not os.path.isdir(os.path.join(args.crds, "upstream")):
        log("skip: UPSTREAM_CRDS is unset or has no upstream/ folder")
        return 0
    if not args.shared or not os.path.isdir(os.path.join(args.shared, "samples", "upstream")):
        log("skip: CFO_SHARED_DIR is unset or has no samples/upstream (the upstream samples are needed)")
        return 0
    if args.server and not os.path.isfile(os.environ.get("KUBECONFIG", "")):
        log("error: --server needs KUBECONFIG (the control plane's kubeconfig)")
        return 2
    t0 = time.time()
    crds = load_crds(os.path.join(args.crds, "upstream"), WANTED_KINDS)
    crds120 = load_crds(os.path.join(args.crds, "apiserver-1.20"), WANTED_KINDS) \
        if os.path.isdir(os.path.join(args.crds, "apiserver-1.20")) else {}
    work = args.keep or tempfile.mkdtemp(prefix="cfo-mutations-")
    if args.keep:
        shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work, exist_ok=True)
    failures = []
    try:
        # 1. the bases, and which of them the validator accepts
        bases = collect_bases(args)
        files = write_files(os.path.join(work, "bases"), [(b.id + ".json", b.docs) for b in bases])
        found = validate_files(args.operator, args.crds, files, work, 1)
        accepted, rejected = [], []
        for b in bases:
            errs = errors_of(found.get(b.id + ".json", []))
            if errs:
                rejected.append((b, errs))
            else:
                accepted.append(b)
        log("bases: %d valid (%d of our rendered samples, %d upstream objects, %d closed sets), %d rejected" % (
            len(accepted), sum(b.origin == "ours" for b in accepted), sum(b.origin == "upstream" for b in accepted),
            sum(b.origin == "set" for b in accepted), len(rejected)))
        for b, errs in rejected:
            log("  rejected base %s (%s), not mutated: %s" % (b.id, b.source, brief(errs, 6)))
            # Our samples and the upstream valid samples (alone, and as the closed sets built from them) must pass.
            failures.append("%s sample %s is rejected: %s" % (b.origin, b.id, brief(errs)))

        # 2. the mutations, validated in a few batches
        corpus = generate(accepted, crds, crds120, args.seed,
                          kueue_max_pod_sets(os.path.join(args.crds, "upstream")))
        names = ["m%05d.json" % n for n in range(len(corpus))]
        files = write_files(os.path.join(work, "corpus"), [(nm, m.docs) for nm, m in zip(names, corpus)])
        t1 = time.time()
        found = validate_files(args.operator, args.crds, files, work, max(1, args.jobs),
                               {f: (m.profile, m.pod_security) for f, m in zip(files, corpus)})
        t_validate = time.time() - t1
        ok_ids, ours_rejects, drift, known, known_ids = set(), {}, [], [], set()
        known_hit, cel_matches = collections.Counter(), collections.Counter()
        for name, m in zip(names, corpus):
            findings = found.get(name, [])
            ours_rejects[m.id] = bool(errors_of(findings, None if m.expect == "valid" else m.doc_index))
            ok, problem, rule_drift = check(m, findings)
            if rule_drift == "cel":
                cel_matches[m.rule] += 1
            elif rule_drift:
                drift.append("%s: %s" % (m.id, rule_drift))
            if ok:
                ok_ids.add(m.id)
                continue
            line = "%s [%s, %s] expect %s: %s\n      -> %s" % (m.id, m.family, m.rule, m.expect, m.note, problem)
            kf = known_failure(m)
            if kf is not None:
                known.append(line)
                known_ids.add(m.id)
                known_hit[kf] += 1
            else:
                failures.append(line)
        for n, kf in enumerate(KNOWN_FAILURES):
            if not known_hit[n]:
                failures.append("known failure %d (%s) no longer fails: remove it from known_failures.py" %
                                (n, kf.get("reason", "")[:120]))

        # 3. coverage: every rule id of the validator, every schema family, enough mutations
        rule_ids = validator_rule_ids(args.repo)
        covered = set()
        for m in corpus:
            covered.update(m.rules)
            if m.warn:
                covered.add(m.warn[1])
        uncovered = sorted(r for r in rule_ids if r not in covered)
        if uncovered:
            failures.append("rule ids of controller/validation/rules/*.cpp without a mutation: " + ", ".join(uncovered))
        fam = collections.Counter(m.family for m in corpus)
        missing = [f for f in REQUIRED_FAMILIES if not fam[f]]
        if missing:
            failures.append("schema families without a mutation: " + ", ".join(missing))
        if len(corpus) < MIN_MUTATIONS:
            failures.append("only %d mutations (at least %d wanted)" % (len(corpus), MIN_MUTATIONS))

        # 4. the apiserver
        server_lines, server_agree = [], collections.Counter()
        if args.server:
            server_lines, server_failures, server_agree = compare_with_server(
                args, corpus, accepted, ours_rejects, known_ids, work)
            failures += server_failures

        # 5. the summary
        if args.list:
            for m in corpus:
                log("  %s %s" % ("ok  " if m.id in ok_ids else "FAIL", m.describe()))
        log("")
        log("mutation corpus: %d mutations (%d invalid, %d valid) from %d bases; validate took %.1fs, all %.1fs" % (
            len(corpus), sum(m.expect == "invalid" for m in corpus), sum(m.expect == "valid" for m in corpus),
            len(accepted), t_validate, time.time() - t0))
        log("per family: mutations (invalid/valid)%s" % (", agreements with the apiserver" if args.server else ""))
        for f in sorted(fam):
            inv = sum(1 for m in corpus if m.family == f and m.expect == "invalid")
            log("  %-24s %5d  (%d/%d)%s%s" % (
                f, fam[f], inv, fam[f] - inv, "  judged by the 1.20 apiserver" if f in SERVER_JUDGED_FAMILIES else "",
                ("  agreements %d" % server_agree[f]) if args.server else ""))
        per_rule = collections.Counter()
        for m in corpus:
            if m.expect == "invalid":
                per_rule[m.rule] += 1
            elif m.warn:
                per_rule[m.warn[1] + " (warning)"] += 1
        log("per rule: %d rule ids in rules/*.cpp, %d covered; invalid mutations (and valid ones with a warning):" % (
            len(rule_ids), len(rule_ids) - len(uncovered)))
        items = sorted(per_rule.items())
        for i in range(0, len(items), 3):
            log("  " + "".join("%-42s" % ("%s %d" % kv) for kv in items[i:i + 3]))
        for line in server_lines:
            log(line)
        if cel_matches:
            log("rules reported by the CEL evaluator under the CRD's message (rule id cel:...): " +
                ", ".join("%s %d" % kv for kv in sorted(cel_matches.items())))
        if drift:
            log("other rule ids that changed (rules marked unstable, not failures): %d" % len(drift))
            for d in drift[:20]:
                log("  " + d)
        if known:
            log("known failures (validator bugs listed in known_failures.py): %d" % len(known))
            for line in known[:10]:
                log("  " + line)
            if len(known) > 10:
                log("  ... and %d more" % (len(known) - 10))
        if failures:
            log("FAILURES: %d" % len(failures))
            for line in failures:
                log("  " + line)
            return 1
        log("OK: every mutation behaves as labelled (%d known failures)" % len(known))
        return 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


OBSERVE_PER_RULE = 3  # invalid mutations of rules the apiserver does not judge: a few per rule are sent anyway
VALID_PER_NOTE = 3    # valid mutations of those rules: a few per kind of change (they must all be accepted)


def compare_with_server(args, corpus, accepted, ours_rejects, known_ids, work):
    """Dry-runs the bases and the mutations on the apiserver; returns (summary lines, failures, agreements)."""
    kubeconfig = os.environ["KUBECONFIG"]
    ns = "cfo-mutations-%d" % random.Random().randint(10000, 99999)
    proc = kubectl(["create", "namespace", ns], kubeconfig)
    if proc.returncode != 0:
        return [], ["cannot create namespace %s: %s" % (ns, proc.stderr.strip())], collections.Counter()
    extra_ns = set()
    try:
        base_doc = {b.id: b.docs[0] for b in accepted}
        todo = []
        for b in accepted:  # the bases themselves
            if not b.is_set:
                m = Mutation(b.id, "base", "valid", None, (), b.docs, 0, "the base sample", server="judged")
                m.id = b.id + "#base"
                ours_rejects[m.id] = False
                todo.append(m)
        modes, observed_per_rule, valid_per_note = {}, collections.Counter(), collections.Counter()
        for m in corpus:
            mode = server_mode(m)
            if mode == "observe":
                observed_per_rule[m.rule] += 1
                if observed_per_rule[m.rule] > OBSERVE_PER_RULE:
                    mode = "skip"
            elif mode == "compare" and m.family not in SERVER_JUDGED_FAMILIES:
                # valid mutations of rules the apiserver does not judge: the same change on other bases adds little
                valid_per_note[(m.family, m.note)] += 1
                if valid_per_note[(m.family, m.note)] > VALID_PER_NOTE:
                    mode = "skip"
            modes[m.id] = mode
            if mode != "skip":
                todo.append(m)
        for m in todo:
            modes.setdefault(m.id, "compare")
        entries = []
        for seq, m in enumerate(todo):
            obj = server_copy(m, base_doc[m.base], ns, seq)
            objns = get_at(obj, ("metadata", "namespace"))
            if isinstance(objns, str) and objns != ns and re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", objns):
                extra_ns.add(objns)
            entries.append((m.id, obj))
        for n in sorted(extra_ns):
            kubectl(["create", "namespace", n], kubeconfig)
        t0 = time.time()
        verdicts = dry_run(entries, kubeconfig, work, max(2, args.jobs + 1))
        elapsed = time.time() - t0
        by_id = {m.id: m for m in todo}
        failures, agree, known_dis, observed, observed_lines = [], collections.Counter(), [], collections.Counter(), []
        for key, (server_accepts, msg) in sorted(verdicts.items()):
            m = by_id[key]
            if modes[key] == "compare":
                we_accept = not ours_rejects[key]
                if we_accept == server_accepts:
                    agree[m.family] += 1
                    continue
                line = "%s [%s, %s] %s: we say %s, the apiserver %s%s" % (
                    key, m.family, m.rule, m.note, "valid" if we_accept else "invalid",
                    "accepts" if server_accepts else "rejects", (": " + msg[:300]) if msg else "")
                (known_dis if key in known_ids else failures).append(line)
            else:
                observed["accepted" if server_accepts else "rejected"] += 1
                if not server_accepts:
                    observed_lines.append("    %s [%s] %s: %s" % (key, m.rule, m.note, msg[:160]))
        pod_lines, pod_failures = compare_pods(corpus, accepted, ours_rejects, known_ids, kubeconfig, work, ns,
                                               max(2, args.jobs + 1))
        failures += pod_failures
        compared = sum(1 for k in verdicts if modes[k] == "compare")
        lines = [
            "apiserver (kubectl create --dry-run=server, namespace %s): %d objects in %.1fs" % (ns, len(verdicts),
                                                                                               elapsed),
            "  compared with our verdict: %d (%d bases), agreements %d, disagreements %d (%d of them known failures)"
            % (compared, sum(1 for k in verdicts if k.endswith("#base")), sum(agree.values()),
               len(failures) + len(known_dis), len(known_dis)),
            "  rules it does not judge: %d invalid mutations sent (at most %d per rule), %d accepted, %d rejected" % (
                observed["accepted"] + observed["rejected"], OBSERVE_PER_RULE, observed["accepted"],
                observed["rejected"])]
        if observed_lines:
            lines.append("  of those, rejected by the apiserver as well:")
            lines += observed_lines[:12]
        for line in known_dis[:6]:
            lines.append("  known disagreement: " + line)
        lines += pod_lines
        return lines, ["apiserver disagrees: " + f for f in failures], agree
    finally:
        kubectl(["delete", "namespace", ns, "--wait=false"], kubeconfig)
        for n in sorted(extra_ns):
            kubectl(["delete", "namespace", n, "--wait=false"], kubeconfig)


# ---- the differential test of the Pod rules -----------------------------------------------------------------------

_FIELD_PATH = re.compile(r"((?:metadata|spec)(?:\.[A-Za-z0-9_/-]+|\[[^\]]*\])+)")
# Where the apiserver's internal types put v1 PodSpec fields (it reports the internal path).
_INTERNAL_FIELDS = re.compile(r"\.securityContext\.(shareProcessNamespace|hostNetwork|hostPID|hostIPC|hostUsers)\b")


def _normal(p):
    """A field path with map keys written as `.key` and the internal securityContext fields moved back."""
    p = re.sub(r"\[([^\]0-9][^\]]*)\]", r".\1", p)
    return _INTERNAL_FIELDS.sub(r".\1", p)


def _related(ours, theirs, tmpl):
    """True when the apiserver's path `theirs` (made absolute with the template path `tmpl`) names the field of our
    path `ours`: the same field, one inside the other or siblings (list indices aside, as some upstream paths leave
    them out), or a field of the same list item of the template (the first indexed element: one container, volume,
    toleration...), since some upstream rules report the neighbour of the field at fault."""
    def inside(x, y):
        return x == y or (x.startswith(y) and x[len(y)] in ".[")

    def parent(x):
        return re.sub(r"(\.[A-Za-z0-9_/-]+|\[[^\]]*\])$", "", x)
    a, b = _normal(ours), _normal(theirs)
    for x, y in ((a, b), (re.sub(r"\[\d+\]", "", a), re.sub(r"\[\d+\]", "", b))):
        if inside(x, y) or inside(y, x) or parent(x) == parent(y):
            return True
    rel = a[len(tmpl):] if a.startswith(tmpl) else a
    m = re.match(r"^(.*?\[\d+\])", rel)
    return bool(m) and b.startswith(tmpl + m.group(1))


def prerequisites(pods, kubeconfig, ns):
    """Creates the ServiceAccounts (in `ns`), PriorityClasses and RuntimeClasses that `pods` name and that do not
    exist yet; returns the cluster-scoped ones it made ("priorityclass/NAME", "runtimeclass/NAME")."""
    sas, pcs, rcs = set(), set(), set()
    for pod in pods:
        spec = pod.get("spec") or {}
        for field, into in (("serviceAccountName", sas), ("priorityClassName", pcs), ("runtimeClassName", rcs)):
            v = spec.get(field)
            if isinstance(v, str) and v and v != "default":
                into.add(v)
    objs = [{"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": n, "namespace": ns}} for n in sas]
    made = []
    for n in sorted(pcs):
        if kubectl(["get", "priorityclass", n], kubeconfig).returncode != 0:
            objs.append({"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": n},
                         "value": 1000})
            made.append("priorityclass/" + n)
    for n in sorted(rcs):
        if kubectl(["get", "runtimeclass", n], kubeconfig).returncode != 0:
            objs.append({"apiVersion": "node.k8s.io/v1", "kind": "RuntimeClass", "metadata": {"name": n},
                         "handler": "runc"})
            made.append("runtimeclass/" + n)
    for obj in objs:
        proc = subprocess.run([os.environ.get("KUBECTL", "kubectl"), "--kubeconfig", kubeconfig, "apply", "-f", "-"],
                              input=json.dumps(obj), capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            print("note: could not create %s %s: %s" % (obj["kind"], obj["metadata"]["name"], proc.stderr.strip()))
    return made


def compare_pods(corpus, accepted, ours_rejects, known_ids, kubeconfig, work, ns, jobs):
    """The differential test of the core/v1 Pod rules: for each Pod-template mutation of a RayCluster (Mutation.pod),
    the Pod KubeRay v1.7 would create from it (kuberay_pod.build_pod) is dry-run on the apiserver, whose verdict and
    field path must match ours. Cases whose rule differs in the 1.20 test apiserver (pod_rule_cases.yaml `server`)
    are not sent; they are counted as expected differences. Returns (summary lines, failures)."""
    entries, info, expected = [], {}, collections.Counter()
    seq = 0

    def add(key, cluster, node, gi, m):
        nonlocal seq
        pod = build_pod(cluster, node, gi, ns)
        if pod is None:
            return
        seq += 1
        pod["metadata"].setdefault("name", "pod-%05d" % seq)
        entries.append((key, pod))
        info[key] = m

    for b in accepted:  # the Pods of the valid bases themselves
        doc = b.docs[0]
        if b.is_set or kind_of_doc(doc) != ("ray.io/v1", "RayCluster"):
            continue
        add(b.id + "#head-pod", doc, "head", 0, None)
        add(b.id + "#worker-pod", doc, "worker", 0, None)
    for m in corpus:
        if not m.pod:
            continue
        if m.pod["server"] != "same":
            expected[m.pod["server"]] += 1
            continue
        gi = m.pod["tmpl_ptr"][-2] if m.pod["node"] == "worker" else 0
        add(m.id + "#pod", m.docs[m.doc_index], m.pod["node"], gi, m)
    if not entries:
        return [], []
    # The objects a Pod names must exist for the admission plugins that look them up (ServiceAccount, Priority,
    # RuntimeClass); a sample's overrides name some (cfw_pod_overrides.yaml). Made here, the cluster-wide ones removed
    # after.
    made = prerequisites([pod for _, pod in entries], kubeconfig, ns)
    t0 = time.time()
    try:
        verdicts = dry_run(entries, kubeconfig, work, jobs)
    finally:
        for ref in made:
            kubectl(["delete", "--ignore-not-found", ref], kubeconfig)
    failures, agree = [], 0
    for key, (server_accepts, msg) in sorted(verdicts.items()):
        m = info[key]
        if m is None:
            if not server_accepts:
                failures.append("%s: the Pod KubeRay builds from a valid base is refused: %s" % (key, msg[:300]))
            else:
                agree += 1
            continue
        we_accept = not ours_rejects[m.id]
        if we_accept != server_accepts:
            line = "%s [%s] %s: we say %s, the apiserver %s the Pod%s" % (
                key, m.rule, m.note, "valid" if we_accept else "invalid", "accepts" if server_accepts else "refuses",
                (": " + msg[:300]) if msg else "")
            (failures if m.id not in known_ids else []).append(line)
            continue
        if not server_accepts and m.expect == "invalid":
            tmpl = ptr_path(m.pod["tmpl_ptr"])
            theirs = [pod_path_to_template(p, tmpl) for p in _FIELD_PATH.findall(msg)]
            if m.rule == "PodName":
                ok = any(p.endswith("metadata.generateName") for p in theirs)
            else:
                ok = any(_related(m.path, p, tmpl) for p in theirs)
            if not ok:
                failures.append("%s [%s] %s: the apiserver refuses the Pod at other fields (%s) than ours (%s)" % (
                    key, m.rule, m.note, ", ".join(theirs[:4]) or msg[:200], m.path))
                continue
        agree += 1
    lines = ["Pods KubeRay v1.7 would create from the Pod-template mutations (kubectl create --dry-run=server): "
             "%d sent in %.1fs, agreements %d, disagreements %d" % (len(verdicts), time.time() - t0, agree,
                                                                     len(failures)),
             "  expected differences, not sent (%d mutations):" % sum(expected.values())]
    lines += ["    %4d  %s" % (n, why) for why, n in sorted(expected.items(), key=lambda kv: -kv[1])]
    return lines, ["Pod differential: " + f for f in failures]


def kind_of_doc(doc):
    return (doc.get("apiVersion"), doc.get("kind")) if isinstance(doc, dict) else (None, None)


if __name__ == "__main__":
    sys.exit(main())

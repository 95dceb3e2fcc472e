#!/usr/bin/env python3
"""Checks the Grafana dashboard and the alert rules of deploy/monitoring/ against the metrics the operator exports.

  check_monitoring.py check --dashboard JSON --rules YAML (--source DIR | --scrape FILE) [--promql-out FILE]

The exported metrics come from the registrations in controller/metrics/*.cpp (--source: BuildCounter().Name("...")
and the like), or from a real scrape of /metrics (--scrape: its "# TYPE" lines). Prints one line per check, "ok ..."
or "FAIL ...", and exits 0 (the caller counts the lines); exits 2 on unreadable input. Checks:
  dashboard  the JSON parses; a uid and a title; panel ids unique; every panel placed (gridPos) without overlapping
             another; every query panel has targets with an expr and a refId, on the ${datasource} variable; the
             variables datasource, job and instance exist.
  rules      alert names unique; each alert has an expr, a severity label of critical or warning, a summary and a
             description, and a "for" that is a Prometheus duration when given.
  names      every metric an expression reads is one the operator exports (or "up"), histograms through _bucket,
             _sum or _count; counters and histogram parts only inside rate/increase/irate; gauges never there;
             histogram_quantile aggregates by le. Every exported family appears in the dashboard.
  scoping    every selector of an operator metric matches the job: job="$job" in the dashboard, one and the same
             job="..." in all alerts (controller-runtime's names are shared by every operator built on it).
With --promql-out, the dashboard's expressions (Grafana variables replaced by plain values) are written as recording
rules, for `promtool check rules` to parse.
"""
import argparse
import json
import re
import sys

import yaml

# PromQL words that are not metric names.
KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless", "offset",
            "inf", "nan"}
RATE_FUNCS = {"rate", "increase", "irate"}
# Aggregations, which may put "by (...)" between their name and their parenthesis.
AGGREGATIONS = {"sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values", "bottomk", "topk",
                "quantile"}
HIST_SUFFIXES = ("_bucket", "_sum", "_count")
SYNTHETIC = {"up": "gauge"}
SEVERITIES = {"critical", "warning"}
DURATION = re.compile(r"^([0-9]+(ms|s|m|h|d|w|y))+$")


def out(ok, msg):
    print(("ok " if ok else "FAIL ") + msg)


# --- what the operator exports -------------------------------------------------------------------------------------


def exported_from_source(folder):
    import glob
    families = {}
    for path in sorted(glob.glob(f"{folder}/*.cpp")):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for kind, name in re.findall(r"Build(Counter|Gauge|Histogram|Summary)\(\)\s*\.Name\(\"([^\"]+)\"\)", text):
            families[name] = kind.lower()
    return families


def exported_from_scrape(path):
    families = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"# TYPE (\S+) (\S+)", line)
            if m:
                families[m.group(1)] = m.group(2)
    return families


# --- reading PromQL ----------------------------------------------------------------------------------------------


def tokens(expr):
    """(kind, text) tokens of a PromQL expression; string literals become ("str", ...)."""
    pos, found = 0, []
    spec = re.compile(r'\s+|"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|\[[^\]]*\]|[A-Za-z_:][A-Za-z0-9_:]*|'
                      r'[0-9][0-9.eE+-]*|\$\{?\w+\}?|!=|=~|!~|==|>=|<=|[(){},=<>+\-*/%^]')
    while pos < len(expr):
        m = spec.match(expr, pos)
        if not m:
            raise ValueError(f"cannot read {expr[pos:pos + 20]!r}")
        t = m.group(0)
        pos = m.end()
        if t.isspace():
            continue
        if t[0] in "\"'":
            found.append(("str", t[1:-1]))
        elif t[0] == "[":
            found.append(("range", t))
        elif re.match(r"[A-Za-z_:]", t):
            found.append(("ident", t))
        else:
            found.append(("punct", t))
    return found


def selectors(expr):
    """Every metric selector of `expr`: (name, {label: (op, value)}, enclosing function names innermost first)."""
    toks = tokens(expr)
    result, stack, pending, i = [], [], "", 0
    while i < len(toks):
        kind, text = toks[i]
        nxt = toks[i + 1] if i + 1 < len(toks) else (None, None)
        if kind == "ident" and text in ("by", "without", "on", "ignoring", "group_left", "group_right") \
                and nxt == ("punct", "("):
            depth = 0  # a label list: skip to its closing parenthesis
            while i < len(toks):
                if toks[i] == ("punct", "("):
                    depth += 1
                elif toks[i] == ("punct", ")"):
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
        elif kind == "ident" and nxt == ("punct", "("):
            stack.append(text)
            i += 1
        elif kind == "ident" and text in AGGREGATIONS:
            pending = text  # "sum by (x) (...)": the parenthesis after the label list is the sum's
        elif kind == "punct" and text == "(":
            stack.append(pending)
            pending = ""
        elif kind == "punct" and text == ")":
            if stack:
                stack.pop()
        elif kind == "ident" and text.lower() not in KEYWORDS:
            labels = {}
            if nxt == ("punct", "{"):
                i += 2
                while i < len(toks) and toks[i] != ("punct", "}"):
                    if toks[i][0] == "ident" and i + 2 < len(toks) and toks[i + 2][0] == "str":
                        labels[toks[i][1]] = (toks[i + 1][1], toks[i + 2][1])
                        i += 3
                    else:
                        i += 1
            result.append((text, labels, [f for f in reversed(stack) if f]))
        i += 1
    return result


def by_clauses(expr):
    return [[x.strip() for x in m.split(",")] for m in re.findall(r"\bby\s*\(([^)]*)\)", expr)]


def family_of(name, families):
    """(family, type) of a series name, allowing the histogram suffixes."""
    if name in families:
        return name, families[name]
    for suffix in HIST_SUFFIXES:
        base = name[: -len(suffix)]
        if name.endswith(suffix) and families.get(base) in ("histogram", "summary"):
            return base, families[base]
    return None, None


def check_expr(where, expr, families, job_matcher, used):
    """FAIL lines for one expression; records the families it uses."""
    problems = []
    try:
        sels = selectors(expr)
    except ValueError as e:
        return [f"{where}: {e}"]
    if not sels:
        problems.append(f"{where}: no metric in {expr!r}")
    for name, labels, funcs in sels:
        fam, typ = family_of(name, families)
        if fam is None and name in SYNTHETIC:
            fam, typ = name, SYNTHETIC[name]
        if fam is None:
            problems.append(f"{where}: {name} is not a metric the operator exports")
            continue
        used.add(fam)
        inner = funcs[0] if funcs else None
        if typ in ("histogram", "summary"):
            if name == fam:
                problems.append(f"{where}: histogram {name} read without _bucket, _sum or _count")
            elif inner not in RATE_FUNCS:
                problems.append(f"{where}: {name} (a histogram's counter) outside rate/increase/irate")
            if name.endswith("_bucket"):
                if "histogram_quantile" not in funcs:
                    problems.append(f"{where}: {name} outside histogram_quantile")
                elif not any("le" in clause for clause in by_clauses(expr)):
                    problems.append(f"{where}: histogram_quantile over {name} without aggregating by le")
        elif typ == "counter" and inner not in RATE_FUNCS:
            problems.append(f"{where}: counter {name} outside rate/increase/irate (in {inner or 'nothing'})")
        elif typ == "gauge" and set(funcs) & RATE_FUNCS:
            problems.append(f"{where}: gauge {name} inside {sorted(set(funcs) & RATE_FUNCS)}")
        if labels.get("job") != ("=", job_matcher):
            problems.append(f"{where}: {name} does not select job=\"{job_matcher}\" (labels {labels})")
    return problems


# --- the checks --------------------------------------------------------------------------------------------------


def check_dashboard(d, families, used, promql_rules):
    out(bool(d.get("uid")) and bool(d.get("title")), f"dashboard: uid {d.get('uid')!r}, title {d.get('title')!r}")
    variables = {v.get("name"): v for v in (d.get("templating") or {}).get("list") or []}
    ds = variables.get("datasource") or {}
    out(ds.get("type") == "datasource" and ds.get("query") == "prometheus" and {"job", "instance"} <= set(variables),
        f"dashboard: variables {sorted(variables)} (a Prometheus datasource variable, job and instance)")
    panels = d.get("panels") or []
    ids = [p.get("id") for p in panels]
    out(len(ids) == len(set(ids)) and None not in ids, f"dashboard: {len(ids)} panels with unique ids")
    cells, problems, n_queries = {}, [], 0
    for p in panels:
        g = p.get("gridPos") or {}
        what = f"panel {p.get('id')} {p.get('title')!r}"
        if not all(isinstance(g.get(k), int) for k in ("h", "w", "x", "y")) or g["x"] + g["w"] > 24:
            problems.append(f"{what}: gridPos {g}")
            continue
        for yy in range(g["y"], g["y"] + g["h"]):
            for xx in range(g["x"], g["x"] + g["w"]):
                if (xx, yy) in cells:
                    problems.append(f"{what} overlaps panel {cells[(xx, yy)]}")
                cells[(xx, yy)] = p.get("id")
        if p.get("type") == "row":
            continue
        targets = p.get("targets") or []
        if not targets:
            problems.append(f"{what}: no targets")
        refs = [t.get("refId") for t in targets]
        if len(set(refs)) != len(refs) or None in refs:
            problems.append(f"{what}: refIds {refs}")
        for t in targets:
            n_queries += 1
            if (t.get("datasource") or {}).get("uid") != "${datasource}" or \
                    (p.get("datasource") or {}).get("uid") != "${datasource}":
                problems.append(f"{what}: a data source other than ${{datasource}}")
            expr = t.get("expr") or ""
            problems += check_expr(f"{what} {t.get('refId')}", expr, families, "$job", used)
            plain = expr.replace("$__rate_interval", "5m").replace("$__range", "6h")
            plain = plain.replace("$instance", ".*").replace("$job", "codeflare-operator")
            promql_rules.append({"record": f"dashboard:panel_{p.get('id')}_{t.get('refId')}", "expr": plain})
    for p in problems:
        out(False, f"dashboard: {p}")
    out(not problems, f"dashboard: {n_queries} queries placed, on ${{datasource}}, reading exported metrics of "
                      f"job=\"$job\" with rate/increase and histogram_quantile where their types need them")


def check_rules(doc, families, used):
    rules = [r for g in doc.get("groups") or [] for r in g.get("rules") or []]
    alerts = [r for r in rules if "alert" in r]
    names = [r["alert"] for r in alerts]
    out(bool(alerts) and len(names) == len(set(names)), f"rules: {len(alerts)} alerts, names unique: {names}")
    jobs = set()
    for r in rules:
        for m in re.finditer(r'\bjob="([^"]*)"', r.get("expr") or ""):
            jobs.add(m.group(1))
    out(len(jobs) == 1, f"rules: every job matcher names one job: {sorted(jobs)}")
    job = next(iter(jobs)) if len(jobs) == 1 else ""
    problems = []
    for r in alerts:
        what = f"alert {r['alert']}"
        labels, ann = r.get("labels") or {}, r.get("annotations") or {}
        if labels.get("severity") not in SEVERITIES:
            problems.append(f"{what}: severity {labels.get('severity')!r}, want one of {sorted(SEVERITIES)}")
        if not (ann.get("summary") or "").strip() or not (ann.get("description") or "").strip():
            problems.append(f"{what}: needs a summary and a description")
        if "for" in r and not DURATION.match(str(r["for"])):
            problems.append(f"{what}: for {r['for']!r} is not a duration")
        problems += check_expr(what, r.get("expr") or "", families, job, used)
    for p in problems:
        out(False, f"rules: {p}")
    out(not problems, f"rules: every alert has a severity, a summary and a description, and reads exported "
                      f"metrics of job=\"{job}\" as their types need")


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("check")
    c.add_argument("--dashboard", required=True)
    c.add_argument("--rules", required=True)
    src = c.add_mutually_exclusive_group(required=True)
    src.add_argument("--source")
    src.add_argument("--scrape")
    c.add_argument("--promql-out")
    opts = p.parse_args()

    families = exported_from_source(opts.source) if opts.source else exported_from_scrape(opts.scrape)
    origin = f"controller/metrics sources ({opts.source})" if opts.source else f"a scrape ({opts.scrape})"
    out(len(families) >= 10, f"{len(families)} metric families exported according to {origin}")
    with open(opts.dashboard, encoding="utf-8") as f:
        dashboard = json.load(f)
    with open(opts.rules, encoding="utf-8") as f:
        rules = yaml.safe_load(f)
    used_dash, used_rules, promql = set(), set(), []
    check_dashboard(dashboard, families, used_dash, promql)
    check_rules(rules, families, used_rules)
    missing = sorted(set(families) - used_dash)
    out(not missing, "dashboard: shows every exported family" + (f"; not: {missing}" if missing else ""))
    if opts.promql_out:
        with open(opts.promql_out, "w", encoding="utf-8") as f:
            yaml.safe_dump({"groups": [{"name": "dashboard", "rules": promql}]}, f, sort_keys=False)


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, yaml.YAMLError) as e:
        print(f"check_monitoring.py: {type(e).__name__}: {e}", file=sys.stderr)
        sys.exit(2)

// Throughput of client-side validation, printed as figures (no thresholds): one realistic RayCluster is validated
// N times against the full upstream RayCluster CRD schema
//   1. schema only:  SchemaSet::validate (RapidJSON plus the structural walker),
//   2. full rules:   validation::validate_object (schema, metadata, core/v1 Pod, KubeRay, Kueue, ... rules),
// and, in the same run, the same object against the same schema through python3-jsonschema
// (bench/jsonschema_bench.py, which turns the structural schema into draft-04 JSON Schema as schema_set.cpp does).
//
// Usage: validate_bench [--crds DIR] [-f FILE] [-n N] [--python-n N] [--python PY] [--script PATH] [--no-python]
//   --crds DIR     folder laid out like shared/crds (its upstream/ is used) or a folder of CRDs; default $UPSTREAM_CRDS
//   -f FILE        a RayCluster manifest, or a CodeFlareWorkload, expanded as `codeflare-operator render` does (its
//                  RayCluster, or the RayCluster its AppWrapper wraps); default config/samples/cfw_multi_group.yaml
//   -n N           iterations of each C++ measurement (default 2000)
//   --python-n N   iterations of python3-jsonschema (default N/20, at least 20)
//   --python PY    the Python interpreter (default /usr/bin/python3 when present, else python3 on PATH)
//   --script PATH  jsonschema_bench.py (default: the one next to this source file)
//   --no-python    skip the python3-jsonschema measurement
// Exit code: 0 when every measurement ran, 1 when one failed (e.g. python3-jsonschema missing), 2 on bad usage.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "core/yaml.hpp"
#include "validation/schema_set.hpp"
#include "validation/validator.hpp"
#include "workload/reconcile.hpp"

#ifndef CFO_BENCH_SOURCE_DIR
#define CFO_BENCH_SOURCE_DIR "."
#endif

namespace fs = std::filesystem;
using namespace cfo;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  std::string crds;
  std::string input =
      (fs::path(CFO_BENCH_SOURCE_DIR) / ".." / "config" / "samples" / "cfw_multi_group.yaml").lexically_normal();
  long n = 2000;
  long python_n = 0;
  std::string python;
  std::string script = std::string(CFO_BENCH_SOURCE_DIR) + "/jsonschema_bench.py";
  bool run_python = true;
};

constexpr const char* kUsage =
    "usage: validate_bench [--crds DIR] [-f FILE] [-n N] [--python-n N] [--python PY] [--script PATH] "
    "[--no-python]\n";

std::optional<Options> parse_args(int argc, char** argv) {
  Options o;
  if (const char* env = std::getenv("UPSTREAM_CRDS")) o.crds = env;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= argc) return std::nullopt;
      return std::string(argv[++i]);
    };
    std::optional<std::string> v;
    if (a == "--no-python") {
      o.run_python = false;
      continue;
    }
    if (a == "-h" || a == "--help") return std::nullopt;
    if (!(v = value())) return std::nullopt;
    try {
      if (a == "--crds")
        o.crds = *v;
      else if (a == "-f")
        o.input = *v;
      else if (a == "-n")
        o.n = std::stol(*v);
      else if (a == "--python-n")
        o.python_n = std::stol(*v);
      else if (a == "--python")
        o.python = *v;
      else if (a == "--script")
        o.script = *v;
      else
        return std::nullopt;
    } catch (const std::exception&) {
      return std::nullopt;
    }
  }
  if (o.crds.empty() || o.n < 1) return std::nullopt;
  if (o.python_n < 1) o.python_n = std::max(20L, o.n / 20);
  if (o.python.empty()) o.python = fs::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
  return o;
}

std::optional<std::string> read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The folder of upstream CRDs: DIR/upstream when it exists, else DIR.
std::string crd_folder(const std::string& dir) {
  return fs::is_directory(fs::path(dir) / "upstream") ? (fs::path(dir) / "upstream").string() : dir;
}

/// The file of `dir` that holds the ray.io RayCluster CRD (for the Python side), or "".
std::string raycluster_crd_file(const std::string& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && (e.path().extension() == ".yaml" || e.path().extension() == ".yml"))
      files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    auto text = read_text(f.string());
    if (!text || text->find("CustomResourceDefinition") == std::string::npos ||
        text->find("kind: RayCluster\n") == std::string::npos)
      continue;
    auto docs = yaml::to_json(*text);
    if (!docs) continue;
    for (const auto& d : *docs)
      if (json::get_string(d, "kind") == "CustomResourceDefinition") {
        const json::Value* group = json::find_path(d, "spec.group");
        const json::Value* kind = json::find_path(d, "spec.names.kind");
        if (group && group->IsString() && std::string(group->GetString()) == "ray.io" && kind && kind->IsString() &&
            std::string(kind->GetString()) == "RayCluster")
          return f.string();
      }
  }
  return "";
}

/// The RayCluster to validate: the document itself, or what a CodeFlareWorkload expands to.
std::optional<json::Document> pick_raycluster(const json::Value& doc, const validation::SchemaSet& schemas,
                                              std::string& how) {
  auto copy_of = [](const json::Value& v) {
    json::Document d;
    d.CopyFrom(v, d.GetAllocator());
    return d;
  };
  if (json::get_string(doc, "kind") == "RayCluster") {
    how = "as written";
    return copy_of(doc);
  }
  if (json::get_string(doc, "kind") != "CodeFlareWorkload") return std::nullopt;
  json::Document w = copy_of(doc);
  json::Value* meta = json::find(w, "metadata");
  if (meta && meta->IsObject() && !json::find(*meta, "namespace"))
    json::set(*meta, "namespace", json::str("default", w.GetAllocator()), w.GetAllocator());
  workload::ClusterFacts facts;
  facts.kueue_version = "v1beta2";
  auto outcome = workload::reconcile(w, workload::Observed{}, facts, schemas, "2025-01-01T00:00:00Z");
  if (!outcome.valid) {
    for (const auto& e : outcome.errors) std::cerr << "  " << e.path << ": " << e.reason << "\n";
    return std::nullopt;
  }
  for (const auto& obj : outcome.desired) {
    if (json::get_string(obj, "kind") == "RayCluster") {
      how = "rendered from the CodeFlareWorkload";
      return copy_of(obj);
    }
    if (const json::Value* comps = json::find_path(obj, "spec.components"); comps && comps->IsArray())
      for (const auto& c : comps->GetArray())
        if (const json::Value* t = json::find(c, "template"); t && json::get_string(*t, "kind") == "RayCluster") {
          how = "rendered from the CodeFlareWorkload (wrapped in its AppWrapper)";
          return copy_of(*t);
        }
  }
  return std::nullopt;
}

struct Figures {
  std::string what;
  long iterations = 0;
  double seconds = 0;
};

void print_row(const Figures& f) {
  const double per_s = f.seconds > 0 ? f.iterations / f.seconds : 0;
  const double us = f.iterations > 0 ? f.seconds * 1e6 / f.iterations : 0;
  std::printf("  %-50s %10ld %10.3f %12.1f %12.1f\n", f.what.c_str(), f.iterations, f.seconds, per_s, us);
}

template <class F>
Figures measure(const std::string& what, long n, F&& f) {
  for (long i = 0; i < std::max(1L, n / 10); ++i) f();  // warm-up
  auto t0 = Clock::now();
  for (long i = 0; i < n; ++i) f();
  std::chrono::duration<double> d = Clock::now() - t0;
  return {what, n, d.count()};
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

int main(int argc, char** argv) {
  auto opts = parse_args(argc, argv);
  if (!opts) {
    std::cerr << kUsage << "--crds (or UPSTREAM_CRDS) is required\n";
    return 2;
  }
  const std::string dir = crd_folder(opts->crds);
  auto t0 = Clock::now();
  auto schemas = validation::SchemaSet::load_dir(dir);
  std::chrono::duration<double> load = Clock::now() - t0;
  if (!schemas) {
    std::cerr << "validate_bench: " << schemas.error().message << "\n";
    return 2;
  }
  auto text = read_text(opts->input);
  if (!text) {
    std::cerr << "validate_bench: cannot read " << opts->input << "\n";
    return 2;
  }
  auto docs = yaml::to_json(*text);
  if (!docs || docs->empty()) {
    std::cerr << "validate_bench: " << opts->input << ": " << (docs ? "no document" : docs.error().message) << "\n";
    return 2;
  }
  std::string how;
  std::optional<json::Document> obj;
  for (const auto& d : *docs)
    if ((obj = pick_raycluster(d, *schemas, how))) break;
  if (!obj) {
    std::cerr << "validate_bench: " << opts->input
              << " holds no RayCluster (nor a CodeFlareWorkload that renders one)\n";
    return 2;
  }
  const std::string api_version = json::get_string(*obj, "apiVersion").value_or("");
  const std::string name = json::find_path(*obj, "metadata.name") && json::find_path(*obj, "metadata.name")->IsString()
                               ? json::find_path(*obj, "metadata.name")->GetString()
                               : "?";
  const std::string object_json = json::dump(*obj);

  // The verdict, once, so that the figures are about a realistic (valid) object.
  const auto schema_findings = schemas->validate(*obj);
  const auto findings = validation::validate_object(*schemas, *obj);
  long errors = 0, warnings = 0;
  for (const auto& f : findings) (f.severity == Severity::Error ? errors : warnings)++;

  std::printf("object:   %s RayCluster %s (%s), %s; %zu bytes of JSON\n", api_version.c_str(), name.c_str(),
              opts->input.c_str(), how.c_str(), object_json.size());
  std::printf("schema:   the upstream CRDs of %s (%zu kinds, loaded and compiled in %.2f s)\n", dir.c_str(),
              schemas->kinds().size(), load.count());
  std::printf("verdict:  schema %zu finding(s); full rules %ld error(s), %ld warning(s)\n", schema_findings.size(),
              errors, warnings);
  for (const auto& f : findings)
    std::printf("          %s: %s [%s]\n", f.path.c_str(), f.reason.c_str(), f.rule.c_str());
  std::printf("\n  %-50s %10s %10s %12s %12s\n", "", "iterations", "seconds", "objects/s", "us/object");

  std::size_t sink = 0;  // keeps the calls from being optimised away
  print_row(measure("codeflare-operator: schema only", opts->n, [&] { sink += schemas->validate(*obj).size(); }));
  print_row(measure("codeflare-operator: full rules (validate_object)", opts->n,
                    [&] { sink += validation::validate_object(*schemas, *obj).size(); }));
  if (sink == static_cast<std::size_t>(-1)) std::printf("%zu\n", sink);

  if (!opts->run_python) return 0;
  const std::string crd_file = raycluster_crd_file(dir);
  if (crd_file.empty()) {
    std::printf("  python3-jsonschema: not run: no ray.io RayCluster CRD file in %s\n", dir.c_str());
    return 1;
  }
  const fs::path tmp = fs::temp_directory_path() / ("cfo-validate-bench-" + std::to_string(::getpid()) + ".json");
  {
    std::ofstream out(tmp);
    out << object_json;
  }
  const std::string cmd = shell_quote(opts->python) + " " + shell_quote(opts->script) + " " + shell_quote(crd_file) +
                          " " + shell_quote(api_version) + " RayCluster " + shell_quote(tmp.string()) + " " +
                          std::to_string(opts->python_n);
  std::string output;
  int status = -1;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[4096];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, p)) > 0) output.append(buf, got);
    status = ::pclose(p);
  }
  fs::remove(tmp);
  auto result = json::parse(output);
  if (status != 0 || !result || !result->IsObject()) {
    std::printf("  python3-jsonschema: failed (exit status %d): %s\n", status, output.substr(0, 400).c_str());
    return 1;
  }
  const json::Value* secs = json::find(*result, "seconds");
  const json::Value* setup = json::find(*result, "setup_seconds");
  const std::string version = json::get_string(*result, "jsonschema").value_or("?");
  Figures py{"python3-jsonschema " + version + " (Draft4Validator)", opts->python_n,
             secs && secs->IsNumber() ? secs->GetDouble() : 0};
  print_row(py);
  const json::Value* perr = json::find(*result, "errors");
  std::printf("\n  python3-jsonschema: Python %s, schema prepared and checked in %.2f s, %s error(s) in the object",
              json::get_string(*result, "python").value_or("?").c_str(),
              setup && setup->IsNumber() ? setup->GetDouble() : 0.0, perr ? json::dump(*perr).c_str() : "?");
  if (const json::Value* first = json::find(*result, "first_errors"); first && first->IsArray() && !first->Empty())
    std::printf(": %s", json::dump(*first).c_str());
  std::printf("\n");
  return 0;
}

#include "cmd/offline_inputs.hpp"

#include <algorithm>
#include <exception>
#include <future>
#include <iostream>

#include "cmd/crd_cache.hpp"
#include "cmd/crd_schemas.hpp"
#include "core/names.hpp"
#include "core/offline_heap.hpp"

namespace cfo::cmd {

bool is_workload(const json::Value& doc) {
  return json::get_string(doc, "kind") == "CodeFlareWorkload" &&
         json::get_string(doc, "apiVersion") == "codeflare.dev/v1alpha1";
}

std::optional<FieldError> unserved_workload(const json::Value& doc) {
  if (!doc.IsObject() || is_workload(doc)) return std::nullopt;
  const std::string api_version = json::get_string(doc, "apiVersion").value_or("");
  const std::string kind = json::get_string(doc, "kind").value_or("");
  if (api_group(api_version) != "codeflare.dev" && kind != "CodeFlareWorkload") return std::nullopt;
  const bool right_version = api_version == "codeflare.dev/v1alpha1";
  return FieldError{right_version ? "kind" : "apiVersion", "schema:unknownKind", "crd:codeflare.dev",
                    (api_version.empty() ? std::string("<no apiVersion>") : api_version) + " " +
                        (kind.empty() ? std::string("<no kind>") : kind) +
                        " is not served: this operator serves CodeFlareWorkload as codeflare.dev/v1alpha1"};
}

bool is_namespace(const json::Value& doc) {
  return json::get_string(doc, "apiVersion") == std::string("v1") &&
         json::get_string(doc, "kind") == std::string("Namespace");
}

std::string api_group(std::string_view api_version) {
  auto slash = api_version.find('/');
  return slash == std::string_view::npos ? std::string() : std::string(api_version.substr(0, slash));
}

CheckedApis checked_apis(const std::vector<std::string>& kinds) {
  CheckedApis out{{"codeflare.dev"}, {"CodeFlareWorkload"}};
  for (const auto& k : kinds) {
    // "<apiVersion>/<Kind>": the apiVersion is everything before the last "/".
    auto last = k.rfind('/');
    if (last == std::string::npos) continue;
    out.groups.insert(api_group(std::string_view(k).substr(0, last)));
    out.kinds.insert(k.substr(last + 1));
  }
  return out;
}

CrdNeeds crd_needs_of(const std::vector<InputDocument>& docs) {
  CrdNeeds needs;
  needs.every = false;
  needs.kinds = {{"ray.io", "RayCluster"}};
  auto add = [&](const json::Value& obj) {
    const std::string kind = json::get_string(obj, "kind").value_or("");
    if (!kind.empty()) needs.kinds.insert({api_group(json::get_string(obj, "apiVersion").value_or("")), kind});
  };
  for (const auto& in : docs) {
    if (!in.doc.IsObject()) continue;
    add(in.doc);
    const std::string kind = json::get_string(in.doc, "kind").value_or("");
    if (kind == "CodeFlareWorkload")
      needs.kinds.insert(
          {{"ray.io", "RayJob"}, {"workload.codeflare.dev", "AppWrapper"}, {"kueue.x-k8s.io", "LocalQueue"}});
    if (const json::Value* components = kind == "AppWrapper" ? json::find_path(in.doc, "spec.components") : nullptr;
        components && components->IsArray())
      for (const auto& c : components->GetArray())
        if (const json::Value* t = c.IsObject() ? json::find(c, "template") : nullptr; t && t->IsObject()) add(*t);
  }
  return needs;
}

std::optional<std::string> skip_reason(const json::Value& doc, const CheckedApis& apis) {
  const std::set<std::string>& groups = apis.groups;
  if (!doc.IsObject()) return std::nullopt;
  auto api_version = json::get_string(doc, "apiVersion");
  auto kind = json::get_string(doc, "kind");
  if (!api_version || !kind || api_version->empty() || kind->empty()) return std::nullopt;
  if (groups.count(*api_version) > 0) return std::nullopt;  // "ray.io" with its version left out
  const std::string group = api_group(*api_version);
  if (groups.count(group) > 0) return std::nullopt;
  if (apis.kinds.count(*kind) > 0) return std::nullopt;  // a known kind under a wrong group: a typo to report
  return std::string("no schema for this API group; not checked");
}

Result<std::vector<std::string>> schema_paths(const Args& args) {
  std::vector<std::string> crds = args.all("crds");
  if (!crds.empty()) return crds;
  std::string looked_at;
  auto bundled = bundled_crds_path(&looked_at);
  if (!bundled)
    return fail("no upstream CRD schemas: pass --crds DIR (the schemas that ship with the binary were not found" +
                (looked_at.empty() ? std::string(": the binary's own path could not be read from /proc/self/exe)")
                                   : " at " + looked_at + ")"));
  return std::vector<std::string>{*bundled};
}

std::optional<int> kubernetes_minor_of_flag(std::string_view v) {
  if (v.starts_with('v')) v.remove_prefix(1);
  if (!v.starts_with("1.")) return std::nullopt;
  v.remove_prefix(2);
  int minor = 0;
  std::size_t digits = 0;
  while (digits < v.size() && digits < 3 && v[digits] >= '0' && v[digits] <= '9')
    minor = minor * 10 + (v[digits++] - '0');
  if (digits == 0 || (digits < v.size() && v[digits] != '.')) return std::nullopt;
  return minor;
}

std::vector<std::string> filename_args(const Args& args) {
  std::vector<std::string> out;
  for (const auto& value : args.all("filename")) {
    std::size_t from = 0;
    for (std::size_t comma; (comma = value.find(',', from)) != std::string::npos; from = comma + 1)
      out.push_back(value.substr(from, comma - from));
    out.push_back(value.substr(from));
  }
  return out;
}

std::expected<OfflineInputs, int> load_offline_inputs(const Args& args, const char* command) {
  auto fail_with = [&](const std::string& reason, bool usage) {
    std::cerr << command << ": " << reason << "\n";
    if (usage) std::cerr << usage_hint(command);
    return std::unexpected(2);
  };
  if (!args.has("filename")) return fail_with("-f is required (a manifest file, a folder, or - for stdin)", true);
  // An empty name (an unset shell variable, `-f "$FILE"`) would read as "cannot read : no such file".
  for (const auto& f : filename_args(args)) {
    if (f.empty()) return fail_with("-f \"\": an empty name; give a manifest file, a folder, or - for stdin", true);
    if (f.starts_with("http://") || f.starts_with("https://"))
      return fail_with("-f " + f + ": URLs are not read (this command works offline); download the file first", true);
  }
  auto max_podsets = args.integer("kueue-max-podsets", 0);
  if (!max_podsets) return fail_with(max_podsets.error().message, true);
  if (args.has("kueue-max-podsets") && (*max_podsets < 1 || *max_podsets > kMaxPodSetsFlagLimit))
    return fail_with("--kueue-max-podsets must be between 1 and " + std::to_string(kMaxPodSetsFlagLimit), true);
  std::optional<validation::PodSecurityLevel> pod_security = validation::PodSecurityLevel::kPrivileged;
  if (args.has("pod-security-level")) {
    pod_security = validation::parse_pod_security_level(args.get("pod-security-level", ""));
    if (!pod_security) return fail_with("--pod-security-level must be privileged, baseline or restricted", true);
  }
  int kubernetes_minor = 0;
  if (args.has("kubernetes-version")) {
    auto minor = kubernetes_minor_of_flag(args.get("kubernetes-version", ""));
    if (!minor)
      return fail_with("--kubernetes-version must be a Kubernetes version such as 1.31 or v1.31.2, not \"" +
                           args.get("kubernetes-version", "") + "\"",
                       true);
    kubernetes_minor = *minor;
  }
  // A namespace name the apiserver would refuse (a DNS-1123 label, as apimachinery ValidateNamespaceName) is a usage
  // error here, not a finding on every workload it is given to.
  if (args.has("namespace")) {
    const std::string ns = args.get("namespace", "");
    if (auto problems = names::dns1123_label(ns); !problems.empty())
      return fail_with("-n/--namespace \"" + ns + "\" is not a namespace name: " + problems.front(), true);
  }
  auto profile = validation::parse_profile(args.get("profile", "vanilla"));
  if (!profile) return fail_with("--profile must be vanilla or odh, not \"" + args.get("profile") + "\"", true);
  auto crds = schema_paths(args);
  if (!crds) return fail_with(crds.error().message, false);
  // The CRDs are read, and the RayCluster schema (which every run needs: crd_needs_of) compiled, on a thread of their
  // own while the inputs are read and converted; the other kinds the inputs lead to are added after that. Inputs on
  // stdin are read first (`--crds /dev/stdin` would race them for the same pipe), as before.
  const auto files = filename_args(args);
  const bool stdin_input = std::find(files.begin(), files.end(), "-") != files.end();
  auto early_crds =
      std::async(stdin_input ? std::launch::deferred : std::launch::async,
                 [&crds, cache_dir = crd_cache_dir(args)]() -> Result<FoundCrds> {
                   heap::prepare_thread_heap();
                   try {
                     auto found = read_crds(*crds, cache_dir);
                     if (!found) return found;
                     if (auto r = add_wanted_crds(*found, CrdNeeds{false, {{"ray.io", "RayCluster"}}}); !r)
                       return std::unexpected(r.error());
                     found->loaded.schemas.build("ray.io/v1", "RayCluster");
                     return found;
                   } catch (const std::exception& e) {  // e.g. std::filesystem_error, std::bad_alloc
                     return fail(e.what());
                   }
                 });
  auto docs = read_inputs(files, ReadOptions{OnYamlError::kAsEntry, args.flag("recursive")});
  auto found = early_crds.get();
  if (!docs) return fail_with("-f: " + docs.error().message, false);
  if (!found) return fail_with("--crds: " + found.error().message, false);
  if (auto r = add_wanted_crds(*found, crd_needs_of(docs->docs)); !r)
    return fail_with("--crds: " + r.error().message, false);
  LoadedCrds* loaded = &found->loaded;
  if (!docs->skipped_files.empty()) {
    std::cerr << command << ": note: " << docs->skipped_files.size()
              << " file(s) of the folders given are not read (not .yaml, .yml or .json):";
    for (const auto& f : docs->skipped_files) std::cerr << " " << f;
    std::cerr << "\n";
  }
  if (!docs->unread_folders.empty()) {
    std::cerr << command << ": note: " << docs->unread_folders.size()
              << " sub-folder(s) of the folders given are not read (add -R to read them):";
    for (const auto& f : docs->unread_folders) std::cerr << " " << f;
    std::cerr << "\n";
  }
  for (const auto& f : docs->empty_inputs) std::cerr << command << ": warning: " << f << " holds no object\n";
  for (const auto& f : docs->repeated_files)
    std::cerr << command << ": warning: " << f
              << " is given more than once (with -f, or inside a folder given); read once\n";
  if (docs->docs.empty() && docs->empty_inputs.empty())
    std::cerr << command << ": warning: no manifest found in the inputs given with -f\n";
  OfflineInputs out{std::move(loaded->schemas), checked_apis(loaded->available_kinds), std::move(docs->docs), {}};
  // As the controller: the flag, else what the Workload CRD among the schemas says, else Kueue's old limit.
  out.profile.kueue_max_pod_sets = *max_podsets > 0                 ? static_cast<int>(*max_podsets)
                                   : loaded->kueue_max_pod_sets > 0 ? loaded->kueue_max_pod_sets
                                                                    : validation::kDefaultKueueMaxPodSets;
  out.profile.name = *profile;
  out.profile.pod_security = *pod_security;
  out.profile.kubernetes_minor = kubernetes_minor;
  return out;
}

}  // namespace cfo::cmd

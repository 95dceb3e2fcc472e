#include "cmd/crd_schemas.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>

#include "cmd/crd_cache.hpp"
#include "cmd/input_files.hpp"
#include "core/yaml.hpp"
#include "validation/cluster_facts.hpp"

namespace cfo::cmd {

namespace fs = std::filesystem;

namespace {
bool is_crd(const json::Value& doc) {
  auto kind = json::get_string(doc, "kind");
  return kind && *kind == "CustomResourceDefinition";
}
}  // namespace

namespace {

// The files a --crds path names: the file itself, or a folder's .yaml, .yml and .json files (not its sub-folders), in
// name order. Such a file that cannot be opened as a regular file (a broken or looping symbolic link) is an error
// that names it, as in a folder of -f.
Result<std::vector<std::string>> crd_files(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return std::vector<std::string>{path};
  std::vector<std::string> out;
  fs::directory_iterator it(path, ec);
  for (const fs::directory_iterator end; !ec && it != end; it.increment(ec)) {
    const fs::path& file = it->path();
    const std::string ext = file.extension().string();
    if (ext != ".yaml" && ext != ".yml" && ext != ".json") continue;
    std::error_code file_ec;
    const bool regular = fs::is_regular_file(file, file_ec);  // through a symbolic link
    if (file_ec) return fail(file.string() + ": " + file_ec.message());
    if (regular) out.push_back(file.string());
  }
  if (ec) return fail("cannot list " + path + ": " + ec.message());
  std::sort(out.begin(), out.end());
  return out;
}

// Calls `each` with every value of a file's text: the JSON value or the YAML documents, a List's items in its place.
// The values are used where they were parsed (no copy: the CRD bundle is most of what `validate` reads).
Result<void> for_each_value(const std::string& name, std::string_view text,
                            const std::function<Result<void>(const json::Value&)>& each) {
  Result<void> outcome;
  auto visit = [&](const json::Value& v) {
    if (!outcome) return;
    const json::Value* items = json::find(v, "items");
    const std::string kind = json::get_string(v, "kind").value_or("");
    if (items && items->IsArray() && kind.ends_with("List")) {
      for (const auto& item : items->GetArray())
        if (outcome) outcome = each(item);
      return;
    }
    outcome = each(v);
  };
  if (name.ends_with(".json")) {
    if (auto doc = json::parse(text)) {
      visit(*doc);
      return outcome;
    }
  }
  auto read = yaml::for_each_document(text, [&](json::Document& d, const yaml::DocumentStart&) { visit(d); });
  if (!read) return fail(name + ": the file is not valid YAML: " + read.error().message);
  return outcome;
}

// A CRD file's CRDs through the cache (crd_cache.hpp): the array of every CRD of the file, descriptions stripped,
// from the cache entry when there is one, else parsed from the file, and then stored. A file the cache cannot key
// (or with no cache folder) is read as it is.
Result<json::Document> crds_of_file(const std::string& file, const std::string& cache_dir) {
  const std::optional<std::string> key =
      cache_dir.empty() || file.ends_with(".json") ? std::nullopt : crd_cache_key(file);
  if (key)
    if (auto cached = read_crd_cache(cache_dir, *key)) {
      // An entry edited by hand into something else (no CRD, or an object that is not one) is a miss.
      const auto& crds = cached->GetArray();
      if (!crds.Empty() && std::all_of(crds.begin(), crds.end(), [](const json::Value& c) { return is_crd(c); }))
        return std::move(*cached);
    }
  auto text = read_file(file);
  if (!text) return std::unexpected(text.error());
  json::Document found(rapidjson::kArrayType);
  auto r = for_each_value(file, *text, [&](const json::Value& doc) -> Result<void> {
    if (!is_crd(doc)) return {};
    json::Value crd;
    crd.CopyFrom(doc, found.GetAllocator());
    strip_descriptions(crd);
    found.PushBack(crd, found.GetAllocator());
    return {};
  });
  if (!r) return std::unexpected(r.error());
  if (key) write_crd_cache(cache_dir, *key, found);
  return found;
}

}  // namespace

Result<FoundCrds> read_crds(const std::vector<std::string>& paths, const std::string& cache_dir) {
  FoundCrds out;
  for (const auto& p : paths) {
    std::error_code ec;
    std::string path = p;
    if (fs::is_directory(p, ec) && fs::is_directory(fs::path(p) / "upstream", ec)) {
      // The UPSTREAM_CRDS layout: read the originals, unless the folder itself holds CRDs.
      // A .yaml entry that is not a folder counts (a broken link too: crd_files then names it).
      bool has_yaml = false;
      fs::directory_iterator it(p, ec);
      for (const fs::directory_iterator end; !ec && it != end && !has_yaml; it.increment(ec)) {
        std::error_code entry_ec;
        has_yaml = it->path().extension() == ".yaml" && !fs::is_directory(it->path(), entry_ec);
      }
      if (ec) return fail("cannot list " + p + ": " + ec.message());
      if (!has_yaml) path = (fs::path(p) / "upstream").string();
    }
    auto files = crd_files(path);
    if (!files) return std::unexpected(files.error());
    for (const auto& file : *files) {
      auto crds = crds_of_file(file, cache_dir);
      if (!crds) return std::unexpected(crds.error());
      for (const auto& doc : crds->GetArray()) {
        if (json::string_at(doc, "metadata.name") == validation::kKueueWorkloadCrdName)
          out.loaded.kueue_max_pod_sets = validation::kueue_max_pod_sets_of(doc);
        const std::string group = json::string_at(doc, "spec.group");
        const std::string kind = json::string_at(doc, "spec.names.kind");
        if (const json::Value* versions = json::find_path(doc, "spec.versions"); versions && versions->IsArray())
          for (const auto& v : versions->GetArray())
            if (json::get_bool(v, "served").value_or(true))
              out.loaded.available_kinds.push_back(group + "/" + json::get_string(v, "name").value_or("") + "/" + kind);
      }
      if (!crds->Empty()) out.files.push_back({file, std::move(*crds)});
    }
  }
  if (out.files.empty()) return fail("no CustomResourceDefinition found in the --crds inputs");
  return out;
}

Result<void> add_wanted_crds(FoundCrds& found, const CrdNeeds& needs) {
  std::set<std::pair<std::string, std::string>> added_now;
  for (const auto& [file, crds] : found.files)
    for (const auto& doc : crds.GetArray()) {
      std::pair<std::string, std::string> kind{json::string_at(doc, "spec.group"),
                                               json::string_at(doc, "spec.names.kind")};
      if (!needs.wants(kind.first, kind.second) || found.added_kinds.contains(kind)) continue;
      if (auto added = found.loaded.schemas.add_crd(doc); !added) return fail(file + ": " + added.error().message);
      added_now.insert(std::move(kind));
    }
  found.added_kinds.insert(added_now.begin(), added_now.end());
  return {};
}

Result<LoadedCrds> load_schemas_from_files(const std::vector<std::string>& paths, const CrdNeeds& needs,
                                           const std::string& cache_dir) {
  auto found = read_crds(paths, cache_dir);
  if (!found) return std::unexpected(found.error());
  if (auto r = add_wanted_crds(*found, needs); !r) return std::unexpected(r.error());
  return std::move(found->loaded);
}

std::optional<std::string> bundled_crds_path(std::string* looked_at) {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return std::nullopt;
  fs::path bundle = exe.parent_path().parent_path() / "share" / "codeflare-operator" / "upstream-crds.json";
  if (looked_at) *looked_at = bundle.string();
  if (!fs::is_regular_file(bundle, ec)) return std::nullopt;
  return bundle.string();
}

}  // namespace cfo::cmd

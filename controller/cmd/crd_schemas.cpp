#include "cmd/crd_schemas.hpp"

#include <filesystem>

#include "cmd/input_files.hpp"
#include "validation/cluster_facts.hpp"

namespace cfo::cmd {

namespace fs = std::filesystem;

namespace {
bool is_crd(const json::Value& doc) {
  auto kind = json::get_string(doc, "kind");
  return kind && *kind == "CustomResourceDefinition";
}
}  // namespace

Result<LoadedCrds> load_schemas_from_files(const std::vector<std::string>& paths) {
  std::vector<std::string> resolved;
  for (const auto& p : paths) {
    std::error_code ec;
    bool dir = fs::is_directory(p, ec);
    if (dir && fs::is_directory(fs::path(p) / "upstream", ec)) {
      // The UPSTREAM_CRDS layout: read the originals, unless the folder itself holds CRDs.
      bool has_yaml = false;
      for (const auto& e : fs::directory_iterator(p, ec))
        has_yaml = has_yaml || (e.is_regular_file() && e.path().extension() == ".yaml");
      resolved.push_back(has_yaml ? p : (fs::path(p) / "upstream").string());
    } else {
      resolved.push_back(p);
    }
  }
  auto docs = read_inputs(resolved);
  if (!docs) return std::unexpected(docs.error());
  LoadedCrds out;
  int added = 0;
  for (const auto& d : docs->docs) {
    if (!is_crd(d.doc)) continue;
    if (auto r = out.schemas.add_crd(d.doc); !r) return fail(d.file + ": " + r.error().message);
    if (json::string_at(d.doc, "metadata.name") == validation::kKueueWorkloadCrdName)
      out.kueue_max_pod_sets = validation::kueue_max_pod_sets_of(d.doc);
    ++added;
  }
  if (added == 0) return fail("no CustomResourceDefinition found in the --crds inputs");
  return out;
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

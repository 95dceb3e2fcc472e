#include "test_files.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "core/yaml.hpp"

namespace cfo::test_support {

namespace {
std::optional<std::string> env(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) return std::nullopt;
  return std::string(v);
}
}  // namespace

std::string source_dir() { return CFO_SOURCE_DIR; }
std::optional<std::string> upstream_crds_dir() { return env("UPSTREAM_CRDS"); }
std::optional<std::string> shared_dir() { return env("CFO_SHARED_DIR"); }

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    ADD_FAILURE() << "cannot read " << path;
    return "";
  }
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

json::Document yaml_doc(std::string_view text) {
  auto docs = yaml::to_json(text);
  if (!docs || docs->empty()) {
    ADD_FAILURE() << "test YAML does not parse: " << (docs ? std::string("no document") : docs.error().message);
    return json::Document(rapidjson::kObjectType);
  }
  return std::move((*docs)[0]);
}

std::vector<std::string> yaml_files(const std::string& dir, bool skip_kustomization) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".yaml") continue;
    if (skip_kustomization && e.path().filename() == "kustomization.yaml") continue;
    out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::shared_ptr<const validation::SchemaSet> upstream_schemas() {
  static const std::shared_ptr<const validation::SchemaSet> loaded =
      []() -> std::shared_ptr<const validation::SchemaSet> {
    auto dir = upstream_crds_dir();
    if (!dir) return nullptr;
    auto set = validation::SchemaSet::load_dir(*dir + "/upstream");
    if (!set) throw std::runtime_error("cannot load CRDs from $UPSTREAM_CRDS/upstream: " + set.error().message);
    return std::make_shared<const validation::SchemaSet>(std::move(*set));
  }();
  return loaded;
}

}  // namespace cfo::test_support

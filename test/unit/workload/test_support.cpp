#include "test_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "core/yaml.hpp"

namespace cfo::workload::test {

std::string source_dir() { return CFO_SOURCE_DIR; }

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

json::Document yaml_doc(const std::string& text) {
  auto docs = yaml::to_json(text);
  if (!docs || docs->empty()) {
    ADD_FAILURE() << "YAML does not parse: " << (docs ? "no document" : docs.error().message);
    json::Document d;
    d.SetObject();
    return d;
  }
  return std::move((*docs)[0]);
}

void set_identity(json::Document& d, const std::string& ns, const std::string& uid, int64_t generation) {
  auto& a = d.GetAllocator();
  if (!d.IsObject()) d.SetObject();
  if (!json::find(d, "metadata")) d.AddMember("metadata", json::Value(rapidjson::kObjectType), a);
  json::Value& meta = d["metadata"];
  json::set(meta, "namespace", json::str(ns, a), a);
  json::set(meta, "uid", json::str(uid, a), a);
  json::set(meta, "generation", json::Value(generation), a);
}

json::Document sample(const std::string& file) {
  json::Document d = yaml_doc(read_text(source_dir() + "/config/samples/" + file));
  set_identity(d);
  return d;
}

std::vector<std::string> yaml_files(const std::string& dir) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(source_dir() + "/" + dir))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

const validation::SchemaSet* upstream_schemas() {
  static std::unique_ptr<validation::SchemaSet> schemas = []() -> std::unique_ptr<validation::SchemaSet> {
    const char* dir = std::getenv("UPSTREAM_CRDS");
    if (!dir || !*dir) return nullptr;
    auto s = validation::SchemaSet::load_dir(std::string(dir) + "/upstream");
    if (!s) throw std::runtime_error("cannot load CRDs from $UPSTREAM_CRDS/upstream: " + s.error().message);
    return std::make_unique<validation::SchemaSet>(std::move(*s));
  }();
  return schemas.get();
}

const json::Value& at(const json::Value& v, std::initializer_list<Step> path) {
  const json::Value* cur = &v;
  std::string where;
  for (const auto& s : path) {
    if (s.key) {
      where += std::string(".") + s.key;
      cur = json::find(*cur, s.key);
    } else {
      where += "[" + std::to_string(s.index) + "]";
      cur = cur->IsArray() && s.index < static_cast<int>(cur->Size()) ? &(*cur)[s.index] : nullptr;
    }
    if (!cur) throw std::out_of_range("no value at " + where);
  }
  return *cur;
}

}  // namespace cfo::workload::test

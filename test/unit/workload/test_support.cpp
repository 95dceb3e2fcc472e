#include "test_support.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cfo::workload::test {

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
  return test_support::yaml_files(source_dir() + "/" + dir);
}

const validation::SchemaSet* upstream_schemas() { return test_support::upstream_schemas().get(); }

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

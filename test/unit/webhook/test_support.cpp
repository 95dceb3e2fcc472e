#include "test_support.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace cfo::webhook::test {

std::vector<std::string> yaml_files(const std::string& dir) { return test_support::yaml_files(dir, true); }

std::string review_json(const json::Value& object, Operation op, const json::Value* old_object,
                        const std::string& uid) {
  json::Document d;
  d.SetObject();
  auto& a = d.GetAllocator();
  d.AddMember("apiVersion", "admission.k8s.io/v1", a);
  d.AddMember("kind", "AdmissionReview", a);
  json::Value req(rapidjson::kObjectType);
  req.AddMember("uid", json::str(uid, a), a);
  const std::string api_version = json::get_string(object, "apiVersion").value_or("");
  const auto slash = api_version.find('/');
  json::Value kind(rapidjson::kObjectType);
  kind.AddMember("group", json::str(slash == std::string::npos ? "" : api_version.substr(0, slash), a), a);
  kind.AddMember("version", json::str(slash == std::string::npos ? api_version : api_version.substr(slash + 1), a), a);
  kind.AddMember("kind", json::str(json::get_string(object, "kind").value_or(""), a), a);
  req.AddMember("kind", kind, a);
  req.AddMember("operation", json::str(operation_name(op), a), a);
  req.AddMember("name", json::str(json::string_at(object, "metadata.name"), a), a);
  req.AddMember("namespace", "team-a", a);
  json::Value user(rapidjson::kObjectType);
  user.AddMember("username", "alice", a);
  json::Value groups(rapidjson::kArrayType);
  groups.PushBack("system:authenticated", a);
  user.AddMember("groups", groups, a);
  req.AddMember("userInfo", user, a);
  req.AddMember("object", json::Value(object, a), a);
  if (old_object) req.AddMember("oldObject", json::Value(*old_object, a), a);
  req.AddMember("dryRun", false, a);
  d.AddMember("request", req, a);
  return json::dump(d);
}

AdmissionRequest review_of(const json::Value& object, Operation op, const json::Value* old_object) {
  auto r = decode_admission_review(review_json(object, op, old_object));
  if (!r) throw std::runtime_error("review_of: " + r.error().message);
  return std::move(*r);
}

}  // namespace cfo::webhook::test

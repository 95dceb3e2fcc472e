#include "fake_api.hpp"

#include "core/timestamp.hpp"

namespace cfo::op::test {

void FakeApi::put(const std::string& path, const json::Value& obj) {
  json::Document d;
  d.CopyFrom(obj, d.GetAllocator());
  objects[path] = std::move(d);
}

std::vector<json::Document> FakeApi::applied_to(const std::string& path) const {
  std::vector<json::Document> out;
  for (const auto& [p, body] : applied_)
    if (p == path) {
      json::Document d;
      d.CopyFrom(body, d.GetAllocator());
      out.push_back(std::move(d));
    }
  return out;
}

std::optional<Error> FakeApi::failure_for(const std::string& line) {
  if (auto once = failures_once.find(line); once != failures_once.end()) {
    Error e = once->second;
    failures_once.erase(once);
    return e;
  }
  if (auto f = failures.find(line); f != failures.end()) return f->second;
  return std::nullopt;
}

std::size_t FakeApi::count(const std::string& prefix) const {
  std::size_t n = 0;
  for (const auto& l : log) n += l.rfind(prefix, 0) == 0;
  return n;
}

Api FakeApi::api() {
  Api a;
  a.get = [this](const std::string& path) -> Result<json::Document> {
    const std::string line = "GET " + path;
    log.push_back(line);
    if (auto f = failure_for(line)) return std::unexpected(*f);
    auto it = objects.find(path);
    if (it == objects.end()) return fail("not found", 404, "NotFound");
    json::Document d;
    d.CopyFrom(it->second, d.GetAllocator());
    return d;
  };
  a.apply = [this](const std::string& path, const json::Value& obj,
                   const client::WriteOptions& o) -> Result<json::Document> {
    const std::string line = (o.dry_run ? "DRYRUN " : "APPLY ") + path;
    log.push_back(line);
    if (auto f = failure_for(line)) return std::unexpected(*f);
    json::Document d;
    d.CopyFrom(obj, d.GetAllocator());
    if (!o.dry_run) {
      json::Document copy;
      copy.CopyFrom(obj, copy.GetAllocator());
      applied_.emplace_back(path, std::move(copy));
      const std::string version = std::to_string(applied_.size());
      versions[path] = version;
      if (json::Value* meta = json::find(d, "metadata"); meta && meta->IsObject()) {
        json::set(*meta, "resourceVersion", json::str(version, d.GetAllocator()), d.GetAllocator());
        if (!json::find(*meta, "creationTimestamp"))  // as the apiserver answers: when it was made
          json::set(*meta, "creationTimestamp", json::str(now_rfc3339(), d.GetAllocator()), d.GetAllocator());
      }
    }
    return d;
  };
  a.create = [this](const std::string& path, const json::Value& obj,
                    const client::WriteOptions& o) -> Result<json::Document> {
    const std::string line = (o.dry_run ? "DRYRUN " : "CREATE ") + path;
    log.push_back(line);
    if (auto f = failure_for(line)) return std::unexpected(*f);
    const std::string object_path = path + "/" + json::string_at(obj, "metadata.name");
    if (objects.contains(object_path)) return fail("already exists", 409, "AlreadyExists");
    json::Document d;
    d.CopyFrom(obj, d.GetAllocator());
    if (!o.dry_run) {
      json::Document copy;
      copy.CopyFrom(obj, copy.GetAllocator());
      applied_.emplace_back(object_path, std::move(copy));
      // As the apiserver answers a create: a resourceVersion, a creation time, and the creator's managedFields entry.
      const std::string version = std::to_string(applied_.size());
      versions[object_path] = version;
      if (json::Value* meta = json::find(d, "metadata"); meta && meta->IsObject()) {
        auto& a = d.GetAllocator();
        json::set(*meta, "resourceVersion", json::str(version, a), a);
        if (!json::find(*meta, "creationTimestamp"))
          json::set(*meta, "creationTimestamp", json::str(now_rfc3339(), a), a);
        if (!o.field_manager.empty()) {
          json::Value entry(rapidjson::kObjectType);
          entry.AddMember("manager", json::str(o.field_manager, a), a);
          entry.AddMember("operation", "Update", a);
          json::Value entries(rapidjson::kArrayType);
          entries.PushBack(entry.Move(), a);
          json::set(*meta, "managedFields", std::move(entries), a);
        }
      }
      put(object_path, d);
    }
    return d;
  };
  a.json_patch = [this](const std::string& path, const json::Value& ops,
                        const client::WriteOptions&) -> Result<json::Document> {
    const std::string line = "PATCH " + path;
    log.push_back(line);
    if (auto f = failure_for(line)) return std::unexpected(*f);
    json::Document copy;
    copy.CopyFrom(ops, copy.GetAllocator());
    applied_.emplace_back(path, std::move(copy));
    return json::Document(rapidjson::kObjectType);
  };
  a.remove = [this](const std::string& path) -> Result<void> {
    const std::string line = "DELETE " + path;
    log.push_back(line);
    if (auto f = failure_for(line)) return std::unexpected(*f);
    objects.erase(path);
    return {};
  };
  a.remove_exactly = [this](const std::string& path, const std::string& uid) -> Result<bool> {
    const std::string line = "DELETE " + path;
    log.push_back(line);
    if (auto f = failure_for(line)) return std::unexpected(*f);
    auto it = objects.find(path);
    if (it == objects.end() || json::string_at(it->second, "metadata.uid") != uid) return false;
    objects.erase(it);
    return true;
  };
  return a;
}

}  // namespace cfo::op::test

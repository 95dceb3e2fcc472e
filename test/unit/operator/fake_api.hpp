#pragma once
// A recording stand-in for the operator's Api seam (not an apiserver): objects by path, a log of every request, and
// scripted failures. Enough to drive the controller's paths without a server.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"
#include "operator/api.hpp"

namespace cfo::op::test {

class FakeApi {
 public:
  /// One request as made: "GET path", "APPLY path", "CREATE collection path", "DRYRUN path" (of an apply or a
  /// create), "PATCH path" (a JSON patch), "DELETE path".
  std::vector<std::string> log;
  /// What GET answers, by path (404 when absent); a CREATE of an object held here answers 409 AlreadyExists, and
  /// stores its body here otherwise (not a dry run).
  std::map<std::string, json::Document> objects;
  /// Failures by request line ("APPLY /apis/...", "DRYRUN ...", "DELETE ...", "GET ..."): answered instead.
  std::map<std::string, Error> failures;
  /// Failures answered once each, before `failures`, by request line.
  std::map<std::string, Error> failures_once;
  /// The metadata.resourceVersion the last apply or create (not a dry run) to each object path answered with, as the
  /// apiserver gives every write a new one: "1", "2", ... in the order of the writes. The response also carries a
  /// metadata.creationTimestamp (now, when the body has none); a create's, the managedFields entry of its field
  /// manager with operation Update, as the apiserver records a POST.
  std::map<std::string, std::string> versions;

  /// Stores `yaml`'s object at `path`.
  void put(const std::string& path, const json::Value& obj);
  /// The Api seam over this fake (the fake must outlive it).
  Api api();
  /// The bodies applied, created (not dry runs) or JSON-patched (the operations) at object path `path`, in order.
  std::vector<json::Document> applied_to(const std::string& path) const;
  /// Number of log lines that start with `prefix`.
  std::size_t count(const std::string& prefix) const;
  /// The scripted failure for request `line` (failures_once first, then dropped; then failures), if any.
  std::optional<Error> failure_for(const std::string& line);

 private:
  std::vector<std::pair<std::string, json::Document>> applied_;
};

}  // namespace cfo::op::test

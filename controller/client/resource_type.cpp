// URL paths of the Kubernetes REST API (api-concepts: "/api/v1" for the core group, "/apis/<group>/<version>" for
// the others; namespaced collections under "namespaces/<ns>").
#include "client/rest_client.hpp"

namespace cfo::client {

std::string ResourceType::api_prefix() const {
  return group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
}

std::string ResourceType::collection_path(const std::string& ns) const {
  if (namespaced && !ns.empty()) return api_prefix() + "/namespaces/" + ns + "/" + plural;
  return api_prefix() + "/" + plural;
}

std::string ResourceType::object_path(const std::string& ns, const std::string& name) const {
  return collection_path(ns) + "/" + name;
}

}  // namespace cfo::client

#include "operator/api.hpp"

namespace cfo::op {

Api rest_api(client::RestClient& client) {
  Api api;
  api.get = [&client](const std::string& path) { return client.get_json(path); };
  api.apply = [&client](const std::string& path, const json::Value& object, const client::WriteOptions& options) {
    return client.apply(path, object, options);
  };
  api.create = [&client](const std::string& path, const json::Value& object, const client::WriteOptions& options) {
    return client.create(path, object, options);
  };
  api.json_patch = [&client](const std::string& path, const json::Value& ops, const client::WriteOptions& options) {
    return client.json_patch(path, ops, options);
  };
  api.remove = [&client](const std::string& path) { return client.remove(path); };
  api.remove_exactly = [&client](const std::string& path, const std::string& uid) {
    return client.remove_exactly(path, uid);
  };
  return api;
}

}  // namespace cfo::op

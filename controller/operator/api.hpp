#pragma once
// The apiserver as the operator's controller uses it: a narrow seam (in the style of runtime::ListWatcher and
// runtime::EventPoster) so that the controller's paths are tested without a server.
#include <functional>
#include <string>

#include "client/rest_client.hpp"
#include "core/error.hpp"
#include "core/json.hpp"

namespace cfo::op {

/// The requests the controller makes. Every path is an apiserver path (object or collection, with query).
/// Each member returns the object the server returned or an Error carrying http_status (see client::RestClient).
struct Api {
  /// GET of an object or a collection ("...?labelSelector=...").
  std::function<Result<json::Document>(const std::string& path)> get;
  /// Server-side apply of `object` to an object path, or an object path + "/status".
  std::function<Result<json::Document>(const std::string& path, const json::Value& object,
                                       const client::WriteOptions& options)>
      apply;
  /// POST of `object` to a collection path: a create that fails (409 AlreadyExists) when the object exists, for
  /// what must never be taken over (a managed LocalQueue).
  std::function<Result<json::Document>(const std::string& collection_path, const json::Value& object,
                                       const client::WriteOptions& options)>
      create;
  /// JSON patch (RFC 6902) of an object path: `ops` is the array of operations; a failed `test` writes nothing.
  std::function<Result<json::Document>(const std::string& path, const json::Value& ops,
                                       const client::WriteOptions& options)>
      json_patch;
  /// DELETE of an object path; 404 is not an error.
  std::function<Result<void>(const std::string& path)> remove;
  /// DELETE of an object path only while its uid is `uid`: true when deleted by this request, false when gone or
  /// replaced meanwhile (client::RestClient::remove_exactly).
  std::function<Result<bool>(const std::string& path, const std::string& uid)> remove_exactly;
};

/// An Api over a RestClient (get_json, apply, create, json_patch, remove). The client must outlive the Api.
Api rest_api(client::RestClient& client);

}  // namespace cfo::op

#pragma once
// /healthz and /readyz: named checks served the way controller-runtime's healthz package serves them.
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/http_server.hpp"

namespace cfo::runtime {

/// A check: std::nullopt when healthy, else one line saying what is wrong. Called on the probe server's thread at
/// every probe, so it must be quick and thread-safe.
using HealthCheck = std::function<std::optional<std::string>()>;

/// An ordered set of named checks for one endpoint. Add every check before serving.
class HealthChecks {
 public:
  /// Adds a check named `name` (letters, digits, '-'; shown in verbose output and usable as /<endpoint>/<name>).
  void add(std::string name, HealthCheck check);

  /// Answers GET <endpoint>, GET <endpoint>/<check> and their HEAD forms, as controller-runtime's healthz handler:
  ///  - the endpoint runs every check except those named by `exclude=<name>` query parameters (repeatable; unknown
  ///    names are ignored) and answers 200 "ok" when all pass, else 500 listing each check as "[+]name ok" or
  ///    "[-]name failed: reason"; `?verbose` lists the checks on success too;
  ///  - /<endpoint>/<check> runs one check: 200 "ok" or 500 with its reason; 404 for an unknown check.
  /// `rest` is the path after the endpoint ("" or "/<check>"). Other methods get 405.
  HttpResponse serve(const std::string& endpoint, const HttpRequest& req, const std::string& rest) const;

 private:
  std::vector<std::pair<std::string, HealthCheck>> checks_;
};

/// The probe server's handler: /healthz and /readyz (with the sub-paths above) from the two sets; 404 elsewhere.
HttpHandler probe_handler(std::shared_ptr<const HealthChecks> healthz, std::shared_ptr<const HealthChecks> readyz);

}  // namespace cfo::runtime

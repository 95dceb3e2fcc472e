#pragma once
// Support of the runtime end-to-end tests (leader election, metrics, probes, dry-run gate): operator processes that
// each test starts itself (restricted to its own namespaces), plain-HTTP scrapes of their endpoints, and small
// apiserver helpers. Unlike operator_support.cpp, no operator is started for the whole binary.
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/rest_client.hpp"
#include "core/json.hpp"

namespace cfo::rt {

/// The test's apiserver client (admin on the fixture's apiserver, from $KUBECONFIG).
client::RestClient& api();

/// Polls `pred` every 100 ms until it holds or `timeout` passes; returns its last value.
bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout);

/// A TCP port on 127.0.0.1 that was free a moment ago.
uint16_t free_port();

/// A fresh namespace "<prefix>-<random>", created on the apiserver (fatal failure otherwise).
std::string create_namespace(const std::string& prefix);

/// YAML (first document) to JSON.
json::Document from_yaml(const std::string& text);

/// Creates an object from YAML in `ns` (fatal failure on refusal).
void create(const client::ResourceType& type, const std::string& ns, const std::string& yaml_text);

/// Server-side applies a CodeFlareWorkload given as YAML (field manager "runtime-e2e"); fatal failure on refusal.
void apply_workload(const std::string& ns, const std::string& yaml_text);

/// A small valid workload named `name` with `replicas` workers.
std::string cpu_workload(const std::string& name, int replicas);

/// GET of one object; std::nullopt when absent or on error.
std::optional<json::Document> get(const client::ResourceType& type, const std::string& ns, const std::string& name);

/// The items of a list GET of `type` in `ns` (empty on error).
std::vector<json::Document> list(const client::ResourceType& type, const std::string& ns);

/// The status ("True"/"False"/"") of condition `type`; `reason`/`message` receive its reason and message.
std::string condition(const json::Value& obj, const std::string& type, std::string* reason = nullptr,
                      std::string* message = nullptr);

/// Polls (eventually) until object `name` of `type` in `ns` has condition `condition_type` with status `status`
/// ("True"/"False"); returns whether it did within `timeout`. For a status written after another write of the same
/// reconcile (a workload's RayCluster appears before its status says Valid).
bool eventually_condition(const client::ResourceType& type, const std::string& ns, const std::string& name,
                          const std::string& condition_type, const std::string& status,
                          std::chrono::milliseconds timeout);

/// An HTTP answer of an operator endpoint; status 0 when nothing answered.
struct HttpAnswer {
  unsigned status = 0;
  std::string body;
};

/// GET http://127.0.0.1:<port><target> (2 s limit).
HttpAnswer http_get(uint16_t port, const std::string& target);

/// Sends raw bytes to 127.0.0.1:<port> and returns what comes back before the server closes (2 s limit).
std::string http_raw(uint16_t port, const std::string& bytes);

/// The value of sample `name{labels}` in a Prometheus text exposition (labels in any order), or std::nullopt.
std::optional<double> sample(const std::string& text, const std::string& name,
                             const std::map<std::string, std::string>& labels);

/// The sum of every sample of `name` whose labels include `labels`.
double sum_samples(const std::string& text, const std::string& name, const std::map<std::string, std::string>& labels);

/// One `codeflare-operator run` child process with its own metrics and probe ports and log file.
class OperatorProcess {
 public:
  /// Starts `$CFO_OPERATOR_BIN run --kubeconfig $KUBECONFIG --metrics-bind-address 127.0.0.1:<m>
  /// --health-probe-bind-address 127.0.0.1:<p> --log-level debug <extra...>`; stdout and stderr go to
  /// <control-plane dir>/<name>.log. `kubeconfig` replaces $KUBECONFIG when not empty (e.g. one through a proxy).
  OperatorProcess(const std::string& name, const std::vector<std::string>& extra, const std::string& kubeconfig = "");
  /// Kills it (SIGKILL) when still running.
  ~OperatorProcess();
  OperatorProcess(const OperatorProcess&) = delete;
  OperatorProcess& operator=(const OperatorProcess&) = delete;

  uint16_t metrics_port() const { return metrics_port_; }
  uint16_t probe_port() const { return probe_port_; }
  /// GET /metrics body ("" when it does not answer).
  std::string scrape() const;
  /// leader_election_master_status of this process (std::nullopt when not scrapeable).
  std::optional<double> master_status(const std::string& lease_name) const;

  /// SIGKILL and reap.
  void kill9();
  /// SIGTERM, then waits up to `timeout` for the exit; returns the exit code (-1 when killed by a signal or when it
  /// had to be killed after the timeout).
  int terminate(std::chrono::seconds timeout = std::chrono::seconds(15));
  /// The exit code once it has exited by itself (-1 for a signal); std::nullopt while running.
  std::optional<int> exit_code();

  /// The identity it uses for leader election, read from its log ("" until logged).
  std::string identity() const;
  /// The path of its log file.
  const std::string& log_path() const { return log_path_; }
  /// The last 6000 bytes of its log.
  std::string log_tail() const;
  const std::string& name() const { return name_; }

 private:
  std::string name_;
  std::string log_path_;
  uint16_t metrics_port_ = 0;
  uint16_t probe_port_ = 0;
  pid_t pid_ = -1;
  std::optional<int> exit_code_;
};

}  // namespace cfo::rt

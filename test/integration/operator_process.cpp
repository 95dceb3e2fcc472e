#include "operator_process.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/http/write.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <thread>

#include "client/kubeconfig.hpp"
#include "core/yaml.hpp"

namespace cfo::rt {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

const client::ResourceType kNamespaces{"", "v1", "namespaces", false};
const client::ResourceType kWorkloads{"codeflare.dev", "v1alpha1", "codeflareworkloads", true};

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

client::RestClient& api() {
  static client::RestClient* client = [] {
    auto cfg = client::load_kubeconfig_file(env("KUBECONFIG"));
    if (!cfg) {
      ADD_FAILURE() << "KUBECONFIG: " << cfg.error().message;
      std::abort();
    }
    return new client::RestClient(*cfg);
  }();
  return *client;
}

bool eventually(const std::function<bool()>& pred, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return pred();
}

uint16_t free_port() {
  asio::io_context ioc;
  tcp::acceptor acceptor(ioc, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0));
  return acceptor.local_endpoint().port();
}

std::string create_namespace(const std::string& prefix) {
  static std::mt19937 rng(std::random_device{}());
  const std::string ns = prefix + "-" + std::to_string(rng() % 1000000);
  auto r = api().create(kNamespaces.collection_path(""),
                        from_yaml("apiVersion: v1\nkind: Namespace\nmetadata:\n  name: " + ns + "\n"));
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return ns;
}

json::Document from_yaml(const std::string& text) {
  auto docs = yaml::to_json(text);
  EXPECT_TRUE(docs.has_value() && !docs->empty()) << (docs ? "no document" : docs.error().message);
  if (!docs || docs->empty()) return json::Document(rapidjson::kObjectType);
  return std::move((*docs)[0]);
}

void create(const client::ResourceType& type, const std::string& ns, const std::string& yaml_text) {
  auto r = api().create(type.collection_path(ns), from_yaml(yaml_text));
  ASSERT_TRUE(r.has_value()) << r.error().message;
}

void apply_workload(const std::string& ns, const std::string& yaml_text) {
  auto body = from_yaml(yaml_text);
  const std::string name = json::get_string(body["metadata"], "name").value_or("");
  client::WriteOptions wo;
  wo.field_manager = "runtime-e2e";
  auto r = api().apply(kWorkloads.object_path(ns, name), body, wo);
  ASSERT_TRUE(r.has_value()) << r.error().message;
}

std::string cpu_workload(const std::string& name, int replicas) {
  return "apiVersion: codeflare.dev/v1alpha1\nkind: CodeFlareWorkload\nmetadata:\n  name: " + name +
         "\nspec:\n  workerGroups:\n  - name: workers\n    replicas: " + std::to_string(replicas) +
         "\n    resources:\n      requests: {cpu: \"1\", memory: 1Gi}\n      limits: {cpu: \"1\", memory: 1Gi}\n";
}

std::optional<json::Document> get(const client::ResourceType& type, const std::string& ns, const std::string& name) {
  auto r = api().get_json(type.object_path(ns, name));
  if (!r) return std::nullopt;
  return std::move(*r);
}

std::vector<json::Document> list(const client::ResourceType& type, const std::string& ns) {
  std::vector<json::Document> out;
  auto r = api().get_json(type.collection_path(ns));
  if (!r) return out;
  const json::Value* items = json::find(*r, "items");
  if (items && items->IsArray())
    for (const auto& item : items->GetArray()) out.push_back(json::clone(item));
  return out;
}

std::string condition(const json::Value& obj, const std::string& type, std::string* reason, std::string* message) {
  const json::Value* conds = json::find_path(obj, "status.conditions");
  if (!conds || !conds->IsArray()) return "";
  for (const auto& c : conds->GetArray()) {
    if (json::get_string(c, "type") != type) continue;
    if (reason) *reason = json::get_string(c, "reason").value_or("");
    if (message) *message = json::get_string(c, "message").value_or("");
    return json::get_string(c, "status").value_or("");
  }
  return "";
}

bool eventually_condition(const client::ResourceType& type, const std::string& ns, const std::string& name,
                          const std::string& condition_type, const std::string& status,
                          std::chrono::milliseconds timeout) {
  return eventually(
      [&] {
        auto obj = get(type, ns, name);
        return obj && condition(*obj, condition_type) == status;
      },
      timeout);
}

HttpAnswer http_get(uint16_t port, const std::string& target) {
  try {
    asio::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.expires_after(std::chrono::seconds(2));
    stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    http::request<http::string_body> req{http::verb::get, target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.keep_alive(false);
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    return {res.result_int(), res.body()};
  } catch (const std::exception&) {
    return {};
  }
}

std::string http_raw(uint16_t port, const std::string& bytes) {
  std::string out;
  try {
    asio::io_context ioc;
    beast::tcp_stream stream(ioc);
    stream.expires_after(std::chrono::seconds(2));
    stream.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port));
    stream.write_some(asio::buffer(bytes));
    stream.socket().shutdown(tcp::socket::shutdown_send);
    char buf[4096];
    for (;;) {
      boost::system::error_code ec;
      std::size_t n = stream.socket().read_some(asio::buffer(buf), ec);
      out.append(buf, n);
      if (ec) break;
    }
  } catch (const std::exception&) {
  }
  return out;
}

namespace {

/// Each sample line of `text` named `name`, as (labels, value).
std::vector<std::pair<std::map<std::string, std::string>, double>> samples_of(const std::string& text,
                                                                              const std::string& name) {
  std::vector<std::pair<std::map<std::string, std::string>, double>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    const auto brace = line.find('{');
    const auto space = line.rfind(' ');
    if (space == std::string::npos) continue;
    if (line.substr(0, brace == std::string::npos ? space : brace) != name) continue;
    std::map<std::string, std::string> labels;
    if (brace != std::string::npos) {
      const std::string inner = line.substr(brace + 1, line.rfind('}') - brace - 1);
      std::size_t pos = 0;
      while (pos < inner.size()) {
        const auto eq = inner.find("=\"", pos);
        if (eq == std::string::npos) break;
        const auto close = inner.find('"', eq + 2);
        labels[inner.substr(pos, eq - pos)] = inner.substr(eq + 2, close - eq - 2);
        pos = close + 2;
      }
    }
    out.emplace_back(std::move(labels), std::stod(line.substr(space + 1)));
  }
  return out;
}

}  // namespace

std::optional<double> sample(const std::string& text, const std::string& name,
                             const std::map<std::string, std::string>& labels) {
  for (const auto& [l, v] : samples_of(text, name))
    if (l == labels) return v;
  return std::nullopt;
}

double sum_samples(const std::string& text, const std::string& name, const std::map<std::string, std::string>& labels) {
  double total = 0;
  for (const auto& [l, v] : samples_of(text, name)) {
    bool match = true;
    for (const auto& [k, want] : labels) {
      auto it = l.find(k);
      match = match && it != l.end() && it->second == want;
    }
    if (match) total += v;
  }
  return total;
}

OperatorProcess::OperatorProcess(const std::string& name, const std::vector<std::string>& extra,
                                 const std::string& kubeconfig_override)
    : name_(name) {
  const std::string kubeconfig = kubeconfig_override.empty() ? env("KUBECONFIG") : kubeconfig_override;
  const std::string bin = env("CFO_OPERATOR_BIN");
  EXPECT_FALSE(kubeconfig.empty() || bin.empty()) << "KUBECONFIG and CFO_OPERATOR_BIN must be set (ctest sets them)";
  log_path_ = std::filesystem::path(env("KUBECONFIG")).parent_path() / ("runtime-e2e-" + name + ".log");
  metrics_port_ = free_port();
  probe_port_ = free_port();
  while (probe_port_ == metrics_port_) probe_port_ = free_port();
  std::vector<std::string> argv{bin,
                                "run",
                                "--kubeconfig",
                                kubeconfig,
                                "--metrics-bind-address=127.0.0.1:" + std::to_string(metrics_port_),
                                "--health-probe-bind-address=127.0.0.1:" + std::to_string(probe_port_),
                                "--log-level=debug",
                                "--webhook-bind-address=0"};  // many operators run at once: no shared :9443
  argv.insert(argv.end(), extra.begin(), extra.end());
  pid_ = fork();
  if (pid_ == 0) {
    FILE* log = std::freopen(log_path_.c_str(), "w", stderr);
    (void)log;
    dup2(fileno(stderr), fileno(stdout));
    std::vector<char*> c_argv;
    for (auto& a : argv) c_argv.push_back(a.data());
    c_argv.push_back(nullptr);
    execv(bin.c_str(), c_argv.data());
    _exit(127);
  }
  EXPECT_GT(pid_, 0);
}

OperatorProcess::~OperatorProcess() {
  if (pid_ > 0 && !exit_code_) kill9();
}

std::string OperatorProcess::scrape() const {
  HttpAnswer a = http_get(metrics_port_, "/metrics");
  return a.status == 200 ? a.body : "";
}

std::optional<double> OperatorProcess::master_status(const std::string& lease_name) const {
  return sample(scrape(), "leader_election_master_status", {{"name", lease_name}});
}

void OperatorProcess::kill9() {
  if (pid_ <= 0 || exit_code_) return;
  kill(pid_, SIGKILL);
  int status = 0;
  waitpid(pid_, &status, 0);
  exit_code_ = -1;
}

int OperatorProcess::terminate(std::chrono::seconds timeout) {
  if (exit_code_) return *exit_code_;
  kill(pid_, SIGTERM);
  const bool done = eventually([&] { return exit_code().has_value(); }, timeout);
  if (!done) {
    kill9();
    return -1;
  }
  return *exit_code_;
}

std::optional<int> OperatorProcess::exit_code() {
  if (exit_code_) return exit_code_;
  int status = 0;
  if (pid_ > 0 && waitpid(pid_, &status, WNOHANG) == pid_) exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return exit_code_;
}

std::string OperatorProcess::identity() const {
  std::ifstream in(log_path_);
  std::string line;
  const std::string marker = " as ";
  while (std::getline(in, line)) {
    auto at = line.find("leader election on Lease ");
    if (at == std::string::npos) continue;
    auto as = line.find(marker, at);
    if (as != std::string::npos) return line.substr(as + marker.size());
  }
  return "";
}

std::string OperatorProcess::log_tail() const {
  std::ifstream in(log_path_);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  return "--- log of " + name_ + " ---\n" + (s.size() > 6000 ? s.substr(s.size() - 6000) : s);
}

}  // namespace cfo::rt

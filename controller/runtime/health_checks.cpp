#include "runtime/health_checks.hpp"

#include <exception>
#include <set>
#include <string_view>

namespace cfo::runtime {

namespace {

/// Decodes %XX and '+' of one query component; malformed escapes are kept as they are.
std::string url_decode(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(s[i + 1]) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

/// The query as (name, value) pairs; a parameter without '=' has an empty value.
std::vector<std::pair<std::string, std::string>> query_params(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> out;
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view part = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (part.empty()) continue;
    auto eq = part.find('=');
    out.emplace_back(url_decode(part.substr(0, eq)),
                     eq == std::string_view::npos ? std::string() : url_decode(part.substr(eq + 1)));
  }
  return out;
}

HttpResponse text(unsigned status, std::string body) {
  return HttpResponse{status, "text/plain; charset=utf-8", std::move(body)};
}

/// Runs a check, turning an exception into a failure.
std::optional<std::string> run_check(const HealthCheck& check) {
  try {
    return check();
  } catch (const std::exception& e) {
    return std::string("check threw: ") + e.what();
  } catch (...) {
    return std::string("check threw");
  }
}

}  // namespace

void HealthChecks::add(std::string name, HealthCheck check) { checks_.emplace_back(std::move(name), std::move(check)); }

HttpResponse HealthChecks::serve(const std::string& endpoint, const HttpRequest& req, const std::string& rest) const {
  if (req.method != "GET" && req.method != "HEAD") return text(405, "method not allowed\n");
  const bool head = req.method == "HEAD";
  auto finish = [head](HttpResponse r) {
    if (head) r.body.clear();
    return r;
  };

  if (!rest.empty()) {  // "/<check>"
    const std::string name = rest.substr(1);
    for (const auto& [check_name, check] : checks_) {
      if (check_name != name) continue;
      auto failure = run_check(check);
      return finish(failure ? text(500, "internal server error: " + *failure + "\n") : text(200, "ok"));
    }
    return finish(text(404, "no such check: " + name + "\n"));
  }

  std::set<std::string> excluded;
  bool verbose = false;
  for (const auto& [key, value] : query_params(req.query)) {
    if (key == "exclude") excluded.insert(value);
    if (key == "verbose") verbose = value != "false" && value != "0";
  }
  std::string report;
  bool healthy = true;
  for (const auto& [name, check] : checks_) {
    if (excluded.contains(name)) {
      report += "[+]" + name + " excluded: ok\n";
      continue;
    }
    if (auto failure = run_check(check)) {
      healthy = false;
      report += "[-]" + name + " failed: " + *failure + "\n";
    } else {
      report += "[+]" + name + " ok\n";
    }
  }
  if (healthy && !verbose) return finish(text(200, "ok"));
  report += endpoint + (healthy ? " check passed\n" : " check failed\n");
  return finish(text(healthy ? 200 : 500, std::move(report)));
}

HttpHandler probe_handler(std::shared_ptr<const HealthChecks> healthz, std::shared_ptr<const HealthChecks> readyz) {
  return [healthz = std::move(healthz), readyz = std::move(readyz)](const HttpRequest& req) -> HttpResponse {
    for (const auto& [endpoint, checks] :
         {std::pair{std::string("healthz"), healthz.get()}, std::pair{std::string("readyz"), readyz.get()}}) {
      const std::string prefix = "/" + endpoint;
      if (!checks || !req.path.starts_with(prefix)) continue;
      std::string rest = req.path.substr(prefix.size());
      if (rest == "/") rest.clear();
      if (!rest.empty() && rest.front() != '/') continue;  // e.g. /healthzz
      return checks->serve(endpoint, req, rest);
    }
    return text(404, "not found\n");
  };
}

}  // namespace cfo::runtime

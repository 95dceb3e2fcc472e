#include "webhook/cert_manager.hpp"

#include <spdlog/spdlog.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>

#include "client/base64.hpp"
#include "client/file_text.hpp"

namespace cfo::webhook {

namespace fs = std::filesystem;
namespace keys = secret_keys;

namespace {

const client::ResourceType kSecrets{"", "v1", "secrets", true};
const client::ResourceType kValidatingWebhookConfigurations{"admissionregistration.k8s.io", "v1",
                                                            "validatingwebhookconfigurations", false};

std::string data_value(const json::Value& secret, const char* key) {
  const json::Value* data = json::find(secret, "data");
  if (!data) return {};
  auto encoded = json::get_string(*data, key);
  if (!encoded) return {};
  auto raw = client::decode_base64(*encoded);
  return raw ? *raw : std::string();
}

// An error for a refused request, naming the RBAC rule a 403 lacks.
Error explain(const Error& e, const std::string& verb, const std::string& what) {
  Error out = e;
  out.message = verb + " " + what + ": " + e.message;
  if (e.http_status == 403) out.message += " (the operator's role must allow " + verb + " on it)";
  return out;
}

// Writes `content` to `path` by a rename when it differs from what is there. Returns whether it wrote.
Result<bool> write_if_changed(const fs::path& path, const std::string& content, fs::perms perms) {
  if (auto existing = client::read_file_text(path.string()); existing && *existing == content) return false;
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fail("cannot write " + tmp.string());
    out << content;
    if (!out.flush()) return fail("cannot write " + tmp.string());
  }
  std::error_code ec;
  fs::permissions(tmp, perms, ec);
  fs::rename(tmp, path, ec);
  if (ec) return fail("cannot replace " + path.string() + ": " + ec.message());
  return true;
}

}  // namespace

std::string format_rfc3339(Clock::time_point t) {
  const std::time_t secs = Clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

Clock::time_point parse_rfc3339(const std::string& text) {
  std::tm tm{};
  int consumed = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
                  &tm.tm_min, &tm.tm_sec, &consumed) != 6)
    return {};
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return Clock::from_time_t(timegm(&tm));
}

CertificateSet certificates_from_secret(const json::Value& secret, std::string* resource_version) {
  CertificateSet s;
  s.ca_bundle = data_value(secret, keys::kCaBundle);
  s.signer = {data_value(secret, keys::kSignerCert), data_value(secret, keys::kSignerKey)};
  s.serving = {data_value(secret, keys::kTlsCert), data_value(secret, keys::kTlsKey)};
  s.next_signer = {data_value(secret, keys::kNextSignerCert), data_value(secret, keys::kNextSignerKey)};
  s.next_serving = {data_value(secret, keys::kNextTlsCert), data_value(secret, keys::kNextTlsKey)};
  if (const json::Value* ann = json::find_path(secret, "metadata.annotations")) {
    s.staged_at = parse_rfc3339(json::get_string(*ann, keys::kStagedAtAnnotation).value_or(""));
    s.promoted_at = parse_rfc3339(json::get_string(*ann, keys::kPromotedAtAnnotation).value_or(""));
  }
  if (resource_version) *resource_version = json::string_at(secret, "metadata.resourceVersion");
  return s;
}

json::Document secret_with_certificates(const json::Value* secret, const std::string& namespace_,
                                        const std::string& name, const CertificateSet& set) {
  json::Document d;
  if (secret && secret->IsObject()) {
    d.CopyFrom(*secret, d.GetAllocator());
  } else {
    d.Parse(R"({"apiVersion":"v1","kind":"Secret","type":"Opaque","metadata":{}})");
    json::set(d["metadata"], "name", json::str(name, d.GetAllocator()), d.GetAllocator());
    json::set(d["metadata"], "namespace", json::str(namespace_, d.GetAllocator()), d.GetAllocator());
  }
  auto& a = d.GetAllocator();
  if (!d.HasMember("data") || !d["data"].IsObject()) json::set(d, "data", json::Value(rapidjson::kObjectType), a);
  json::Value& data = d["data"];
  auto put = [&](const char* key, const std::string& value) {
    if (value.empty()) {
      data.RemoveMember(key);
      return;
    }
    json::set(data, key, json::str(client::encode_base64(value), a), a);
  };
  put(keys::kCaBundle, set.ca_bundle);
  put(keys::kSignerCert, set.signer.cert_pem);
  put(keys::kSignerKey, set.signer.key_pem);
  put(keys::kTlsCert, set.serving.cert_pem);
  put(keys::kTlsKey, set.serving.key_pem);
  put(keys::kNextSignerCert, set.next_signer.cert_pem);
  put(keys::kNextSignerKey, set.next_signer.key_pem);
  put(keys::kNextTlsCert, set.next_serving.cert_pem);
  put(keys::kNextTlsKey, set.next_serving.key_pem);
  json::Value& meta = d["metadata"];
  if (!meta.HasMember("annotations") || !meta["annotations"].IsObject())
    json::set(meta, "annotations", json::Value(rapidjson::kObjectType), a);
  json::Value& ann = meta["annotations"];
  auto stamp = [&](const char* key, Clock::time_point t) {
    if (t == Clock::time_point{})
      ann.RemoveMember(key);
    else
      json::set(ann, key, json::str(format_rfc3339(t), a), a);
  };
  stamp(keys::kStagedAtAnnotation, set.staged_at);
  stamp(keys::kPromotedAtAnnotation, set.promoted_at);
  return d;
}

CertManager::CertManager(client::RestClient& client, CertManagerOptions options, std::function<bool()> is_leader)
    : client_(client), options_(std::move(options)), is_leader_(std::move(is_leader)) {
  if (!options_.now) options_.now = [] { return Clock::now(); };
  if (options_.policy.settle <= std::chrono::duration_cast<std::chrono::seconds>(options_.sync_period))
    spdlog::warn("webhook certificates: the rotation settle time ({} s) should exceed the Secret sync period ({} ms)",
                 options_.policy.settle.count(), options_.sync_period.count());
}

namespace {

// Makes every webhook of the named configurations carry `bundle`. Returns whether they all do now; counts patches.
Result<bool> inject_bundle(client::RestClient& client, const std::vector<std::string>& names, const std::string& bundle,
                           int& patched) {
  const std::string encoded = client::encode_base64(bundle);
  for (const auto& name : names) {
    const std::string path = kValidatingWebhookConfigurations.object_path("", name);
    auto config = client.get_json(path);
    if (!config) {
      if (config.error().is_not_found()) continue;  // not installed (e.g. the optional guards)
      return std::unexpected(explain(config.error(), "get", "ValidatingWebhookConfiguration " + name));
    }
    const json::Value* webhooks = json::find(*config, "webhooks");
    if (!webhooks || !webhooks->IsArray()) continue;
    // A JSON patch per webhook whose bundle differs, guarded by a test of its name (a concurrent reorder fails the
    // patch instead of giving a webhook another's configuration).
    json::Document ops(rapidjson::kArrayType);
    auto& a = ops.GetAllocator();
    int changed = 0;
    for (rapidjson::SizeType i = 0; i < webhooks->Size(); ++i) {
      const json::Value& w = (*webhooks)[i];
      if (json::string_at(w, "clientConfig.caBundle") == encoded) continue;
      const std::string base = "/webhooks/" + std::to_string(i);
      json::Value test(rapidjson::kObjectType), add(rapidjson::kObjectType);
      test.AddMember("op", "test", a);
      test.AddMember("path", json::str(base + "/name", a), a);
      test.AddMember("value", json::str(json::get_string(w, "name").value_or(""), a), a);
      add.AddMember("op", "add", a);
      add.AddMember("path", json::str(base + "/clientConfig/caBundle", a), a);
      add.AddMember("value", json::str(encoded, a), a);
      ops.PushBack(test, a);
      ops.PushBack(add, a);
      ++changed;
    }
    if (changed == 0) continue;
    auto r = client.request("PATCH", path, json::dump(ops), "application/json-patch+json");
    if (!r) return std::unexpected(explain(r.error(), "patch", "ValidatingWebhookConfiguration " + name));
    if (r->status < 200 || r->status >= 300)
      return std::unexpected(explain(client::status_error(*r), "patch", "ValidatingWebhookConfiguration " + name));
    patched += changed;
    spdlog::info("webhook certificates: CA bundle set in {} webhook(s) of ValidatingWebhookConfiguration {}", changed,
                 name);
  }
  return true;
}

}  // namespace

Result<CertSyncReport> CertManager::sync_once() {
  CertSyncReport report;
  report.leader = is_leader_ && is_leader_();
  const std::string secret_path = kSecrets.object_path(options_.namespace_, options_.secret_name);
  const std::string what = "Secret " + options_.namespace_ + "/" + options_.secret_name;

  auto got = client_.get_json(secret_path);
  if (!got && !got.error().is_not_found()) return std::unexpected(explain(got.error(), "get", what));
  const bool exists = got.has_value();
  std::string resource_version;
  CertificateSet state = exists ? certificates_from_secret(*got, &resource_version) : CertificateSet{};

  if (report.leader) {
    bool in_place = false;
    if (!state.ca_bundle.empty()) {
      auto injected = inject_bundle(client_, options_.webhook_configurations, state.ca_bundle, report.webhooks_patched);
      if (!injected) spdlog::warn("webhook certificates: {}", injected.error().message);
      in_place = injected.value_or(false);
    }
    const Clock::time_point now = options_.now();
    report.decision = decide_rotation(state, now, options_.policy, options_.names, in_place);
    if (report.decision.step != RotationStep::Keep) {
      auto next = apply_rotation(report.decision.step, state, now, options_.policy, options_.names);
      if (!next) return std::unexpected(next.error());
      json::Document secret =
          secret_with_certificates(exists ? &*got : nullptr, options_.namespace_, options_.secret_name, *next);
      Result<client::Response> written =
          exists ? client_.request("PUT", secret_path, json::dump(secret))
                 : client_.request("POST", kSecrets.collection_path(options_.namespace_), json::dump(secret));
      if (!written) return std::unexpected(explain(written.error(), exists ? "update" : "create", what));
      if (written->status < 200 || written->status >= 300) {
        Error e = explain(client::status_error(*written), exists ? "update" : "create", what);
        if (!exists && written->status == 403)
          e.message +=
              "; apply the empty Secret of the manifests (config/webhook) so that the operator only updates it";
        return std::unexpected(e);
      }
      report.secret_written = true;
      spdlog::info("webhook certificates: {} ({})", rotation_step_name(report.decision.step), report.decision.why);
      if (next->ca_bundle != state.ca_bundle) {
        auto injected =
            inject_bundle(client_, options_.webhook_configurations, next->ca_bundle, report.webhooks_patched);
        if (!injected) spdlog::warn("webhook certificates: {}", injected.error().message);
      }
      state = std::move(*next);
    }
  } else if (!exists) {
    spdlog::debug("webhook certificates: {} does not exist yet; waiting for the leader", what);
  }

  if (state.serving.cert_pem.empty() || state.serving.key_pem.empty()) return report;
  report.serving_available = true;
  std::error_code ec;
  fs::create_directories(options_.cert_dir, ec);
  if (ec) return fail("cannot create " + options_.cert_dir + ": " + ec.message());
  const fs::path dir(options_.cert_dir);
  // The certificate first, then its key: the server's check sees a torn pair at worst, rejects it and loads the
  // complete one at its next check.
  const std::pair<const char*, const std::string*> files[] = {{keys::kTlsCert, &state.serving.cert_pem},
                                                              {keys::kTlsKey, &state.serving.key_pem},
                                                              {keys::kCaBundle, &state.ca_bundle}};
  for (const auto& [name, content] : files) {
    const bool secret_file = std::string(name) == keys::kTlsKey;
    auto w = write_if_changed(
        dir / name, *content,
        secret_file ? fs::perms::owner_read | fs::perms::owner_write
                    : fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read);
    if (!w) return std::unexpected(w.error());
    report.files_written = report.files_written || *w;
  }
  return report;
}

void CertManager::run(client::StopToken& stop) {
  client::StopToken* stops[] = {&stop};
  while (!stop.stop_requested()) {
    auto r = sync_once();
    auto delay = options_.sync_period;
    if (!r) {
      spdlog::warn("webhook certificates: {}", r.error().message);
      delay = std::min<std::chrono::milliseconds>(delay, std::chrono::seconds(5));
    }
    client::sleep_unless_stopped(delay, stops);
  }
}

}  // namespace cfo::webhook

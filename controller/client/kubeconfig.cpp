// Kubeconfig parsing. Field names and the checks follow client-go's clientcmd (api/v1 types and validation.go):
// a context names a cluster and a user; `*-data` fields hold base64 PEM; file paths are relative to the file.
#include "client/kubeconfig.hpp"

#include <filesystem>
#include <optional>

#include "client/base64.hpp"
#include "client/file_text.hpp"
#include "client/server_url.hpp"
#include "core/json.hpp"
#include "core/yaml.hpp"

namespace cfo::client {

namespace {

std::unexpected<Error> kfail(const std::string& what) { return fail("kubeconfig: " + what); }

/// A member of `obj` that must be a string when present; empty when absent or null (clientcmd's string fields have
/// no "unset" distinct from "": every reader here treats both alike).
Result<std::string> opt_string(const json::Value& obj, const char* key, const std::string& path) {
  const json::Value* v = json::find(obj, key);
  if (!v || v->IsNull()) return std::string{};
  if (!v->IsString()) return kfail(path + "." + key + " must be a string, not " + json::type_name(*v));
  return std::string(v->GetString(), v->GetStringLength());
}

/// Same for booleans; absent means false.
Result<bool> opt_bool(const json::Value& obj, const char* key, const std::string& path) {
  const json::Value* v = json::find(obj, key);
  if (!v || v->IsNull()) return false;
  if (!v->IsBool()) return kfail(path + "." + key + " must be a boolean, not " + json::type_name(*v));
  return v->GetBool();
}

/// The body of the entry of list `list_key` (clusters, users, contexts) whose `name` is `name`, with its field path
/// ("clusters[\"kind\"].cluster"). Errors: the list is not a list, no such entry, the body is not a mapping.
struct Entry {
  const json::Value* body;
  std::string path;
};

Result<Entry> find_entry(const json::Value& root, const char* list_key, const char* item_key, const std::string& name) {
  const json::Value* list = json::find(root, list_key);
  if (list && !list->IsNull() && !list->IsArray())
    return kfail(std::string(list_key) + " must be a list, not " + json::type_name(*list));
  if (list && list->IsArray()) {
    for (const auto& e : list->GetArray()) {
      auto n = json::get_string(e, "name");
      if (!n || *n != name) continue;
      std::string path = std::string(list_key) + "[\"" + name + "\"]." + item_key;
      const json::Value* body = json::find(e, item_key);
      if (!body || !body->IsObject()) return kfail(path + " must be a mapping");
      return Entry{body, path};
    }
  }
  return kfail(std::string(item_key) + " \"" + name + "\" not found");
}

/// Absolute form of a path written in the kubeconfig: relative paths are taken from `base_dir`.
std::string resolve_path(const std::string& p, const std::string& base_dir) {
  std::filesystem::path path(p);
  if (path.is_absolute() || base_dir.empty()) return path.lexically_normal().string();
  return (std::filesystem::path(base_dir) / path).lexically_normal().string();
}

/// PEM material given either inline (`data_key`, base64) or by file (`file_key`). Both set is an error, as in
/// clientcmd validation. Returns std::nullopt when neither is set; `file_out` receives the resolved file path.
Result<std::optional<std::string>> pem_material(const json::Value& obj, const std::string& path, const char* data_key,
                                                const char* file_key, const std::string& base_dir,
                                                std::string* file_out) {
  auto data = opt_string(obj, data_key, path);
  if (!data) return std::unexpected(data.error());
  auto file = opt_string(obj, file_key, path);
  if (!file) return std::unexpected(file.error());
  bool has_data = !data->empty();
  bool has_file = !file->empty();
  if (has_data && has_file) return kfail(path + ": both " + data_key + " and " + file_key + " are set; set only one");
  if (has_data) {
    auto pem = decode_base64(*data);
    if (!pem) return kfail(path + "." + data_key + ": " + pem.error().message);
    return std::optional<std::string>(std::move(*pem));
  }
  if (has_file) {
    std::string resolved = resolve_path(*file, base_dir);
    auto text = read_file_text(resolved);
    if (!text) return kfail(path + "." + file_key + ": " + text.error().message);
    if (file_out) *file_out = resolved;
    return std::optional<std::string>(std::move(*text));
  }
  return std::optional<std::string>{};
}

Result<void> read_cluster(const Entry& cluster, const std::string& base_dir, ClientConfig& cfg) {
  const json::Value& c = *cluster.body;
  auto server = opt_string(c, "server", cluster.path);
  if (!server) return std::unexpected(server.error());
  if (server->empty()) return kfail(cluster.path + ".server is required");
  std::string s = *server;
  while (!s.empty() && s.back() == '/') s.pop_back();
  if (auto url = parse_server_url(s); !url) return kfail(cluster.path + ".server: " + url.error().message);
  cfg.server = s;

  auto insecure = opt_bool(c, "insecure-skip-tls-verify", cluster.path);
  if (!insecure) return std::unexpected(insecure.error());
  cfg.insecure_skip_tls_verify = *insecure;

  auto ca =
      pem_material(c, cluster.path, "certificate-authority-data", "certificate-authority", base_dir, &cfg.ca_file);
  if (!ca) return std::unexpected(ca.error());
  if (std::optional<std::string>& ca_pem = *ca; ca_pem) {
    if (cfg.insecure_skip_tls_verify)
      return kfail(cluster.path + ": insecure-skip-tls-verify cannot be combined with a certificate authority");
    cfg.ca_pem = std::move(*ca_pem);
  }
  return {};
}

/// A header value must not hold a line break (it would end the header and start another).
bool header_safe(const std::string& s) { return s.find_first_of("\r\n") == std::string::npos; }

/// `as`, `as-uid`, `as-groups` (a list of strings) and `as-user-extra` (a map of string lists) of a kubeconfig user.
Result<void> read_impersonation(const json::Value& u, const std::string& path, ClientConfig& cfg) {
  auto as = opt_string(u, "as", path);
  if (!as) return std::unexpected(as.error());
  auto uid = opt_string(u, "as-uid", path);
  if (!uid) return std::unexpected(uid.error());
  cfg.impersonate_user = *as;
  cfg.impersonate_uid = *uid;
  if (const json::Value* groups = json::find(u, "as-groups"); groups && !groups->IsNull()) {
    if (!groups->IsArray()) return kfail(path + ".as-groups must be a list of strings");
    for (const auto& g : groups->GetArray()) {
      if (!g.IsString()) return kfail(path + ".as-groups must be a list of strings");
      cfg.impersonate_groups.emplace_back(g.GetString(), g.GetStringLength());
    }
  }
  if (const json::Value* extra = json::find(u, "as-user-extra"); extra && !extra->IsNull()) {
    if (!extra->IsObject()) return kfail(path + ".as-user-extra must be a map of string lists");
    for (const auto& m : extra->GetObject()) {
      auto& values = cfg.impersonate_extra[std::string(m.name.GetString(), m.name.GetStringLength())];
      if (!m.value.IsArray()) return kfail(path + ".as-user-extra must be a map of string lists");
      for (const auto& v : m.value.GetArray()) {
        if (!v.IsString()) return kfail(path + ".as-user-extra must be a map of string lists");
        values.emplace_back(v.GetString(), v.GetStringLength());
      }
    }
  }
  const bool others = !cfg.impersonate_uid.empty() || !cfg.impersonate_groups.empty() || !cfg.impersonate_extra.empty();
  if (cfg.impersonate_user.empty() && others)
    return kfail(path + ": as-uid, as-groups and as-user-extra need `as` (the user to impersonate)");
  bool safe = header_safe(cfg.impersonate_user) && header_safe(cfg.impersonate_uid);
  for (const auto& g : cfg.impersonate_groups) safe = safe && header_safe(g);
  for (const auto& [k, vs] : cfg.impersonate_extra)
    for (const auto& v : vs) safe = safe && header_safe(k) && header_safe(v);
  if (!safe) return kfail(path + ": impersonation values must not contain line breaks");
  return {};
}

Result<void> read_user(const Entry& user, const std::string& base_dir, ClientConfig& cfg) {
  const json::Value& u = *user.body;
  auto token = opt_string(u, "token", user.path);
  if (!token) return std::unexpected(token.error());
  auto token_file = opt_string(u, "tokenFile", user.path);
  if (!token_file) return std::unexpected(token_file.error());
  if (!token_file->empty()) cfg.bearer_token_file = resolve_path(*token_file, base_dir);
  // As clientcmd: an inline token wins for the first request; the file, when given, is still re-read later.
  if (!token->empty()) {
    cfg.bearer_token = trim_space(*token);
  } else if (!cfg.bearer_token_file.empty()) {
    auto text = read_file_text(cfg.bearer_token_file);
    if (!text) return kfail(user.path + ".tokenFile: " + text.error().message);
    cfg.bearer_token = trim_space(*text);
  }

  auto cert = pem_material(u, user.path, "client-certificate-data", "client-certificate", base_dir, nullptr);
  if (!cert) return std::unexpected(cert.error());
  auto key = pem_material(u, user.path, "client-key-data", "client-key", base_dir, nullptr);
  if (!key) return std::unexpected(key.error());
  std::optional<std::string>& cert_pem = *cert;
  std::optional<std::string>& key_pem = *key;
  if (cert_pem.has_value() != key_pem.has_value())
    return kfail(user.path + ": " +
                 (cert_pem.has_value() ? "client-certificate is set without client-key"
                                       : "client-key is set without client-certificate"));
  if (cert_pem && key_pem) {
    cfg.client_cert_pem = std::move(*cert_pem);
    cfg.client_key_pem = std::move(*key_pem);
  }

  if (auto r = read_impersonation(u, user.path, cfg); !r) return r;

  bool has_credentials = !cfg.bearer_token.empty() || !cfg.bearer_token_file.empty() || !cfg.client_cert_pem.empty();
  if (!has_credentials) {
    for (const char* unsupported : {"exec", "auth-provider", "username"}) {
      const json::Value* v = json::find(u, unsupported);
      if (v && !v->IsNull())
        return kfail(user.path + "." + unsupported + " is not supported; use a token, tokenFile or client certificate");
    }
  }
  return {};
}

}  // namespace

Result<ClientConfig> parse_kubeconfig(const std::string& text, const std::string& base_dir,
                                      const std::string& context_override) {
  auto docs = yaml::to_json(text);
  if (!docs) return kfail(docs.error().message);
  if (docs->empty()) return kfail("the document is empty");
  const json::Value& root = (*docs)[0];
  if (!root.IsObject()) return kfail("the document must be a mapping, not " + std::string(json::type_name(root)));

  std::string context_name = context_override;
  if (context_name.empty()) {
    auto current = opt_string(root, "current-context", "");
    if (!current) return kfail("current-context must be a string");
    context_name = *current;
  }
  if (context_name.empty()) return kfail("current-context is not set and no context was given");

  auto context = find_entry(root, "contexts", "context", context_name);
  if (!context) return std::unexpected(context.error());
  auto cluster_name = opt_string(*context->body, "cluster", context->path);
  if (!cluster_name) return std::unexpected(cluster_name.error());
  if (cluster_name->empty()) return kfail(context->path + ".cluster is required");
  auto user_name = opt_string(*context->body, "user", context->path);
  if (!user_name) return std::unexpected(user_name.error());
  auto ns = opt_string(*context->body, "namespace", context->path);
  if (!ns) return std::unexpected(ns.error());

  ClientConfig cfg;
  cfg.source = "kubeconfig context \"" + context_name + "\"";
  if (!ns->empty()) cfg.default_namespace = *ns;

  auto cluster = find_entry(root, "clusters", "cluster", *cluster_name);
  if (!cluster) return std::unexpected(cluster.error());
  if (auto r = read_cluster(*cluster, base_dir, cfg); !r) return std::unexpected(r.error());

  // A context without a user is anonymous access; a named user must exist (clientcmd validation).
  if (!user_name->empty()) {
    auto user = find_entry(root, "users", "user", *user_name);
    if (!user) return std::unexpected(user.error());
    if (auto r = read_user(*user, base_dir, cfg); !r) return std::unexpected(r.error());
  }
  return cfg;
}

Result<ClientConfig> load_kubeconfig_file(const std::string& path, const std::string& context_override) {
  auto text = read_file_text(path, kMaxKubeconfigBytes);
  if (!text) return kfail(text.error().message);
  std::error_code ec;
  std::filesystem::path abs = std::filesystem::absolute(path, ec);
  std::string base_dir = ec ? std::string{} : abs.parent_path().string();
  auto cfg = parse_kubeconfig(*text, base_dir, context_override);
  if (!cfg) return fail(path + ": " + cfg.error().message);
  cfg->source = path + " (" + cfg->source + ")";
  return cfg;
}

}  // namespace cfo::client

#include "webhook/admission.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace cfo::webhook {

namespace {

constexpr const char* kReviewV1 = "admission.k8s.io/v1";
constexpr const char* kReviewV1beta1 = "admission.k8s.io/v1beta1";

// A string member, "" when absent or null; an error when present with another type.
Result<std::string> optional_string(const json::Value& obj, const char* key, const char* where) {
  const json::Value* v = json::find(obj, key);
  if (!v || v->IsNull()) return std::string{};
  if (!v->IsString()) return fail(std::string(where) + "." + key + " must be a string, not " + json::type_name(*v));
  return std::string(v->GetString(), v->GetStringLength());
}

Result<Operation> parse_operation(const std::string& op) {
  if (op == "CREATE") return Operation::Create;
  if (op == "UPDATE") return Operation::Update;
  if (op == "DELETE") return Operation::Delete;
  if (op == "CONNECT") return Operation::Connect;
  return fail("request.operation \"" + op + "\" is not CREATE, UPDATE, DELETE or CONNECT");
}

// An object member (the admitted object): present and an object, or absent/null.
const json::Value* object_member(const json::Value& request, const char* key) {
  const json::Value* v = json::find(request, key);
  return v && v->IsObject() ? v : nullptr;
}

Result<void> read_user_info(const json::Value& request, UserInfo& out) {
  const json::Value* u = json::find(request, "userInfo");
  if (!u || u->IsNull()) return {};
  if (!u->IsObject()) return fail("request.userInfo must be an object");
  auto name = optional_string(*u, "username", "request.userInfo");
  if (!name) return std::unexpected(name.error());
  auto uid = optional_string(*u, "uid", "request.userInfo");
  if (!uid) return std::unexpected(uid.error());
  out.username = *name;
  out.uid = *uid;
  if (const json::Value* g = json::find(*u, "groups"); g && g->IsArray())
    for (const auto& item : g->GetArray())
      if (item.IsString()) out.groups.emplace_back(item.GetString(), item.GetStringLength());
  return {};
}

// Appends the UTF-8 sequence starting at s[i] to `out` when it is valid and not a control character; returns its
// length (1 for a byte that starts no valid sequence, which is dropped).
std::size_t copy_rune(std::string_view s, std::size_t i, std::string& out) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) {
    if (b0 == '\n' || b0 == '\r' || b0 == '\t')
      out += ' ';
    else if (b0 >= 0x20 && b0 != 0x7f)
      out += static_cast<char>(b0);
    return 1;
  }
  std::size_t len = b0 >= 0xf0 && b0 <= 0xf4 ? 4 : b0 >= 0xe0 ? 3 : b0 >= 0xc2 && b0 <= 0xdf ? 2 : 0;
  if (len == 0 || i + len > s.size()) return 1;
  uint32_t cp = b0 & (len == 2 ? 0x1f : len == 3 ? 0x0f : 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xc0) != 0x80) return 1;
    cp = (cp << 6) | (b & 0x3f);
  }
  const bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
  if (overlong || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 1;
  if (cp >= 0x80 && cp <= 0x9f) return len;  // C1 control characters (Go's unicode.IsControl)
  out.append(s.substr(i, len));
  return len;
}

}  // namespace

const char* operation_name(Operation op) {
  switch (op) {
    case Operation::Create:
      return "CREATE";
    case Operation::Update:
      return "UPDATE";
    case Operation::Delete:
      return "DELETE";
    case Operation::Connect:
      return "CONNECT";
  }
  return "CREATE";
}

const json::Value* AdmissionRequest::object() const {
  const json::Value* r = json::find(review, "request");
  return r ? object_member(*r, "object") : nullptr;
}

const json::Value* AdmissionRequest::old_object() const {
  const json::Value* r = json::find(review, "request");
  return r ? object_member(*r, "oldObject") : nullptr;
}

Result<AdmissionRequest> decode_admission_review(std::string_view body) {
  if (body.size() > kMaxReviewBytes)
    return fail("the AdmissionReview is " + std::to_string(body.size()) + " bytes, more than the " +
                std::to_string(kMaxReviewBytes) + " accepted");
  if (body.empty()) return fail("the request body is empty; an AdmissionReview was expected");
  auto parsed = json::parse(body);
  if (!parsed) return fail("the body is not JSON: " + parsed.error().message);
  AdmissionRequest out;
  out.review = std::move(*parsed);
  const json::Value& review = out.review;
  if (!review.IsObject()) return fail("the body is a JSON " + std::string(json::type_name(review)) + ", not an object");
  const std::string api_version = json::get_string(review, "apiVersion").value_or("");
  if (api_version != kReviewV1 && api_version != kReviewV1beta1)
    return fail("apiVersion \"" + api_version + "\" is not " + kReviewV1 + " (or " + kReviewV1beta1 + ")");
  if (json::get_string(review, "kind").value_or("") != "AdmissionReview")
    return fail("kind \"" + json::get_string(review, "kind").value_or("") + "\" is not AdmissionReview");
  out.review_api_version = api_version;
  const json::Value* request = json::find(review, "request");
  if (!request || !request->IsObject()) return fail("the AdmissionReview has no request object");

  auto uid = optional_string(*request, "uid", "request");
  if (!uid) return std::unexpected(uid.error());
  if (uid->empty()) return fail("request.uid is empty");
  out.uid = *uid;
  auto op = optional_string(*request, "operation", "request");
  if (!op) return std::unexpected(op.error());
  auto operation = parse_operation(*op);
  if (!operation) return std::unexpected(operation.error());
  out.operation = *operation;

  if (const json::Value* k = json::find(*request, "kind"); k && k->IsObject()) {
    out.group = json::get_string(*k, "group").value_or("");
    out.version = json::get_string(*k, "version").value_or("");
    out.kind = json::get_string(*k, "kind").value_or("");
  }
  if (out.kind.empty()) return fail("request.kind.kind is empty");
  if (const json::Value* r = json::find(*request, "resource"); r && r->IsObject())
    out.resource = json::get_string(*r, "resource").value_or("");
  for (auto [field, key] : {std::pair{&out.sub_resource, "subResource"}, std::pair{&out.name, "name"},
                            std::pair{&out.namespace_, "namespace"}}) {
    auto v = optional_string(*request, key, "request");
    if (!v) return std::unexpected(v.error());
    *field = *v;
  }
  if (const json::Value* d = json::find(*request, "dryRun"); d && !d->IsNull()) {
    if (!d->IsBool()) return fail("request.dryRun must be a boolean");
    out.dry_run = d->GetBool();
  }
  if (auto u = read_user_info(*request, out.user_info); !u) return std::unexpected(u.error());

  const bool writes = out.operation == Operation::Create || out.operation == Operation::Update;
  if (const json::Value* o = json::find(*request, "object"); o && !o->IsNull() && !o->IsObject())
    return fail("request.object must be an object, not " + std::string(json::type_name(*o)));
  if (const json::Value* o = json::find(*request, "oldObject"); o && !o->IsNull() && !o->IsObject())
    return fail("request.oldObject must be an object, not " + std::string(json::type_name(*o)));
  if (writes && !out.object()) return fail(std::string("request.object is missing on ") + *op);
  if (out.operation == Operation::Update && !out.old_object()) return fail("request.oldObject is missing on UPDATE");
  return out;
}

AdmissionResponse allow(std::vector<std::string> warnings) {
  AdmissionResponse r;
  r.allowed = true;
  r.warnings = std::move(warnings);
  return r;
}

AdmissionResponse deny(int32_t code, std::string reason, std::string message) {
  AdmissionResponse r;
  r.allowed = false;
  r.code = code;
  r.reason = std::move(reason);
  r.message = std::move(message);
  return r;
}

std::string sanitize_warning(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) i += copy_rune(text, i, out);
  return out;
}

std::string encode_admission_review(const std::string& review_api_version, const std::string& uid,
                                    const AdmissionResponse& r) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  auto str = [&w](std::string_view s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); };
  // A string member, left out when empty (omitempty).
  auto member = [&](const char* key, const std::string& value) {
    if (value.empty()) return;
    w.Key(key);
    str(value);
  };
  w.StartObject();
  w.Key("apiVersion");
  str(review_api_version == kReviewV1beta1 ? kReviewV1beta1 : kReviewV1);
  w.Key("kind");
  str("AdmissionReview");
  w.Key("response");
  w.StartObject();
  w.Key("uid");
  str(uid);
  w.Key("allowed");
  w.Bool(r.allowed);
  if (!r.allowed) {
    w.Key("status");
    w.StartObject();
    w.Key("status");
    str("Failure");
    member("message", r.message);
    member("reason", r.reason);
    if (!r.details_name.empty() || !r.details_kind.empty() || !r.causes.empty()) {
      w.Key("details");
      w.StartObject();
      member("name", r.details_name);
      member("group", r.details_group);
      member("kind", r.details_kind);
      if (!r.causes.empty()) {
        w.Key("causes");
        w.StartArray();
        for (const auto& c : r.causes) {
          w.StartObject();
          member("reason", c.reason);
          member("message", c.message);
          member("field", c.field);
          w.EndObject();
        }
        w.EndArray();
      }
      w.EndObject();
    }
    w.Key("code");
    w.Int(r.code);
    w.EndObject();
  }
  if (!r.warnings.empty()) {
    w.Key("warnings");
    w.StartArray();
    for (const auto& warning : r.warnings) {
      std::string clean = sanitize_warning(warning);
      if (!clean.empty()) str(clean);
    }
    w.EndArray();
  }
  w.EndObject();
  w.EndObject();
  return {buf.GetString(), buf.GetSize()};
}

}  // namespace cfo::webhook

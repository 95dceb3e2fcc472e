#include "runtime/lease_lock.hpp"

#include <mutex>

namespace cfo::runtime {

namespace {

const client::ResourceType kLeases{"coordination.k8s.io", "v1", "leases", true};

std::string rv_of(const json::Value& obj) {
  const json::Value* meta = json::find(obj, "metadata");
  return meta ? json::get_string(*meta, "resourceVersion").value_or("") : "";
}

class RestLeaseLock final : public LeaseLock {
 public:
  RestLeaseLock(client::RestClient client, std::string ns, std::string name)
      : client_(std::move(client)), ns_(std::move(ns)), name_(std::move(name)) {}

  Result<std::optional<ObservedLease>> get() override {
    auto r = client_.get_json(kLeases.object_path(ns_, name_));
    if (!r) {
      if (r.error().is_not_found()) return std::optional<ObservedLease>{};
      return std::unexpected(r.error());
    }
    return std::optional<ObservedLease>(remember(std::move(*r)));
  }

  Result<ObservedLease> create(const LeaderElectionRecord& record) override {
    json::Document body = lease_body(ns_, name_, record, "");
    auto r = client_.create(kLeases.collection_path(ns_), body, create_options());
    if (!r) return std::unexpected(r.error());
    return remember(std::move(*r));
  }

  Result<ObservedLease> update(const LeaderElectionRecord& record, const std::string& resource_version) override {
    json::Document body;
    {
      std::lock_guard lk(mu_);
      const bool same = last_.IsObject() && rv_of(last_) == resource_version;
      body = lease_body(ns_, name_, record, resource_version, same ? &last_ : nullptr);
    }
    auto r = client_.request("PUT", kLeases.object_path(ns_, name_), json::dump(body));
    if (!r) return std::unexpected(r.error());
    if (r->status < 200 || r->status >= 300) return std::unexpected(client::status_error(*r));
    auto doc = json::parse(r->body);
    if (!doc) return fail("PUT lease " + describe() + ": the response is not JSON: " + doc.error().message);
    return remember(std::move(*doc));
  }

  std::string describe() const override { return ns_ + "/" + name_; }

 private:
  static client::WriteOptions create_options() {
    client::WriteOptions wo;
    wo.field_manager = "codeflare-operator";
    wo.force = false;
    return wo;
  }

  ObservedLease remember(json::Document doc) {
    ObservedLease out{record_from_lease(doc), rv_of(doc)};
    std::lock_guard lk(mu_);
    last_ = std::move(doc);
    return out;
  }

  client::RestClient client_;
  const std::string ns_, name_;
  std::mutex mu_;
  json::Document last_;  // the Lease as last read or written, whose metadata an update keeps
};

}  // namespace

LeaderElectionRecord record_from_lease(const json::Value& lease) {
  LeaderElectionRecord r;
  const json::Value* spec = json::find(lease, "spec");
  if (!spec) return r;
  r.holder_identity = json::get_string(*spec, "holderIdentity").value_or("");
  r.lease_duration_seconds = json::get_int(*spec, "leaseDurationSeconds").value_or(0);
  r.acquire_time = json::get_string(*spec, "acquireTime").value_or("");
  r.renew_time = json::get_string(*spec, "renewTime").value_or("");
  r.lease_transitions = json::get_int(*spec, "leaseTransitions").value_or(0);
  return r;
}

json::Document lease_body(const std::string& ns, const std::string& name, const LeaderElectionRecord& record,
                          const std::string& resource_version, const json::Value* previous) {
  json::Document doc(rapidjson::kObjectType);
  auto& a = doc.GetAllocator();
  doc.AddMember("apiVersion", "coordination.k8s.io/v1", a);
  doc.AddMember("kind", "Lease", a);
  json::Value meta(rapidjson::kObjectType);
  if (const json::Value* prev_meta = previous ? json::find(*previous, "metadata") : nullptr;
      prev_meta && prev_meta->IsObject()) {
    // Keep what others may have put there; drop what the server owns and re-derives.
    meta.CopyFrom(*prev_meta, a);
    meta.RemoveMember("managedFields");
  }
  json::set(meta, "name", json::str(name, a), a);
  json::set(meta, "namespace", json::str(ns, a), a);
  if (!resource_version.empty())
    json::set(meta, "resourceVersion", json::str(resource_version, a), a);
  else
    meta.RemoveMember("resourceVersion");
  doc.AddMember("metadata", meta, a);

  json::Value spec(rapidjson::kObjectType);
  spec.AddMember("holderIdentity", json::str(record.holder_identity, a), a);
  spec.AddMember("leaseDurationSeconds", static_cast<int64_t>(record.lease_duration_seconds), a);
  if (!record.acquire_time.empty()) spec.AddMember("acquireTime", json::str(record.acquire_time, a), a);
  if (!record.renew_time.empty()) spec.AddMember("renewTime", json::str(record.renew_time, a), a);
  spec.AddMember("leaseTransitions", static_cast<int64_t>(record.lease_transitions), a);
  doc.AddMember("spec", spec, a);
  return doc;
}

std::shared_ptr<LeaseLock> rest_lease_lock(client::RestClient client, std::string ns, std::string name) {
  return std::make_shared<RestLeaseLock>(std::move(client), std::move(ns), std::move(name));
}

}  // namespace cfo::runtime

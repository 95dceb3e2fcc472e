#include "runtime/informer_group.hpp"

#include <algorithm>
#include <chrono>
#include <iterator>

#include "runtime/object_key.hpp"

namespace cfo::runtime {

InformerGroup::InformerGroup(const client::RestClient& client, const InformerOptions& proto,
                             const std::vector<std::string>& namespaces) {
  const bool one = namespaces.empty() || !proto.resource.namespaced;
  for (const auto& ns : one ? std::vector<std::string>{""} : namespaces) {
    InformerOptions o = proto;
    o.namespace_name = ns;
    informers_[ns] = std::make_unique<Informer>(client, o);
  }
}

namespace {
InformerOptions proto_of(const client::ResourceType& type, const std::string& label_selector) {
  InformerOptions o;
  o.resource = type;
  o.label_selector = label_selector;
  return o;
}
}  // namespace

InformerGroup::InformerGroup(const client::RestClient& client, const client::ResourceType& type,
                             const std::vector<std::string>& namespaces, const std::string& label_selector)
    : InformerGroup(client, proto_of(type, label_selector), namespaces) {}

std::vector<Informer*> InformerGroup::informers() {
  std::vector<Informer*> out;
  out.reserve(informers_.size());
  for (auto& [ns, inf] : informers_) out.push_back(inf.get());
  return out;
}

Result<void> InformerGroup::start() {
  for (auto& [ns, inf] : informers_)
    if (auto r = inf->start(); !r)
      return std::unexpected(Error{"starting informer " + inf->path() + ": " + r.error().message});
  return {};
}

void InformerGroup::stop() {
  for (auto& [ns, inf] : informers_) inf->stop();
}

bool InformerGroup::synced() const {
  return std::all_of(informers_.begin(), informers_.end(), [](const auto& e) { return e.second->has_synced(); });
}

std::optional<TimePoint> InformerGroup::list_failing_since() const {
  std::optional<TimePoint> earliest;
  for (const auto& [ns, inf] : informers_)
    if (!inf->has_synced())
      if (auto since = inf->list_failing_since(); since && (!earliest || *since < *earliest)) earliest = since;
  return earliest;
}

bool InformerGroup::wait_for_sync(int64_t timeout_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (auto& [ns, inf] : informers_) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (!inf->wait_for_sync(std::max<int64_t>(left.count(), 0))) return false;
  }
  return true;
}

const Informer* InformerGroup::informer_for(const std::string& ns) const {
  auto it = informers_.find(ns);
  if (it == informers_.end()) it = informers_.find("");
  return it == informers_.end() ? nullptr : it->second.get();
}

ObjectPtr InformerGroup::get(const std::string& key) const {
  const Informer* inf = informer_for(split_key(key).first);
  return inf ? inf->store().get(key) : nullptr;
}

std::vector<ObjectPtr> InformerGroup::list(const std::string& ns) const {
  std::vector<ObjectPtr> out;
  const Informer* inf = informer_for(ns);
  if (!inf) return out;
  return inf->store().list(ns.empty() ? std::string() : ns + "/");
}

std::vector<std::string> InformerGroup::keys(const std::string& ns) const {
  std::vector<std::string> out;
  for (const auto& [informer_ns, inf] : informers_) {
    // An informer of one namespace holds only its keys; a cluster-wide one (or "" for all) is read by prefix.
    if (!ns.empty() && !informer_ns.empty() && informer_ns != ns) continue;
    auto keys = inf->store().keys(ns.empty() ? std::string() : ns + "/");
    out.insert(out.end(), std::make_move_iterator(keys.begin()), std::make_move_iterator(keys.end()));
  }
  return out;
}

std::vector<ObjectPtr> InformerGroup::list_all() const {
  std::vector<ObjectPtr> out;
  for (const auto& [ns, inf] : informers_) {
    auto objects = inf->store().list();
    out.insert(out.end(), objects.begin(), objects.end());
  }
  return out;
}

std::size_t InformerGroup::size() const {
  std::size_t n = 0;
  for (const auto& [ns, inf] : informers_) n += inf->store().size();
  return n;
}

std::size_t InformerGroup::bytes() const {
  std::size_t n = 0;
  for (const auto& [ns, inf] : informers_) n += inf->store().bytes();
  return n;
}

}  // namespace cfo::runtime

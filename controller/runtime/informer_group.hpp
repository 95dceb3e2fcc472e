#pragma once
// The informers of one resource type over the namespaces an operator watches: one informer per namespace (or one
// for all namespaces), read as one cache.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/informer.hpp"

namespace cfo::runtime {

/// One informer per namespace of `namespaces` (empty = one for all namespaces; a cluster-scoped type always gets one),
/// each made from `proto` (resource type, selectors, transform) with its namespace. Lookups pick the informer of the
/// key's namespace, else the all-namespaces one.
class InformerGroup {
 public:
  InformerGroup(const client::RestClient& client, const InformerOptions& proto,
                const std::vector<std::string>& namespaces);
  /// Same, with proto {type, label_selector} and the default transform.
  InformerGroup(const client::RestClient& client, const client::ResourceType& type,
                const std::vector<std::string>& namespaces, const std::string& label_selector);

  /// Every informer of the group (to register handlers before start).
  std::vector<Informer*> informers();
  /// Starts every informer; the first error is returned (informers already started keep running until stop()).
  Result<void> start();
  /// Stops every informer.
  void stop();
  /// True when every informer has listed once.
  bool synced() const;
  /// The earliest Informer::list_failing_since of the informers that have not listed once yet: since when the
  /// first list of one of them has been failing (nullopt: none is failing; each is arriving, listed or not tried).
  std::optional<TimePoint> list_failing_since() const;
  /// Waits until synced, up to `timeout_ms` in all; false on timeout or stop.
  bool wait_for_sync(int64_t timeout_ms);

  /// The cached object under `key` ("namespace/name" or "name"), or nullptr.
  ObjectPtr get(const std::string& key) const;
  /// The cached objects of namespace `ns` ("" for a cluster-scoped type: all of them).
  std::vector<ObjectPtr> list(const std::string& ns) const;
  /// Every cached object of every informer of the group.
  std::vector<ObjectPtr> list_all() const;
  /// The keys ("namespace/name") of namespace `ns`'s cached objects, or of all of them for ""; sorted per informer.
  /// Opens no object: for mappers that need only keys (a packed cache would otherwise open each object).
  std::vector<std::string> keys(const std::string& ns) const;
  /// Number of cached objects over the group.
  std::size_t size() const;
  /// Bytes of JSON the group's caches hold (Store::bytes summed).
  std::size_t bytes() const;

 private:
  const Informer* informer_for(const std::string& ns) const;
  std::map<std::string, std::unique_ptr<Informer>> informers_;
};

}  // namespace cfo::runtime

#pragma once
// A user-supplied JSON fragment that is passed through unchanged into a generated object (a volume, a volume mount,
// a toleration, an env valueFrom). The schema check of the generated object covers its contents.
#include <memory>

#include "core/json.hpp"

namespace cfo::workload {

/// An immutable, cheaply copyable JSON value. Default-constructed it holds JSON null.
class Fragment {
 public:
  Fragment();
  /// Deep-copies `v` (owned strings included), so the fragment does not depend on the source document.
  explicit Fragment(const json::Value& v);

  const json::Value& value() const { return *doc_; }
  /// A deep copy of the value allocated in `a`, ready to be added to another document.
  json::Value to_json(json::Allocator& a) const;

 private:
  std::shared_ptr<const json::Document> doc_;
};

}  // namespace cfo::workload

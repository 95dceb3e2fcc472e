#include "workload/fragment.hpp"

namespace cfo::workload {

Fragment::Fragment() : doc_(std::make_shared<json::Document>()) {}

Fragment::Fragment(const json::Value& v) {
  auto d = std::make_shared<json::Document>();
  d->CopyFrom(v, d->GetAllocator());  // const strings stay shared: ours are literals
  doc_ = std::move(d);
}

json::Value Fragment::to_json(json::Allocator& a) const { return json::Value(*doc_, a); }

}  // namespace cfo::workload

#include "workload/resource_list.hpp"

#include <stdexcept>

namespace cfo::workload {

const Quantity* ResourceList::find(std::string_view name) const {
  for (const auto& [n, q] : items)
    if (n == name) return &q;
  return nullptr;
}

void ResourceList::set(const std::string& name, Quantity q) {
  for (auto& [n, existing] : items)
    if (n == name) {
      existing = std::move(q);
      return;
    }
  items.emplace_back(name, std::move(q));
}

json::Value ResourceList::to_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  for (const auto& [n, q] : items) o.AddMember(json::str(n, a), json::str(q.text(), a), a);
  return o;
}

Quantity must_quantity(std::string_view text) {
  auto q = Quantity::parse(text);
  if (!q) throw std::logic_error("invalid built-in quantity '" + std::string(text) + "': " + q.error().message);
  return *q;
}

}  // namespace cfo::workload

#include "workload/parse_gcs_fault_tolerance.hpp"

#include "workload/field_reader.hpp"

namespace cfo::workload {

std::optional<GcsFaultToleranceSpec> parse_gcs_fault_tolerance(const json::Value& v, const std::string& path,
                                                               FieldErrors& errs) {
  FieldReader r(v, path, errs);
  if (!r.is_object()) return std::nullopt;
  GcsFaultToleranceSpec ft;
  auto address = r.required_string("redisAddress");
  if (const json::Value* pw = r.get("redisPassword")) {
    FieldReader p(*pw, r.child("redisPassword"), errs);
    auto name = p.required_string("name");
    auto key = p.required_string("key");
    p.reject_unknown();
    if (name && key) ft.redis_password = SecretKeyRef{*name, *key};
  }
  ft.external_storage_namespace = r.string("externalStorageNamespace").value_or("");
  r.reject_unknown();
  if (!address) return std::nullopt;
  ft.redis_address = *address;
  return ft;
}

}  // namespace cfo::workload

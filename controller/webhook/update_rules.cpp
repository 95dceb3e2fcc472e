#include "webhook/update_rules.hpp"

#include <string>

namespace cfo::webhook {

namespace {

// Equal JSON values, a missing value counting as equal only to another missing one.
bool same(const json::Value* a, const json::Value* b) {
  if (!a || !b) return a == b;
  return *a == *b;
}

// A member that is null counts as absent (the apiserver drops nulls of labels/annotations maps on decode).
const json::Value* present(const json::Value* v) { return v && !v->IsNull() ? v : nullptr; }

bool condition_true(const json::Value& status, const char* type) {
  const json::Value* conds = json::find(status, "conditions");
  if (!conds || !conds->IsArray()) return false;
  for (const auto& c : conds->GetArray())
    if (json::get_string(c, "type").value_or("") == type) return json::get_string(c, "status").value_or("") == "True";
  return false;
}

}  // namespace

bool verdict_inputs_unchanged(const json::Value& object, const json::Value& old_object) {
  if (!object.IsObject() || !old_object.IsObject()) return false;
  if (json::find_path(old_object, "metadata.deletionTimestamp")) return true;
  for (const auto& m : object.GetObject()) {
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key == "metadata" || key == "status") continue;
    if (!same(present(&m.value), present(json::find(old_object, key)))) return false;
  }
  for (const auto& m : old_object.GetObject()) {  // a field the update removed
    std::string_view key(m.name.GetString(), m.name.GetStringLength());
    if (key == "metadata" || key == "status") continue;
    if (present(&m.value) && !present(json::find(object, key))) return false;
  }
  for (const char* field : {"metadata.labels", "metadata.annotations"})
    if (!same(present(json::find_path(object, field)), present(json::find_path(old_object, field)))) return false;
  return true;
}

std::optional<FieldError> queue_change_while_running(const json::Value* stored_status, const json::Value& spec) {
  if (!stored_status || !stored_status->IsObject()) return std::nullopt;
  const std::string wanted = json::string_at(spec, "queue.localQueue");
  const std::string current = json::get_string(*stored_status, "queue").value_or("");
  if (wanted.empty() || wanted == current) return std::nullopt;
  // Suspended by this very update: Kueue judges the job as updated, and a suspended job may change its queue.
  if (const json::Value* suspend = json::find(spec, "suspend"); suspend && suspend->IsBool() && suspend->GetBool())
    return std::nullopt;
  bool child = false;
  for (const char* name : {"rayClusterName", "appWrapperName", "rayJobName"})
    child = child || !json::get_string(*stored_status, name).value_or("").empty();
  if (!child) return std::nullopt;
  const std::string phase = json::get_string(*stored_status, "phase").value_or("");
  if (current.empty()) {
    // A child submitted without a queue is never suspended by Kueue: it runs unless the workload is suspended.
    if (phase == "Suspended" || phase.empty()) return std::nullopt;
    return FieldError{"spec.queue.localQueue", "QueueChangeWhileRunning", "kueue:job webhook ValidateUpdate",
                      "the workload runs without a LocalQueue; Kueue does not let a running workload join one "
                      "(set spec.suspend: true with the change, or delete and re-create the workload)",
                      Severity::Error};
  }
  const bool runs = phase == "Admitted" || phase == "Running" || phase == "Succeeded" || phase == "Failed" ||
                    (phase == "Invalid" && condition_true(*stored_status, "Admitted"));
  if (!runs) return std::nullopt;
  return FieldError{
      "spec.queue.localQueue", "QueueChangeWhileRunning", "kueue:job webhook ValidateUpdate",
      "the workload runs in LocalQueue " + current +
          "; Kueue does not let the queue of a running workload change (set spec.suspend: true with the change)",
      Severity::Error};
}

}  // namespace cfo::webhook

// CodeFlare operator rules (project-codeflare/codeflare-operator, pkg/controllers/raycluster_webhook.go): its
// validating webhook runs on every RayCluster create and update, including the clusters that RayJobs and
// AppWrappers create later.
#include "validation/rules/rule_util.hpp"
#include "validation/rules/rules.hpp"

namespace cfo::validation::rules {

namespace {

constexpr std::string_view kWebhook = "codeflare-operator:webhook";

// CodeFlare operator RayCluster webhook (validateIngress): the operator exposes the dashboard itself, so
// headGroupSpec.enableIngress must not be true.
void EnableIngress(const json::Value& spec, const std::string& spec_path, const Sink& sink) {
  const json::Value* head = object_at(spec, "headGroupSpec");
  if (head && true_at(*head, "enableIngress"))
    sink.error(spec_path + ".headGroupSpec.enableIngress", "EnableIngress", kWebhook,
               "enableIngress must not be true; the CodeFlare operator creates the dashboard route itself");
}

}  // namespace

void validate_codeflare_raycluster_spec(const json::Value& spec, const std::string& spec_path, const Sink& sink) {
  EnableIngress(spec, spec_path, sink);
}

}  // namespace cfo::validation::rules

// CodeFlare operator rules (project-codeflare/codeflare-operator, pkg/controllers/raycluster_webhook.go): its
// mutating and validating webhooks run on every RayCluster create and update, including the clusters that RayJobs
// and AppWrappers create later, where that operator runs: OpenDataHub / Red Hat OpenShift AI (profile odh; the
// rule catalog tags these rules so). With its defaults (RayDashboardOAuthEnabled and MTLSEnabled true) the mutating
// webhook upserts, by name, an oauth-proxy container and its proxy-tls-secret volume and sets the head's
// serviceAccountName, and adds to containers[0] of every group the RAY_USE_TLS / RAY_TLS_* env, the ca-vol and
// server-cert volumes and their mounts at /home/ray/workspace/ca and /home/ray/workspace/tls, and a create-cert init
// container. The validating webhook then checks that they are there, which they are after the mutation, and refuses
// enableIngress.
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

// What the mutating webhook adds to containers[0] of every group is upserted by mount name: a mount of the user's at
// /home/ray/workspace/ca or /home/ray/workspace/tls under another name stays next to the injected one, and the Pods
// are refused (ValidateVolumeMounts: the mount path is taken twice).
void CodeFlareCertMounts(const json::Value& spec, const std::string& spec_path, const Sink& sink) {
  auto check = [&](const json::Value* group, const std::string& gp) {
    const json::Value* t = group ? object_at(*group, "template") : nullptr;
    const json::Value* c = t ? first_container(*t) : nullptr;
    const json::Value* mounts = c ? array_at(*c, "volumeMounts") : nullptr;
    if (!mounts) return;
    for (rapidjson::SizeType i = 0; i < mounts->Size(); ++i) {
      const std::string path = string_at((*mounts)[i], "mountPath").value_or("");
      const std::string name = string_at((*mounts)[i], "name").value_or("");
      const std::string injected = path == "/home/ray/workspace/ca"    ? "ca-vol"
                                   : path == "/home/ray/workspace/tls" ? "server-cert"
                                                                       : "";
      if (injected.empty() || name == "ca-vol" || name == "server-cert") continue;
      sink.error(index_path(gp + ".template.spec.containers[0].volumeMounts", i) + ".mountPath", "CodeFlareCertMounts",
                 kWebhook,
                 "the CodeFlare operator mounts its " + injected + " volume at " + path +
                     ", so this mount makes the path taken twice and the Pods are refused");
    }
  };
  check(object_at(spec, "headGroupSpec"), spec_path + ".headGroupSpec");
  if (const json::Value* workers = array_at(spec, "workerGroupSpecs"))
    for (rapidjson::SizeType i = 0; i < workers->Size(); ++i)
      check(&(*workers)[i], index_path(spec_path + ".workerGroupSpecs", i));
}

// The mutating webhook sets the head's serviceAccountName to the oauth-proxy's own account: the one the template
// names is not used (a warning: the cluster runs, without the account's permissions).
void CodeFlareOAuthServiceAccount(const json::Value& spec, const std::string& spec_path, const Sink& sink) {
  const json::Value* head = object_at(spec, "headGroupSpec");
  const json::Value* t = head ? object_at(*head, "template") : nullptr;
  const json::Value* ps = t ? object_at(*t, "spec") : nullptr;
  auto sa = ps ? string_at(*ps, "serviceAccountName") : std::nullopt;
  if (!sa || sa->empty()) return;
  sink.warn(spec_path + ".headGroupSpec.template.spec.serviceAccountName", "CodeFlareOAuthServiceAccount", kWebhook,
            "the CodeFlare operator replaces the head's service account " + dq(*sa) +
                " with its oauth-proxy account, so the head Pod does not run as " + dq(*sa));
}

}  // namespace

void validate_codeflare_raycluster_spec(const json::Value& spec, const std::string& spec_path, const Sink& sink) {
  EnableIngress(spec, spec_path, sink);
  CodeFlareCertMounts(spec, spec_path, sink);
  CodeFlareOAuthServiceAccount(spec, spec_path, sink);
}

}  // namespace cfo::validation::rules

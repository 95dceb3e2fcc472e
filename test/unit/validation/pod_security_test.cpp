// rules/pod_security_*.cpp: the Pod Security Standards checks on the Pods a generated object leads to.
//
// One parameterized test per entry of test/mutations/pss_cases.yaml (shared with the mutation corpus): on a RayCluster
// whose templates meet the restricted level, the bad change gives the check's finding at its path at the entry's
// level, and the good change gives no Pod Security finding. Then what the table cannot express: the levels, the
// containers KubeRay adds, the RayJob submitter, AppWrapper components, and the namespace label.
#include <set>

#include "test_support.hpp"
#include "validation/pod_security.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::ClusterProfile;
using validation::PodSecurityLevel;
using validation::validate_object;

namespace {

const std::string kHead = "spec.headGroupSpec.template";

std::string cases_file() { return std::string(CFO_SOURCE_DIR) + "/test/mutations/pss_cases.yaml"; }

using Edits = std::vector<std::pair<std::string, std::string>>;

Edits edits_of(const json::Value* m) {
  Edits out;
  if (!m || !m->IsObject()) return out;
  for (auto it = m->MemberBegin(); it != m->MemberEnd(); ++it) {
    std::string value = it->value.IsString() && std::string_view(it->value.GetString()) == "~delete"
                            ? "~delete"
                            : json::dump(it->value);
    out.emplace_back(std::string(it->name.GetString(), it->name.GetStringLength()), value);
  }
  return out;
}

Edits under(const std::string& tmpl, const Edits& edits) {
  Edits out;
  for (const auto& [p, v] : edits) out.emplace_back(tmpl + "." + p, v);
  return out;
}

struct PssCase {
  std::string rule, level, what, at;
  Edits bad, good;
};

struct Table {
  Edits compliant;
  std::vector<PssCase> cases;
};

const Table& table() {
  static const Table t = [] {
    Table out;
    auto docs = yaml_file(cases_file());
    if (docs.empty() || !docs[0].IsObject()) return out;
    out.compliant = edits_of(json::find(docs[0], "compliant"));
    const json::Value* cases = json::find(docs[0], "cases");
    if (!cases || !cases->IsArray()) return out;
    for (const auto& c : cases->GetArray())
      out.cases.push_back({json::get_string(c, "rule").value_or(""), json::get_string(c, "level").value_or(""),
                           json::get_string(c, "what").value_or(""), json::get_string(c, "at").value_or(""),
                           edits_of(json::find(c, "bad")), edits_of(json::find(c, "good"))});
    return out;
  }();
  return t;
}

ClusterProfile at_level(PodSecurityLevel level) {
  ClusterProfile p;
  p.pod_security = level;
  return p;
}

/// The test RayCluster with both templates meeting the restricted level.
json::Document compliant_cluster() {
  Edits all = under(kHead, table().compliant);
  for (const auto& e : under("spec.workerGroupSpecs[0].template", table().compliant)) all.push_back(e);
  return patched(yaml1(raycluster_yaml()), all);
}

FieldErrors pss_findings(const FieldErrors& errs) {
  FieldErrors out;
  for (const auto& e : errs)
    if (e.source.find("pod-security-admission") != std::string::npos) out.push_back(e);
  return out;
}

const validation::SchemaSet& schemas() {
  static const validation::SchemaSet empty;
  const validation::SchemaSet* s = upstream_schemas();
  return s ? *s : empty;
}

}  // namespace

class PodSecurityCase : public ::testing::TestWithParam<std::size_t> {};

TEST(PodSecurityTable, HasACaseForEveryCheck) {
  std::set<std::string> rules;
  for (const auto& c : table().cases) rules.insert(c.rule);
  EXPECT_EQ(rules.size(), 19u) << "one case or more per check of pod_security_checks.hpp";
  ASSERT_FALSE(table().compliant.empty());
}

TEST_P(PodSecurityCase, BadChangeIsRefusedAtItsFieldAndGoodChangePasses) {
  const PssCase& c = table().cases.at(GetParam());
  const PodSecurityLevel level = *validation::parse_pod_security_level(c.level);
  const json::Document base = compliant_cluster();
  ASSERT_TRUE(pss_findings(validate_object(schemas(), base, at_level(PodSecurityLevel::kRestricted))).empty())
      << describe(validate_object(schemas(), base, at_level(PodSecurityLevel::kRestricted)));

  const FieldErrors bad = validate_object(schemas(), patched(base, under(kHead, c.bad)), at_level(level));
  EXPECT_TRUE(has(bad, kHead + "." + c.at, c.rule)) << c.rule << " (" << c.what << "):\n" << describe(bad);
  for (const auto& e : pss_findings(bad)) EXPECT_NE(e.reason.find(c.level), std::string::npos) << e.reason;

  const FieldErrors good = validate_object(schemas(), patched(base, under(kHead, c.good)), at_level(level));
  EXPECT_TRUE(pss_findings(good).empty()) << c.rule << " good change:\n" << describe(good);
  // Not a finding of the privileged level: nothing is checked there.
  EXPECT_TRUE(pss_findings(validate_object(schemas(), patched(base, under(kHead, c.bad)),
                                           at_level(PodSecurityLevel::kPrivileged)))
                  .empty());
}

INSTANTIATE_TEST_SUITE_P(Cases, PodSecurityCase, ::testing::Range<std::size_t>(0, table().cases.size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           return table().cases[info.param].rule + "_" + std::to_string(info.param);
                         });

TEST(PodSecurityLevels, ParseAndNamespaceLabel) {
  EXPECT_EQ(validation::parse_pod_security_level("baseline"), PodSecurityLevel::kBaseline);
  EXPECT_EQ(validation::parse_pod_security_level("restricted"), PodSecurityLevel::kRestricted);
  EXPECT_EQ(validation::parse_pod_security_level("privileged"), PodSecurityLevel::kPrivileged);
  EXPECT_FALSE(validation::parse_pod_security_level("Restricted"));
  EXPECT_EQ(validation::pod_security_level_of_label(nullptr), PodSecurityLevel::kPrivileged);
  std::string_view odd = "strict";
  EXPECT_EQ(validation::pod_security_level_of_label(&odd), PodSecurityLevel::kRestricted)
      << "a label the admission cannot parse is evaluated as restricted";
  EXPECT_EQ(validation::pod_security_level_name(PodSecurityLevel::kBaseline), "baseline");
}

TEST(PodSecurityLevels, BaselineAllowsWhatOnlyRestrictedForbids) {
  // The plain test RayCluster (no securityContext at all) meets baseline and fails restricted, at every container.
  const json::Document rc = yaml1(raycluster_yaml());
  EXPECT_TRUE(pss_findings(validate_object(schemas(), rc, at_level(PodSecurityLevel::kBaseline))).empty());
  const FieldErrors r = validate_object(schemas(), rc, at_level(PodSecurityLevel::kRestricted));
  EXPECT_TRUE(has(r, kHead + ".spec.containers[0].securityContext.runAsNonRoot", "CheckRunAsNonRoot")) << describe(r);
  EXPECT_TRUE(
      has(r, "spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.runAsNonRoot", "CheckRunAsNonRoot"))
      << describe(r);
  // A pod-level runAsNonRoot: true covers every container; a container's own false is still refused.
  const json::Document pod_level = patched(rc, {{kHead + ".spec.securityContext.runAsNonRoot", "true"}});
  EXPECT_FALSE(has(validate_object(schemas(), pod_level, at_level(PodSecurityLevel::kRestricted)),
                   kHead + ".spec.containers[0].securityContext.runAsNonRoot", "CheckRunAsNonRoot"));
  const json::Document own_false =
      patched(pod_level, {{kHead + ".spec.containers[0].securityContext.runAsNonRoot", "false"}});
  EXPECT_TRUE(has(validate_object(schemas(), own_false, at_level(PodSecurityLevel::kRestricted)),
                  kHead + ".spec.containers[0].securityContext.runAsNonRoot", "CheckRunAsNonRoot"));
}

TEST(PodSecurityLevels, WindowsPodsAndUserNamespacesAreExemptWhereUpstreamExemptsThem) {
  const json::Document rc = yaml1(raycluster_yaml());
  auto rules_at_head = [](const FieldErrors& errs) {
    std::set<std::string> out;
    for (const auto& e : pss_findings(errs))
      if (e.path.starts_with(kHead + ".")) out.insert(e.rule);
    return out;
  };
  // spec.os.name windows (policy 1.25): no allowPrivilegeEscalation, seccomp or capabilities requirement; the
  // runAsNonRoot requirement stays, and the Linux workers are judged as before.
  const json::Document win = patched(rc, {{kHead + ".spec.os", R"({"name": "windows"})"}});
  const FieldErrors w = validate_object(schemas(), win, at_level(PodSecurityLevel::kRestricted));
  const auto head_w = rules_at_head(w);
  EXPECT_FALSE(head_w.count("CheckAllowPrivilegeEscalation")) << describe(w);
  EXPECT_FALSE(head_w.count("CheckSeccompProfileRestricted")) << describe(w);
  EXPECT_FALSE(head_w.count("CheckCapabilitiesRestricted")) << describe(w);
  EXPECT_TRUE(head_w.count("CheckRunAsNonRoot")) << describe(w);
  EXPECT_TRUE(has(w, "spec.workerGroupSpecs[0].template.spec.containers[0].securityContext.allowPrivilegeEscalation",
                  "CheckAllowPrivilegeEscalation"));
  // hostUsers: false (policy 1.35): neither runAsNonRoot nor a non-zero runAsUser is required; the rest stays.
  const json::Document userns =
      patched(rc, {{kHead + ".spec.hostUsers", "false"}, {kHead + ".spec.securityContext.runAsUser", "0"}});
  const FieldErrors u = validate_object(schemas(), userns, at_level(PodSecurityLevel::kRestricted));
  const auto head_u = rules_at_head(u);
  EXPECT_FALSE(head_u.count("CheckRunAsNonRoot")) << describe(u);
  EXPECT_FALSE(head_u.count("CheckRunAsUser")) << describe(u);
  EXPECT_TRUE(head_u.count("CheckAllowPrivilegeEscalation")) << describe(u);
}

TEST(PodSecurityLevels, BaselineSeccompAllowsOnlyRuntimeDefaultAndLocalhost) {
  // check_seccompProfile_baseline.go: a seccompProfile that is set must be RuntimeDefault or Localhost, not merely
  // "not Unconfined".
  for (const char* type : {"Unconfined", "Bogus"}) {
    const json::Document rc =
        patched(yaml1(raycluster_yaml()), {{kHead + ".spec.containers[0].securityContext",
                                            std::string(R"({"seccompProfile": {"type": ")") + type + R"("}})"}});
    const FieldErrors b = validate_object(schemas(), rc, at_level(PodSecurityLevel::kBaseline));
    EXPECT_TRUE(has(b, kHead + ".spec.containers[0].securityContext.seccompProfile.type", "CheckSeccompBaseline"))
        << type << "\n"
        << describe(b);
  }
}

TEST(PodSecurityKubeRay, AutoscalerSidecarIsJudgedAtAutoscalerOptions) {
  // KubeRay adds an "autoscaler" container to the head whose securityContext is autoscalerOptions.securityContext.
  json::Document rc = patched(compliant_cluster(), {{"spec.enableInTreeAutoscaling", "true"}});
  const FieldErrors without = validate_object(schemas(), rc, at_level(PodSecurityLevel::kRestricted));
  EXPECT_TRUE(
      has(without, "spec.autoscalerOptions.securityContext.allowPrivilegeEscalation", "CheckAllowPrivilegeEscalation"))
      << describe(without);
  EXPECT_TRUE(has(without, "spec.autoscalerOptions.securityContext.capabilities.drop", "CheckCapabilitiesRestricted"));
  rc = patched(rc, {{"spec.autoscalerOptions.securityContext",
                     R"({"allowPrivilegeEscalation": false, "capabilities": {"drop": ["ALL"]}})"}});
  EXPECT_TRUE(pss_findings(validate_object(schemas(), rc, at_level(PodSecurityLevel::kRestricted))).empty())
      << describe(validate_object(schemas(), rc, at_level(PodSecurityLevel::kRestricted)));
}

TEST(PodSecurityKubeRay, RayJobDefaultSubmitterRunsAsRoot) {
  // Without submitterPodTemplate, KubeRay's default submitter Pod has no securityContext: restricted refuses it.
  const json::Document job = yaml1(rayjob_yaml());
  const FieldErrors r = validate_object(schemas(), job, at_level(PodSecurityLevel::kRestricted));
  EXPECT_TRUE(has(r, "spec.submitterPodTemplate.spec.containers[0].securityContext.runAsNonRoot", "CheckRunAsNonRoot"))
      << describe(r);
  // HTTPMode has no submitter Pod.
  const json::Document http = patched(job, {{"spec.submissionMode", "HTTPMode"}});
  EXPECT_FALSE(has(validate_object(schemas(), http, at_level(PodSecurityLevel::kRestricted)),
                   "spec.submitterPodTemplate.spec.containers[0].securityContext.runAsNonRoot", "CheckRunAsNonRoot"));
}

TEST(PodSecurityKubeRay, AppWrapperComponentsAreJudged) {
  const json::Document aw = yaml1(appwrapper_yaml());
  const FieldErrors b = validate_object(schemas(), aw, at_level(PodSecurityLevel::kBaseline));
  EXPECT_TRUE(pss_findings(b).empty()) << describe(b);
  const FieldErrors r = validate_object(schemas(), aw, at_level(PodSecurityLevel::kRestricted));
  bool found = false;
  for (const auto& e : r)
    found = found || (e.rule == "CheckRunAsNonRoot" && e.path.starts_with("spec.components[0].template."));
  EXPECT_TRUE(found) << describe(r);
}

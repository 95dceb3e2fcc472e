// rules/core_pod_*.cpp: core/v1 Pod validation applied (late) to the pod templates, and KubeRay's PodName.
//
// One parameterized test per entry of test/mutations/pod_rule_cases.yaml (the same cases the mutation corpus and the
// apiserver differential test use): the bad change gives the rule's finding at its path, the good change leaves the
// RayCluster without an error. A few behaviours the table cannot express follow.
#include <fstream>
#include <regex>

#include "test_support.hpp"

using namespace cfo;
using namespace cfo::test;
using validation::validate_object;

namespace {

const std::string kHeadTemplate = "spec.headGroupSpec.template";
const std::string kWorkerGroup = "spec.workerGroupSpecs[0]";

struct PodCase {
  std::string rule, what, at, scope;
  bool warn = false;
  std::vector<std::string> also;
  std::vector<std::pair<std::string, std::string>> bad, good;  // (path relative to the template, JSON value)
};

std::string cases_file() { return std::string(CFO_SOURCE_DIR) + "/test/mutations/pod_rule_cases.yaml"; }

std::vector<PodCase> load_cases() {
  std::vector<PodCase> out;
  auto docs = yaml_file(cases_file());
  if (docs.empty() || !docs[0].IsArray()) return out;
  for (const auto& c : docs[0].GetArray()) {
    PodCase pc;
    pc.rule = json::get_string(c, "rule").value_or("");
    pc.what = json::get_string(c, "what").value_or("");
    pc.at = json::get_string(c, "at").value_or("");
    pc.scope = json::get_string(c, "scope").value_or("");
    pc.warn = json::get_bool(c, "warn").value_or(false);
    if (const json::Value* also = json::find(c, "also"))
      for (const auto& a : also->GetArray()) pc.also.emplace_back(a.GetString());
    for (const char* k : {"bad", "good"}) {
      const json::Value* edits = json::find(c, k);
      if (!edits || !edits->IsObject()) continue;
      for (auto it = edits->MemberBegin(); it != edits->MemberEnd(); ++it) {
        std::string key(it->name.GetString(), it->name.GetStringLength());
        while (!key.empty() && key.back() == ' ') key.pop_back();
        std::string value = it->value.IsString() && std::string_view(it->value.GetString()) == "~delete"
                                ? "~delete"
                                : json::dump(it->value);
        (std::string_view(k) == "bad" ? pc.bad : pc.good).emplace_back(key, value);
      }
    }
    out.push_back(std::move(pc));
  }
  return out;
}

/// The value at a finding-syntax path ("a.b[0][key.with.dots]"), or nullptr.
const json::Value* at_path(const json::Value& root, const std::string& path) {
  const json::Value* cur = &root;
  std::size_t i = 0;
  while (cur && i < path.size()) {
    if (path[i] == '.') {
      ++i;
      continue;
    }
    if (path[i] == '[') {
      auto end = path.find(']', i);
      std::string inner = path.substr(i + 1, end - i - 1);
      if (cur->IsArray()) {
        std::size_t n = std::stoul(inner);
        cur = n < cur->Size() ? &(*cur)[static_cast<rapidjson::SizeType>(n)] : nullptr;
      } else {
        cur = json::find(*cur, inner);
      }
      i = end + 1;
      continue;
    }
    auto end = path.find_first_of(".[", i);
    cur = json::find(*cur, path.substr(i, end == std::string::npos ? std::string::npos : end - i));
    i = end == std::string::npos ? path.size() : end;
  }
  return cur;
}

/// Replaces "[+]" (append) and "[-1]" (last element) in `path` using the lists of `doc`.
std::string resolve(const json::Value& doc, const std::string& path, bool append) {
  const std::string token = append ? "[+]" : "[-1]";
  std::string out = path;
  for (auto pos = out.find(token); pos != std::string::npos; pos = out.find(token)) {
    const json::Value* list = at_path(doc, out.substr(0, pos));
    std::size_t n = list && list->IsArray() ? list->Size() : 0;
    out.replace(pos, token.size(), "[" + std::to_string(append ? n : (n ? n - 1 : 0)) + "]");
  }
  return out;
}

std::string absolute(const PodCase& c, const std::string& rel) {
  if (rel.starts_with("@group.")) return kWorkerGroup + "." + rel.substr(7);
  return (c.scope == "ray-worker" ? kWorkerGroup + ".template" : kHeadTemplate) + "." + rel;
}

json::Document apply(const PodCase& c, const std::vector<std::pair<std::string, std::string>>& edits,
                     const std::string& container0) {
  json::Document doc = yaml1(raycluster_yaml());
  for (const auto& [rel, value] : edits) {
    std::string v = std::regex_replace(value, std::regex("@c0"), container0);
    std::string abs = absolute(c, rel);
    // Appending to a list that is not there yet sets the list.
    if (abs.ends_with("[+]") && !at_path(doc, abs.substr(0, abs.size() - 3))) {
      doc = patched(doc, {{abs.substr(0, abs.size() - 3), "[" + v + "]"}});
      continue;
    }
    doc = patched(doc, {{resolve(doc, abs, true), v}});
  }
  return doc;
}

class PodRuleCase : public ::testing::TestWithParam<PodCase> {};

TEST_P(PodRuleCase, BadChangeIsFoundAndGoodChangeIsClean) {
  CFO_REQUIRE_SCHEMAS();
  const PodCase& c = GetParam();
  SCOPED_TRACE(c.rule + ": " + c.what);
  const std::string c0 = c.scope == "ray-worker" ? "ray-worker" : "ray-head";
  auto bad_doc = apply(c, c.bad, c0);
  auto bad = validate_object(schemas, bad_doc);
  const std::string at = resolve(bad_doc, absolute(c, c.at), false);
  auto found = std::count_if(bad.begin(), bad.end(), [&](const FieldError& e) {
    bool rule_ok = e.rule == c.rule || std::find(c.also.begin(), c.also.end(), e.rule) != c.also.end();
    return e.path == at && rule_ok && e.severity == (c.warn ? Severity::Warning : Severity::Error);
  });
  EXPECT_GT(found, 0) << "expected " << (c.warn ? "a warning" : "an error") << " at " << at << "\n" << describe(bad);
  if (c.warn) {
    EXPECT_EQ(error_count(bad), 0u) << describe(bad);
  }
  auto good = validate_object(schemas, apply(c, c.good, c0));
  EXPECT_EQ(error_count(good), 0u) << describe(good);
}

std::string case_name(const ::testing::TestParamInfo<PodCase>& info) {
  std::string n = info.param.rule + "_" + std::to_string(info.index);
  for (auto& ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

INSTANTIATE_TEST_SUITE_P(Table, PodRuleCase, ::testing::ValuesIn(load_cases()), case_name);

FieldErrors check(const validation::SchemaSet& schemas, std::vector<std::pair<std::string, std::string>> edits) {
  return validate_object(schemas, patched(yaml1(raycluster_yaml()), edits));
}

}  // namespace

TEST(CorePodRules, EveryRuleOfTheTableHasAFailingAndAPassingChange) {
  auto cases = load_cases();
  ASSERT_GT(cases.size(), 100u) << cases_file();
  for (const auto& c : cases) {
    EXPECT_FALSE(c.bad.empty()) << c.rule << ": " << c.what;
    EXPECT_FALSE(c.at.empty()) << c.rule << ": " << c.what;
  }
}

TEST(CorePodRules, FindingsNameTheUpstreamFunctionAndSource) {
  CFO_REQUIRE_SCHEMAS();
  auto errs = check(schemas, {{kHeadTemplate + ".spec.containers[0].image", "~delete"}});
  auto found = matching(errs, kHeadTemplate + ".spec.containers[0].image", "validateContainerCommon");
  ASSERT_EQ(found.size(), 1u) << describe(errs);
  EXPECT_NE(found[0].source.find("k8s:core/validation"), std::string::npos) << found[0].source;
  EXPECT_EQ(found[0].severity, Severity::Error);
}

TEST(CorePodRules, EnvVarNamesOnlyKubernetes132AcceptsAreErrorsOnAnOlderClusterWarningsOnAnUnknownOne) {
  CFO_REQUIRE_SCHEMAS();
  const std::string c = kHeadTemplate + ".spec.containers[0]";
  auto doc = patched(yaml1(raycluster_yaml()), {{c + ".env", "[{name: 1ST_VAR, value: '1'}]"},
                                                {c + ".envFrom", "[{prefix: '9X_', configMapRef: {name: cm}}]"}});
  auto judged = [&](int minor) {
    validation::ClusterProfile profile;
    profile.kubernetes_minor = minor;
    return validate_object(schemas, doc, profile);
  };
  for (int minor : {20, 31}) {  // the thirty-seventh trial: a 1.20 cluster refused the Pods, we said Valid
    auto errs = judged(minor);
    auto env = matching(errs, c + ".env[0].name", "ValidateEnv");
    auto prefix = matching(errs, c + ".envFrom[0].prefix", "ValidateEnvFrom");
    ASSERT_EQ(env.size(), 1u) << describe(errs);
    ASSERT_EQ(prefix.size(), 1u) << describe(errs);
    EXPECT_EQ(env[0].severity, Severity::Error);
    EXPECT_EQ(prefix[0].severity, Severity::Error);
    EXPECT_NE(env[0].reason.find("Kubernetes 1." + std::to_string(minor)), std::string::npos) << env[0].reason;
  }
  auto unknown = judged(0);  // validate and render offline
  EXPECT_EQ(error_count(unknown), 0u) << describe(unknown);
  ASSERT_EQ(matching(unknown, c + ".env[0].name", "ValidateEnv").size(), 1u) << describe(unknown);
  EXPECT_EQ(matching(unknown, c + ".env[0].name", "ValidateEnv")[0].severity, Severity::Warning);
  auto newer = judged(32);
  EXPECT_TRUE(matching(newer, c + ".env[0].name", "ValidateEnv").empty()) << describe(newer);
  EXPECT_TRUE(matching(newer, c + ".envFrom[0].prefix", "ValidateEnvFrom").empty()) << describe(newer);
}

TEST(CorePodRules, AMountOfAnInvalidVolumeIsNotFoundEither) {
  CFO_REQUIRE_SCHEMAS();
  const std::string s = kHeadTemplate + ".spec";
  auto errs = check(schemas, {{s + ".volumes", "[{name: Data, emptyDir: {}}]"},
                              {s + ".containers[0].volumeMounts", "[{name: Data, mountPath: /data}]"}});
  EXPECT_TRUE(has(errs, s + ".volumes[0].name", "ValidateVolumes")) << describe(errs);
  EXPECT_TRUE(has(errs, s + ".containers[0].volumeMounts[0].name", "ValidateVolumeMounts")) << describe(errs);
}

TEST(CorePodRules, RequestsDefaultToLimitsBeforeTheyAreCompared) {
  CFO_REQUIRE_SCHEMAS();
  const std::string r = "spec.workerGroupSpecs[0].template.spec.containers[0].resources";
  auto limit_only = check(schemas, {{r + ".limits[nvidia.com/gpu]", "1"}});
  EXPECT_EQ(error_count(limit_only), 0u) << describe(limit_only);
  auto request_only = check(schemas, {{r + ".requests[nvidia.com/gpu]", "1"}});
  EXPECT_TRUE(has(request_only, r + ".limits[nvidia.com/gpu]", "validateResourceRequirements"))
      << describe(request_only);
}

TEST(CorePodRules, DecimalAndBinarySuffixesCompareByValue) {
  CFO_REQUIRE_SCHEMAS();
  const std::string r = "spec.workerGroupSpecs[0].template.spec.containers[0].resources";
  auto ok = check(schemas, {{r + ".requests.memory", "8G"}});
  EXPECT_EQ(error_count(ok), 0u) << describe(ok);
  auto bad = check(schemas, {{r + ".requests.memory", "8Gi"}, {r + ".limits.memory", "8G"}});
  EXPECT_TRUE(has(bad, r + ".requests.memory", "validateResourceRequirements")) << describe(bad);
}

TEST(CorePodRules, ComponentsOfAnAppWrapperAreJudgedWithTheirTemplateMetadata) {
  CFO_REQUIRE_SCHEMAS();
  // A batch/v1 Job has no CRD schema here, so only the Pod rules see its template.
  auto aw = yaml1(R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata: {name: job-aw, namespace: team-a}
spec:
  components:
    - template:
        apiVersion: batch/v1
        kind: Job
        metadata: {name: job}
        spec:
          template:
            metadata:
              labels: {"bad key": x}
            spec:
              restartPolicy: Never
              containers:
                - name: main
                  image: busybox
                  resources:
                    requests: {cpu: 2x}
)");
  auto errs = validate_object(schemas, aw);
  const std::string t = "spec.components[0].template.spec.template";
  EXPECT_TRUE(has(errs, t + ".spec.containers[0].resources.requests.cpu", "ParseQuantity")) << describe(errs);
  EXPECT_TRUE(has(errs, t + ".metadata.labels[bad key]", "LabelKey")) << describe(errs);
}

TEST(CorePodRules, TheRayJobSubmitterTemplateIsJudged) {
  CFO_REQUIRE_SCHEMAS();
  auto job = patched(yaml1(rayjob_yaml()),
                     {{"spec.submitterPodTemplate", "{spec: {restartPolicy: Never, containers: [{name: submit}]}}"}});
  auto errs = validate_object(schemas, job);
  EXPECT_TRUE(has(errs, "spec.submitterPodTemplate.spec.containers[0].image", "validateContainerCommon"))
      << describe(errs);
}

TEST(CorePodRules, PodNameUsesTheRayJobClusterName) {
  CFO_REQUIRE_SCHEMAS();
  // The RayJob's cluster is "<rayjob>-<5 characters>" (12 characters here, with the '-' after it); the 50-character
  // prefix then keeps 38 characters of the group name and ends at its '.', which leaves ".-worker-".
  const std::string group = "train-" + std::string(31, 'a') + ".bc";
  auto job = patched(yaml1(rayjob_yaml()), {{"spec.rayClusterSpec.workerGroupSpecs[0].groupName", group}});
  auto errs = validate_object(schemas, job);
  EXPECT_TRUE(has(errs, "spec.rayClusterSpec.workerGroupSpecs[0].groupName", "PodName")) << describe(errs);
  auto fine = patched(yaml1(rayjob_yaml()),
                      {{"spec.rayClusterSpec.workerGroupSpecs[0].groupName", "train-" + std::string(31, 'a') + "bcd"}});
  EXPECT_FALSE(has(validate_object(schemas, fine), "spec.rayClusterSpec.workerGroupSpecs[0].groupName", "PodName"));
}

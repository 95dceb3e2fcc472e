// Pod-level inputs that core/v1 Pod validation would refuse when KubeRay creates the pods: each is refused at parse
// time, at its field path, and the nearest valid input is accepted.
#include <gtest/gtest.h>

#include "parse_test_util.hpp"
#include "workload/field_reader.hpp"
#include "workload/parse_pod_fragments.hpp"
#include "workload/parse_workload.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
// Not ok, with an Error at `path` with `rule`.
void expect_error(const std::string& spec, const std::string& path, const std::string& rule) {
  auto p = parse_spec(spec);
  EXPECT_FALSE(p.ok()) << spec << "\n" << dump(p.errors);
  const FieldError* e = finding(p.errors, path, rule);
  ASSERT_NE(e, nullptr) << spec << ": no " << rule << " at " << path << "; got:\n" << dump(p.errors);
  EXPECT_EQ(e->severity, Severity::Error);
  EXPECT_FALSE(e->reason.empty());
  EXPECT_TRUE(e->source.starts_with("core/v1:") || e->source.starts_with("kueue:") || e->source.starts_with("crd:"))
      << e->source;
}

void expect_ok(const std::string& spec) {
  auto p = parse_spec(spec);
  EXPECT_TRUE(p.ok()) << spec << "\n" << dump(p.errors);
}
}  // namespace

TEST(ParsePodFragments, ImageHasNoSurroundingWhitespace) {
  expect_error("{image: ' quay.io/rayproject/ray:2.52.1'}", "spec.image", "ContainerImage");
  expect_error("{image: \"quay.io/rayproject/ray:2.52.1\\t\"}", "spec.image", "ContainerImage");
  expect_error("{image: '   '}", "spec.image", "ContainerImage");
  expect_ok("{image: 'quay.io/rayproject/ray:2.52.1'}");
  expect_ok("{image: ''}");  // defaulted from rayVersion
}

TEST(ParsePodFragments, CheckImageRefusesAnEmptyImage) {
  FieldErrors errs;
  check_image("", "spec.image", errs);
  ASSERT_EQ(errs.size(), 1u);
  EXPECT_EQ(errs[0].rule, "ContainerImage");
  errs.clear();
  check_image("ray:2.52.1", "spec.image", errs);
  EXPECT_TRUE(errs.empty()) << dump(errs);
}

TEST(ParsePodFragments, ValueFromNamesExactlyOneSource) {
  expect_error("{env: [{name: A, valueFrom: {}}]}", "spec.env[0].valueFrom", "EnvValueFromOneSource");
  expect_error(
      "{env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}, "
      "secretKeyRef: {name: s, key: k}}}]}",
      "spec.env[0].valueFrom", "EnvValueFromOneSource");
  expect_error("{env: [{name: A, valueFrom: {fieldref: {fieldPath: metadata.name}}}]}",
               "spec.env[0].valueFrom.fieldref", "schema:unknownField");
  expect_ok(
      "{env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}, "
      "{name: B, valueFrom: {fieldRef: {apiVersion: v1, fieldPath: \"metadata.labels['app']\"}}}, "
      "{name: C, valueFrom: {resourceFieldRef: {resource: limits.memory, divisor: 1Mi}}}, "
      "{name: D, valueFrom: {configMapKeyRef: {name: my.config, key: app.conf, optional: true}}}, "
      "{name: E, valueFrom: {secretKeyRef: {name: creds, key: TOKEN}}}]}");
}

TEST(ParsePodFragments, ValueFromSourceHasItsRequiredMembers) {
  expect_error("{env: [{name: A, valueFrom: {fieldRef: {}}}]}", "spec.env[0].valueFrom.fieldRef.fieldPath",
               "schema:required");
  expect_error("{env: [{name: A, valueFrom: {fieldRef: {fieldPath: status.phase}}}]}",
               "spec.env[0].valueFrom.fieldRef.fieldPath", "EnvFieldPath");
  expect_error("{env: [{name: A, valueFrom: {resourceFieldRef: {containerName: ray-head}}}]}",
               "spec.env[0].valueFrom.resourceFieldRef.resource", "schema:required");
  expect_error("{env: [{name: A, valueFrom: {resourceFieldRef: {resource: limits.nvidia.com/gpu}}}]}",
               "spec.env[0].valueFrom.resourceFieldRef.resource", "EnvResourceFieldRef");
  expect_error("{env: [{name: A, valueFrom: {configMapKeyRef: {name: cm}}}]}",
               "spec.env[0].valueFrom.configMapKeyRef.key", "schema:required");
  expect_error("{env: [{name: A, valueFrom: {secretKeyRef: {key: k}}}]}", "spec.env[0].valueFrom.secretKeyRef.name",
               "schema:required");
  expect_error("{env: [{name: A, valueFrom: {secretKeyRef: {name: My_Secret, key: k}}}]}",
               "spec.env[0].valueFrom.secretKeyRef.name", "DNS1123Subdomain");
  expect_error("{env: [{name: A, valueFrom: {configMapKeyRef: {name: cm, key: 'a/b'}}}]}",
               "spec.env[0].valueFrom.configMapKeyRef.key", "ConfigMapKey");
}

TEST(ParsePodFragments, VolumeHasExactlyOneSource) {
  expect_error("{volumes: [{name: data}]}", "spec.volumes[0]", "VolumeSource");
  expect_error("{volumes: [{name: data, emptyDir: {}, persistentVolumeClaim: {claimName: c}}]}", "spec.volumes[0]",
               "VolumeSource");
  expect_error("{volumes: [{name: data, emptyDirr: {}}]}", "spec.volumes[0].emptyDirr", "schema:unknownField");
  expect_error("{volumes: [{name: data, emptyDir: 1}]}", "spec.volumes[0].emptyDir", "schema:type");
  expect_ok(
      "{volumes: [{name: data, emptyDir: {}}, {name: cfg, configMap: {name: c}}, "
      "{name: claim, persistentVolumeClaim: {claimName: c}}]}");
}

TEST(ParsePodFragments, TolerationKeyIsAQualifiedName) {
  expect_error("{head: {tolerations: [{key: 'bad key', operator: Exists}]}}", "spec.head.tolerations[0].key",
               "TolerationKey");
  expect_error("{workerGroups: [{name: w, tolerations: [{key: 'a/b/c', operator: Exists}]}]}",
               "spec.workerGroups[0].tolerations[0].key", "TolerationKey");
  expect_ok("{head: {tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]}}");
}

TEST(ParsePodFragments, TolerationOperatorAndValue) {
  expect_error("{head: {tolerations: [{key: k, operator: Exists, value: v}]}}", "spec.head.tolerations[0].value",
               "TolerationValue");
  expect_error("{head: {tolerations: [{key: k, value: 'not a label value'}]}}", "spec.head.tolerations[0].value",
               "TolerationValue");
  expect_error("{head: {tolerations: [{value: v}]}}", "spec.head.tolerations[0].operator", "TolerationEmptyKey");
  expect_error("{head: {tolerations: [{operator: Equal}]}}", "spec.head.tolerations[0].operator", "TolerationEmptyKey");
  expect_ok("{head: {tolerations: [{operator: Exists}, {key: k, value: v}, {key: k, operator: Equal}]}}");
}

TEST(ParsePodFragments, TolerationSecondsNeedsNoExecute) {
  expect_error("{head: {tolerations: [{key: k, operator: Exists, tolerationSeconds: 30}]}}",
               "spec.head.tolerations[0].effect", "TolerationSeconds");
  expect_error("{head: {tolerations: [{key: k, operator: Exists, effect: NoSchedule, tolerationSeconds: 30}]}}",
               "spec.head.tolerations[0].effect", "TolerationSeconds");
  // NoExecute without tolerationSeconds tolerates the taint forever.
  expect_ok(
      "{head: {tolerations: [{key: k, operator: Exists, effect: NoExecute, tolerationSeconds: 30}, "
      "{key: k, operator: Exists, effect: NoExecute}]}}");
}

TEST(ParsePodFragments, SubPathIsALocalDescendingPath) {
  const std::string vol = "{volumes: [{name: d, emptyDir: {}}], volumeMounts: [{name: d, mountPath: /a, ";
  expect_error(vol + "subPath: /abs}]}", "spec.volumeMounts[0].subPath", "LocalDescendingPath");
  expect_error(vol + "subPath: a/../../b}]}", "spec.volumeMounts[0].subPath", "LocalDescendingPath");
  expect_error(vol + "subPath: ..}]}", "spec.volumeMounts[0].subPath", "LocalDescendingPath");
  expect_error(vol + "subPathExpr: '../$(POD_NAME)'}]}", "spec.volumeMounts[0].subPathExpr", "LocalDescendingPath");
  expect_error(vol + "subPath: a, subPathExpr: '$(POD_NAME)'}]}", "spec.volumeMounts[0].subPathExpr",
               "SubPathExclusive");
  expect_ok(vol + "subPath: a/b..c/..d}]}");
  expect_ok(vol + "subPathExpr: 'logs/$(POD_NAME)'}]}");
}

TEST(ParsePodFragments, QueueNamesAreSubdomainsAndLabelValues) {
  expect_ok("{queue: {localQueue: team-a.gpu, clusterQueue: cluster.gpu, priorityClass: high.prio}}");
  expect_error("{queue: {localQueue: Team_A}}", "spec.queue.localQueue", "DNS1123Subdomain");
  expect_error("{queue: {localQueue: a..b}}", "spec.queue.localQueue", "DNS1123Subdomain");
  expect_error("{queue: {localQueue: " + std::string(64, 'a') + "}}", "spec.queue.localQueue", "LabelValue");
  expect_error("{queue: {priorityClass: " + std::string(64, 'a') + "}}", "spec.queue.priorityClass", "LabelValue");
  expect_error("{queue: {priorityClass: -high}}", "spec.queue.priorityClass", "DNS1123Subdomain");
  expect_error("{queue: {clusterQueue: Cluster}}", "spec.queue.clusterQueue", "DNS1123Subdomain");
  // A long ClusterQueue name is fine behind an explicit LocalQueue, not as the managed LocalQueue's name.
  std::string long_cq = std::string(60, 'c') + ".example";
  expect_ok("{queue: {localQueue: lq, clusterQueue: " + long_cq + "}}");
  expect_error("{queue: {clusterQueue: " + long_cq + "}}", "spec.queue.clusterQueue", "LabelValue");
}

TEST(FieldReaderWording, TypeNamesTakeTheRightArticle) {
  EXPECT_EQ(with_article("array"), "an array");
  EXPECT_EQ(with_article("object"), "an object");
  EXPECT_EQ(with_article("integer"), "an integer");
  EXPECT_EQ(with_article("string"), "a string");
  auto p = parse_spec("{workerGroups: {name: w}}");
  const FieldError* e = finding(p.errors, "spec.workerGroups", "schema:type");
  ASSERT_NE(e, nullptr) << dump(p.errors);
  EXPECT_EQ(e->reason, "must be a list, not an object");
  p = parse_spec("{env: [[]]}");
  e = finding(p.errors, "spec.env[0]", "schema:type");
  ASSERT_NE(e, nullptr) << dump(p.errors);
  EXPECT_EQ(e->reason, "must be an object, not an array");
}

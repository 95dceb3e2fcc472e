// Pod template overrides: spec.template, spec.head.template, spec.workerGroups[i].template and the per-group Pod
// fields (image, env, labels, annotations, topology): what lands where, which keys are refused, and findings on
// the merged templates reported at the workload's fields.
#include <gtest/gtest.h>

#include "reconcile_test_util.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
const json::Value* head_tpl(const json::Value& rc) { return json::find_path(rc, "spec.headGroupSpec.template"); }
const json::Value& group_tpl(const json::Value& rc, int i) {
  return at(rc, {"spec", "workerGroupSpecs", i, "template"});
}
std::string names_of(const json::Value* containers) {
  std::string out;
  if (containers && containers->IsArray())
    for (const auto& c : containers->GetArray()) out += (out.empty() ? "" : ",") + json::string_at(c, "name");
  return out;
}
}  // namespace

TEST(PodTemplate, GroupTemplateLandsInThatGroupOnly) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({workerGroups: [{name: cpu}, {name: gpu, template: {spec: {
      nodeSelector: {gpu: a100}, serviceAccountName: storage, priorityClassName: research,
      affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
        {matchExpressions: [{key: zone, operator: In, values: [a]}]}]}}},
      containers: [{name: shipper, image: busybox}]}}}]})",
                               schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value& gpu = group_tpl(top(out), 1);
  EXPECT_EQ(json::string_at(gpu, "spec.serviceAccountName"), "storage");
  EXPECT_EQ(json::string_at(gpu, "spec.priorityClassName"), "research");
  EXPECT_TRUE(json::find_path(gpu, "spec.affinity.nodeAffinity"));
  EXPECT_EQ(names_of(json::find_path(gpu, "spec.containers")), "machine-learning,shipper");
  EXPECT_EQ(names_of(json::find_path(group_tpl(top(out), 0), "spec.containers")), "machine-learning");
  EXPECT_FALSE(json::find_path(group_tpl(top(out), 0), "spec.nodeSelector"));
  EXPECT_FALSE(json::find_path(*head_tpl(top(out)), "spec.nodeSelector"));
}

TEST(PodTemplate, TheRayContainerIsAddressedByItsName) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({head: {template: {spec: {containers: [{name: ray-head,
      securityContext: {runAsNonRoot: true}, env: [{name: EXTRA, value: '1'}],
      ports: [{containerPort: 8265, name: dash}]}]}}}})",
                               schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value& ray = at(top(out), {"spec", "headGroupSpec", "template", "spec", "containers", 0});
  EXPECT_EQ(json::string_at(ray, "name"), "ray-head");
  EXPECT_TRUE(json::find_path(ray, "securityContext.runAsNonRoot"));
  EXPECT_EQ(json::string_at(at(ray, {"env", 1}), "name"), "EXTRA");   // after RAY_USAGE_STATS_ENABLED
  EXPECT_EQ(json::string_at(at(ray, {"ports", 1}), "name"), "dash");  // merged by containerPort
  EXPECT_EQ(at(ray, {"ports"}).Size(), 4u);
}

TEST(PodTemplate, SpecTemplateGoesToEveryPodAndChangesAnOperatorContainerOnlyWhereItIs) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({template: {metadata: {labels: {team: a}}, spec: {tolerations: [{key: spot,
      operator: Exists}], containers: [{name: ray-head, tty: true}, {name: machine-learning, stdin: true}]}},
      workerGroups: [{name: w, template: {metadata: {labels: {team: b}}}}],
      job: {entrypoint: python x.py}})",
                               schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value& cluster = at(top(out), {"spec", "rayClusterSpec"});
  const json::Value& head = at(cluster, {"headGroupSpec", "template"});
  const json::Value& worker = at(cluster, {"workerGroupSpecs", 0, "template"});
  EXPECT_EQ(names_of(json::find_path(head, "spec.containers")), "ray-head");
  EXPECT_EQ(names_of(json::find_path(worker, "spec.containers")), "machine-learning");
  EXPECT_TRUE(json::find_path(head, "spec.containers")->GetArray()[0].HasMember("tty"));
  EXPECT_TRUE(json::find_path(worker, "spec.containers")->GetArray()[0].HasMember("stdin"));
  EXPECT_EQ(json::string_at(head, "metadata.labels.team"), "a");
  EXPECT_EQ(json::string_at(worker, "metadata.labels.team"), "b");  // the group's own template wins
  // The submitter Pod gets it too, and keeps its one container.
  const json::Value* sub = json::find_path(top(out), "spec.submitterPodTemplate");
  ASSERT_TRUE(sub);
  EXPECT_EQ(names_of(json::find_path(*sub, "spec.containers")), "ray-job-submitter");
  EXPECT_TRUE(json::find_path(*sub, "spec.tolerations"));
  EXPECT_EQ(json::string_at(*sub, "metadata.labels.team"), "a");
}

TEST(PodTemplate, PerGroupImageEnvLabelsAnnotations) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({env: [{name: A, value: spec}, {name: B, value: spec}], annotations: {note: spec},
      workerGroups: [{name: w, image: 'quay.io/rayproject/ray:2.52.1-gpu', env: [{name: B, value: group},
        {name: C, value: group}], labels: {pool: gpu}, annotations: {note: group, extra: x}}]})",
                               schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value& w = group_tpl(top(out), 0);
  const json::Value& ray = at(w, {"spec", "containers", 0});
  EXPECT_EQ(json::string_at(ray, "image"), "quay.io/rayproject/ray:2.52.1-gpu");
  std::string env;
  for (const auto& e : at(ray, {"env"}).GetArray())
    env += json::string_at(e, "name") + "=" + json::string_at(e, "value") + ";";
  EXPECT_EQ(env, "A=spec;B=group;C=group;RAY_USAGE_STATS_ENABLED=0;");
  EXPECT_EQ(json::string_at(w, "metadata.labels.pool"), "gpu");
  EXPECT_EQ(json::string_at(w, "metadata.annotations.note"), "group");
  EXPECT_EQ(json::string_at(*head_tpl(top(out)), "metadata.annotations.note"), "spec");
  EXPECT_EQ(json::string_at(at(*head_tpl(top(out)), {"spec", "containers", 0}), "image"),
            "quay.io/rayproject/ray:2.52.1");
}

// Every key the operator owns, refused with a finding that names the field that owns it.
TEST(PodTemplate, RefusedOverridesNameBothFields) {
  CFO_REQUIRE_SCHEMAS(schemas);
  struct Case {
    const char* spec;
    const char* path;
    const char* rule;
    const char* names;  // the other field, in the message
  };
  const Case cases[] = {
      {"{head: {template: {metadata: {labels: {ray.io/cluster: x}}}}}",
       "spec.head.template.metadata.labels[ray.io/cluster]", "ReservedLabel", "KubeRay"},
      {"{head: {template: {metadata: {labels: {ray.io/group: x}}}}}",
       "spec.head.template.metadata.labels[ray.io/group]", "ReservedLabel", "KubeRay"},
      {"{template: {metadata: {labels: {ray.io/node-type: x}}}}", "spec.template.metadata.labels[ray.io/node-type]",
       "ReservedLabel", "KubeRay"},
      {"{workerGroups: [{name: w, labels: {codeflare.dev/workload: x}}]}",
       "spec.workerGroups[0].labels[codeflare.dev/workload]", "ReservedLabel", "operator"},
      {"{workerGroups: [{name: w, template: {metadata: {labels: {kueue.x-k8s.io/queue-name: q}}}}]}",
       "spec.workerGroups[0].template.metadata.labels[kueue.x-k8s.io/queue-name]", "ReservedLabel", "operator"},
      {"{head: {template: {metadata: {name: x}}}}", "spec.head.template.metadata.name", "TemplateObjectMeta",
       "KubeRay"},
      {"{head: {template: {metadata: {namespace: x}}}}", "spec.head.template.metadata.namespace", "TemplateObjectMeta",
       "namespace"},
      {"{head: {template: {metadata: {annotations: {kueue.x-k8s.io/elastic-job: 'true'}}}}}",
       "spec.head.template.metadata.annotations[kueue.x-k8s.io/elastic-job]", "ReservedAnnotation",
       "spec.autoscaling.elasticJob"},
      {"{head: {annotations: {kueue.x-k8s.io/podset-required-topology: rack}}}",
       "spec.head.annotations[kueue.x-k8s.io/podset-required-topology]", "ReservedAnnotation", "topology"},
      {"{head: {template: {spec: {containers: [{name: ray-head, command: [bash]}]}}}}",
       "spec.head.template.spec.containers[0].command", "RayContainerCommand", "spec.head.rayStartParams"},
      {"{workerGroups: [{name: w, template: {spec: {containers: [{name: machine-learning, args: [x]}]}}}]}",
       "spec.workerGroups[0].template.spec.containers[0].args", "RayContainerCommand",
       "spec.workerGroups[0].rayStartParams"},
      {"{workerGroups: [{name: w, template: {spec: {containers: [{name: machine-learning, resources: {requests: "
       "{cpu: '8'}}}]}}}]}",
       "spec.workerGroups[0].template.spec.containers[0].resources.requests", "RayContainerResources",
       "spec.workerGroups[0].resources"},
      {"{head: {template: {spec: {containers: [{name: ray-head, resources: {limits: {memory: 1Gi}}}]}}}}",
       "spec.head.template.spec.containers[0].resources.limits", "RayContainerResources", "spec.head.resources"},
      {"{template: {spec: {containers: [{name: machine-learning, image: x}]}}}",
       "spec.template.spec.containers[0].image", "RayContainerImage", "spec.workerGroups[*].image"},
      {"{head: {template: {spec: {containers: [{name: ray-head, env: [{name: RAY_USAGE_STATS_ENABLED, value: "
       "'1'}]}]}}}}",
       "spec.head.template.spec.containers[0].env[0].name", "ReservedEnvVar", "spec.usageStats"},
      {"{workerGroups: [{name: w, env: [{name: RAY_USAGE_STATS_ENABLED, value: '1'}]}]}",
       "spec.workerGroups[0].env[0].name", "ReservedEnvVar", "spec.usageStats"},
      {"{workerGroups: [{name: w, tolerations: [{key: a, operator: Exists}], template: {spec: {tolerations: []}}}]}",
       "spec.workerGroups[0].template.spec.tolerations", "TemplateTolerations", "spec.workerGroups[0].tolerations"},
      {"{head: {tolerations: [{key: a, operator: Exists}]}, template: {spec: {tolerations: []}}}",
       "spec.template.spec.tolerations", "TemplateTolerations", "spec.head.tolerations"},
      {"{head: {template: {spec: {ephemeralContainers: [{name: debug}]}}}}",
       "spec.head.template.spec.ephemeralContainers", "EphemeralContainers", "ephemeral"},
      {"{odhTrustedCABundle: true, head: {template: {spec: {volumes: [{name: odh-ca-cert, emptyDir: {}}]}}}}",
       "spec.head.template.spec.volumes[0].name", "ReservedVolumeName", "spec.odhTrustedCABundle"},
      {"{odhTrustedCABundle: true, head: {template: {spec: {containers: [{name: side, image: x, volumeMounts: "
       "[{name: v, mountPath: /etc/ssl/certs/odh-ca-bundle.crt}]}]}}}}",
       "spec.head.template.spec.containers[0].volumeMounts[0].mountPath", "ReservedMountPath",
       "spec.odhTrustedCABundle"},
      {"{head: {template: {spec: {containers: [{name: a, image: x}, {name: a, image: y}]}}}}",
       "spec.head.template.spec.containers[1].name", "Duplicate", "name"},
      {"{head: {template: {spec: {containers: [{name: a, image: x, env: [{name: E}, {name: E}]}]}}}}",
       "spec.head.template.spec.containers[0].env[1].name", "Duplicate", "name"},
      {"{head: {template: {spec: {volumes: [{name: v, emptyDir: {}}, {name: v, emptyDir: {}}]}}}}",
       "spec.head.template.spec.volumes[1].name", "Duplicate", "name"},
      {"{head: {template: {kind: Pod}}}", "spec.head.template.kind", "schema:unknownField", "unknown"},
  };
  for (const auto& c : cases) {
    Outcome out = reconcile_spec(c.spec, schemas);
    EXPECT_FALSE(out.valid) << c.spec;
    const FieldError* e = error_at(out, c.path, c.rule);
    ASSERT_TRUE(e) << c.spec << "\n" << dump(out.errors);
    EXPECT_NE(e->reason.find(c.names), std::string::npos) << c.spec << ": " << e->reason;
    EXPECT_TRUE(out.desired.empty()) << c.spec;
  }
}

TEST(PodTemplate, WhatTheOperatorDoesNotOwnMayBeChanged) {
  CFO_REQUIRE_SCHEMAS(schemas);
  // The Ray container's pull policy, lifecycle, probes; the submitter container's image, command and resources; a
  // sidecar's command; labels of other domains.
  Outcome out = reconcile_spec(R"({head: {template: {metadata: {labels: {ray.io/custom: x}}, spec: {containers: [
      {name: ray-head, imagePullPolicy: IfNotPresent, readinessProbe: {exec: {command: [ready]}}}]}}},
      job: {entrypoint: run, submitter: {template: {spec: {containers: [{name: ray-job-submitter, image: sub:1,
        command: [sh, -c, 'ray job submit -- run'], resources: {requests: {cpu: '1'}}}]}}}}})",
                               schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value& sub = at(top(out), {"spec", "submitterPodTemplate", "spec", "containers", 0});
  EXPECT_EQ(json::string_at(sub, "image"), "sub:1");
  EXPECT_EQ(json::string_at(sub, "resources.requests.cpu"), "1");
  EXPECT_EQ(json::string_at(sub, "resources.requests.memory"), "200Mi");  // the default's, merged
}

// Findings of the checks that run after the merge (core/v1 Pod rules, the upstream schemas) are reported at the
// workload's field the merged value came from.
TEST(PodTemplate, FindingsOnMergedTemplatesNameTheWorkloadField) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({template: {spec: {restartPolicy: Sometimes}},
      workerGroups: [{name: w, env: [{name: 'A=B', value: '1'}], template: {spec: {
        nodeSelector: {'bad key!': x}, unknownThing: 1, containers: [{name: shipper, ports: [{containerPort: 70000}]}]}}}]})",
                               schemas);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(error_at(out, "spec.template.spec.restartPolicy", "validateRestartPolicy")) << dump(out.errors);
  EXPECT_TRUE(error_at(out, "spec.workerGroups[0].env[0].name", "ValidateEnv")) << dump(out.errors);
  EXPECT_TRUE(error_at(out, "spec.workerGroups[0].template.spec.nodeSelector[bad key!]", "LabelKey"))
      << dump(out.errors);
  EXPECT_TRUE(error_at(out, "spec.workerGroups[0].template.spec.unknownThing", "schema:unknownField"))
      << dump(out.errors);
  EXPECT_TRUE(error_at(out, "spec.workerGroups[0].template.spec.containers[0].image", "validateContainerCommon"))
      << dump(out.errors);
  EXPECT_TRUE(error_at(out, "spec.workerGroups[0].template.spec.containers[0].ports[0].containerPort"))
      << dump(out.errors);
  for (const auto& e : out.errors)
    EXPECT_TRUE(e.path.starts_with("spec.")) << "a finding not at a field of the workload: " << e.path;
}

TEST(PodTemplate, FindingsInsideAnAppWrapperNameTheWorkloadFieldToo) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({appWrapper: true, head: {template: {spec: {dnsPolicy: Sometimes}}}})", schemas);
  EXPECT_FALSE(out.valid);
  EXPECT_TRUE(error_at(out, "spec.head.template.spec.dnsPolicy")) << dump(out.errors);
}

TEST(PodTemplate, TopologyBecomesTheAnnotationsOfThatPodSet) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec(R"({queue: {localQueue: q}, head: {topology: {unconstrained: true}},
      workerGroups: [{name: w, replicas: 4, topology: {required: rack, sliceRequired: host, sliceSize: 2}}]})",
                               schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  const json::Value* ha = json::find_path(*head_tpl(top(out)), "metadata.annotations");
  ASSERT_TRUE(ha);
  EXPECT_EQ(json::get_string(*ha, "kueue.x-k8s.io/podset-unconstrained-topology"), "true");
  const json::Value* wa = json::find_path(group_tpl(top(out), 0), "metadata.annotations");
  ASSERT_TRUE(wa);
  EXPECT_EQ(json::get_string(*wa, "kueue.x-k8s.io/podset-required-topology"), "rack");
  EXPECT_EQ(json::get_string(*wa, "kueue.x-k8s.io/podset-slice-required-topology"), "host");
  EXPECT_EQ(json::get_string(*wa, "kueue.x-k8s.io/podset-slice-size"), "2");
}

TEST(PodTemplate, TopologyRules) {
  CFO_REQUIRE_SCHEMAS(schemas);
  struct Case {
    const char* topology;
    const char* path;
    const char* rule;
  };
  const Case cases[] = {
      {"{required: rack, preferred: host}", "spec.workerGroups[0].topology.preferred", "TopologyRequestOne"},
      {"{required: 'bad level!'}", "spec.workerGroups[0].topology.required", "TopologyLevel"},
      {"{sliceRequired: host}", "spec.workerGroups[0].topology.sliceSize", "TopologySlice"},
      {"{sliceSize: 1}", "spec.workerGroups[0].topology.sliceSize", "TopologySlice"},
      {"{sliceRequired: host, sliceSize: 3}", "spec.workerGroups[0].topology.sliceSize", "TopologySlice"},
      {"{podSetGroup: '12'}", "spec.workerGroups[0].topology.podSetGroup", "TopologyPodSetGroup"},
      {"{required: rack, podSetGroup: g, sliceRequired: h, sliceSize: 1}", "spec.workerGroups[0].topology.podSetGroup",
       "TopologyPodSetGroup"},
      {"{sliceSize: 0}", "spec.workerGroups[0].topology.sliceSize", "schema:minimum"},
  };
  for (const auto& c : cases) {
    Outcome out =
        reconcile_spec(std::string("{workerGroups: [{name: w, replicas: 2, topology: ") + c.topology + "}]}", schemas);
    EXPECT_TRUE(error_at(out, c.path, c.rule)) << c.topology << "\n" << dump(out.errors);
  }
  // With a topology annotation in spec.annotations (allowed there, as before), a topology field would set it twice.
  Outcome both = reconcile_spec(
      "{annotations: {kueue.x-k8s.io/podset-required-topology: rack}, head: {topology: {preferred: host}}}", schemas);
  EXPECT_TRUE(error_at(both, "spec.head.topology", "TopologyConflict")) << dump(both.errors);
  Outcome plain = reconcile_spec("{annotations: {kueue.x-k8s.io/podset-required-topology: rack}}", schemas);
  EXPECT_TRUE(plain.valid) << dump(plain.errors);
}

TEST(PodTemplate, AGroupImageOfAnotherRayVersionIsAWarning) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile_spec("{workerGroups: [{name: w, image: 'rayproject/ray:2.40.0'}]}", schemas);
  ASSERT_TRUE(out.valid) << dump(out.errors);
  bool warned = false;
  for (const auto& e : out.errors)
    warned = warned || (e.path == "spec.workerGroups[0].image" && e.rule == "RayVersionMatchesImage");
  EXPECT_TRUE(warned) << dump(out.errors);
}

// The strategic merge of a Pod template fragment over a generated Pod template: every merge key, the lists that are
// replaced, retainKeys, the set of finalizers, the containers a template for every Pod only changes, and the origins.
#include <gtest/gtest.h>

#include "test_support.hpp"
#include "workload/strategic_merge.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
// `base` with `patch` merged over it, as compact JSON (both are YAML flow text).
std::string merged(const std::string& base, const std::string& patch, const MergeOptions& options = {}) {
  json::Document b = yaml_doc(base);
  json::Document p = yaml_doc(patch);
  merge_pod_template(b, p, b.GetAllocator(), options);
  return json::dump(b);
}

std::string compact(const std::string& yaml) { return json::dump(yaml_doc(yaml)); }

const char* kBase = R"({spec: {containers: [{name: ray, image: r, env: [{name: A, value: a}],
  ports: [{name: gcs, containerPort: 6379, protocol: TCP}], volumeMounts: [{name: v, mountPath: /v}]}],
  volumes: [{name: v, persistentVolumeClaim: {claimName: c}}], tolerations: [{key: t, operator: Exists}]}})";
}  // namespace

TEST(StrategicMerge, ContainersMergeByNameAndNewOnesAreAppended) {
  EXPECT_EQ(merged("{spec: {containers: [{name: ray, image: r}]}}",
                   "{spec: {containers: [{name: side, image: s}, {name: ray, securityContext: {runAsUser: 1}}]}}"),
            compact("{spec: {containers: [{name: ray, image: r, securityContext: {runAsUser: 1}}, "
                    "{name: side, image: s}]}}"));
}

TEST(StrategicMerge, InitAndEphemeralContainersMergeByName) {
  for (const char* list : {"initContainers", "ephemeralContainers"}) {
    std::string l(list);
    EXPECT_EQ(
        merged("{spec: {" + l + ": [{name: a, image: x}]}}", "{spec: {" + l + ": [{name: a, image: y}, {name: b}]}}"),
        compact("{spec: {" + l + ": [{name: a, image: y}, {name: b}]}}"))
        << list;
  }
}

TEST(StrategicMerge, EnvMergesByNamePortsByContainerPortMountsByMountPathDevicesByDevicePath) {
  EXPECT_EQ(merged(kBase, R"({spec: {containers: [{name: ray, env: [{name: B, value: b}, {name: A, value: z}]}]}})"),
            json::dump(yaml_doc(R"({spec: {containers: [{name: ray, image: r, env: [{name: A, value: z},
              {name: B, value: b}], ports: [{name: gcs, containerPort: 6379, protocol: TCP}],
              volumeMounts: [{name: v, mountPath: /v}]}], volumes: [{name: v, persistentVolumeClaim: {claimName: c}}],
              tolerations: [{key: t, operator: Exists}]}})")));
  const std::string ports =
      merged(kBase, R"({spec: {containers: [{name: ray, ports: [{containerPort: 6379, name: redis},
    {containerPort: 9000, name: extra}]}]}})");
  EXPECT_NE(
      ports.find(R"({"name":"redis","containerPort":6379,"protocol":"TCP"},{"containerPort":9000,"name":"extra"})"),
      std::string::npos)
      << ports;
  const std::string mounts = merged(
      kBase,
      R"({spec: {containers: [{name: ray, volumeMounts: [{mountPath: /v, readOnly: true}, {name: w, mountPath: /w}]}]}})");
  EXPECT_NE(mounts.find(R"([{"name":"v","mountPath":"/v","readOnly":true},{"name":"w","mountPath":"/w"}])"),
            std::string::npos)
      << mounts;
  EXPECT_EQ(
      merged(
          "{spec: {containers: [{name: c, volumeDevices: [{name: a, devicePath: /d}]}]}}",
          "{spec: {containers: [{name: c, volumeDevices: [{name: b, devicePath: /d}, {name: c, devicePath: /e}]}]}}"),
      compact(
          "{spec: {containers: [{name: c, volumeDevices: [{name: b, devicePath: /d}, {name: c, devicePath: /e}]}]}}"));
}

TEST(StrategicMerge, VolumesMergeByNameAndKeepOnlyThePatchSource) {
  // retainKeys: the patch's volume source replaces the generated one instead of being added to it.
  const std::string out = merged(kBase, "{spec: {volumes: [{name: v, emptyDir: {}}, {name: w, emptyDir: {}}]}}");
  EXPECT_NE(out.find(R"("volumes":[{"name":"v","emptyDir":{}},{"name":"w","emptyDir":{}}])"), std::string::npos) << out;
}

TEST(StrategicMerge, KeyedPodSpecLists) {
  EXPECT_EQ(merged("{spec: {imagePullSecrets: [{name: a}]}}", "{spec: {imagePullSecrets: [{name: a}, {name: b}]}}"),
            compact("{spec: {imagePullSecrets: [{name: a}, {name: b}]}}"));
  EXPECT_EQ(merged("{spec: {schedulingGates: [{name: a}]}}", "{spec: {schedulingGates: [{name: b}]}}"),
            compact("{spec: {schedulingGates: [{name: a}, {name: b}]}}"));
  EXPECT_EQ(merged("{spec: {hostAliases: [{ip: 1.2.3.4, hostnames: [a]}]}}",
                   "{spec: {hostAliases: [{ip: 1.2.3.4, hostnames: [b]}]}}"),
            compact("{spec: {hostAliases: [{ip: 1.2.3.4, hostnames: [b]}]}}"));
  EXPECT_EQ(
      merged("{spec: {topologySpreadConstraints: [{topologyKey: zone, maxSkew: 1}]}}",
             "{spec: {topologySpreadConstraints: [{topologyKey: zone, maxSkew: 2}, {topologyKey: host, maxSkew: 1}]}}"),
      compact(
          "{spec: {topologySpreadConstraints: [{topologyKey: zone, maxSkew: 2}, {topologyKey: host, maxSkew: 1}]}}"));
  EXPECT_EQ(merged("{spec: {resourceClaims: [{name: gpu, resourceClaimName: a}]}}",
                   "{spec: {resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]}}"),
            compact("{spec: {resourceClaims: [{name: gpu, resourceClaimTemplateName: t}]}}"));
}

TEST(StrategicMerge, ListsWithoutAMergeKeyAreReplaced) {
  const std::string out = merged(kBase,
                                 "{spec: {tolerations: [{key: gpu, operator: Exists}], containers: [{name: ray, "
                                 "command: [a], args: [b]}]}}");
  EXPECT_NE(out.find(R"("tolerations":[{"key":"gpu","operator":"Exists"}])"), std::string::npos) << out;
  EXPECT_NE(out.find(R"("command":["a"],"args":["b"])"), std::string::npos) << out;
  EXPECT_EQ(merged("{spec: {affinity: {nodeAffinity: {x: [1, 2]}}}}", "{spec: {affinity: {nodeAffinity: {x: [3]}}}}"),
            compact("{spec: {affinity: {nodeAffinity: {x: [3]}}}}"));
}

TEST(StrategicMerge, MetadataMapsMergeAndFinalizersAreASet) {
  EXPECT_EQ(merged("{metadata: {labels: {a: '1'}, finalizers: [x]}, spec: {}}",
                   "{metadata: {labels: {b: '2', a: '3'}, finalizers: [x, y]}}"),
            compact("{metadata: {labels: {a: '3', b: '2'}, finalizers: [x, y]}, spec: {}}"));
  EXPECT_EQ(merged("{spec: {}}", "{metadata: {annotations: {n: v}}}"),
            compact("{spec: {}, metadata: {annotations: {n: v}}}"));
}

TEST(StrategicMerge, ATypeMismatchReplaces) {
  EXPECT_EQ(merged("{spec: {containers: [{name: a}]}}", "{spec: {containers: {name: a}}}"),
            compact("{spec: {containers: {name: a}}}"));
}

TEST(StrategicMerge, ExistingOnlyContainersChangeButAreNeverAdded) {
  MergeOptions only{{"ray-head", "machine-learning"}, nullptr};
  EXPECT_EQ(
      merged("{spec: {containers: [{name: machine-learning, image: r}]}}",
             "{spec: {containers: [{name: ray-head, tty: true}, {name: machine-learning, tty: true}, {name: s}]}}",
             only),
      compact("{spec: {containers: [{name: machine-learning, image: r, tty: true}, {name: s}]}}"));
}

TEST(StrategicMerge, OriginsNameThePatchFieldsAtTheirMergedPlaces) {
  json::Document b = yaml_doc(kBase);
  json::Document p = yaml_doc(R"({metadata: {labels: {a: b}}, spec: {nodeSelector: {gpu: 'yes'},
    containers: [{name: side, image: s}, {name: ray, env: [{name: A, value: z}, {name: C, value: c}]}],
    volumes: [{name: v, emptyDir: {}}]}})");
  PathOrigins origins;
  MergeTrace trace{"spec.workerGroupSpecs[0].template", "spec.workerGroups[0].template", &origins};
  merge_pod_template(b, p, b.GetAllocator(), MergeOptions{{}, &trace});
  auto source_of = [&](const std::string& child) -> std::string {
    for (const auto& o : origins)
      if (o.child == child) return o.source;
    return "<none>";
  };
  const std::string c = "spec.workerGroupSpecs[0].template.", u = "spec.workerGroups[0].template.";
  EXPECT_EQ(source_of(c + "metadata"), u + "metadata");  // the generated template had no metadata
  EXPECT_EQ(source_of(c + "spec.nodeSelector"), u + "spec.nodeSelector");
  EXPECT_EQ(source_of(c + "spec.containers[1]"), u + "spec.containers[0]");  // the sidecar, appended
  EXPECT_EQ(source_of(c + "spec.containers[0].env[0].value"), u + "spec.containers[1].env[0].value");
  EXPECT_EQ(source_of(c + "spec.containers[0].env[1]"), u + "spec.containers[1].env[1]");
  EXPECT_EQ(source_of(c + "spec.volumes[0]"), u + "spec.volumes[0]");  // retainKeys: the whole item
  EXPECT_EQ(source_of(c + "spec.containers[0].image"), "<none>");      // the operator's
}

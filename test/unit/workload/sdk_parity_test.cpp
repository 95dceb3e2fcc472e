// Parity with the CodeFlare SDK (project-codeflare/codeflare-sdk, HEAD d5acd62): for the SDK's own unit-test
// inputs, the equivalent CodeFlareWorkload must generate the RayCluster the SDK generates, field by field, where the
// SDK's output is correct. Each test names the SDK fixture (tests/test_cluster_yamls/...) and the config function
// (src/codeflare_sdk/common/utils/unit_test_support.py) it mirrors. The expectations are written out here; the
// fixtures are not copied.
//
// Deliberate differences, asserted as our behaviour (see the comments at each):
//  - image: quay.io/rayproject/ray:<rayVersion> by default, not a quay.io/modh digest chosen by the client's Python;
//  - rayVersion: our default (2.52.1), not the SDK's constant of the day;
//  - the head container also declares port metrics 8080;
//  - the OpenDataHub CA-bundle volumes and mounts only with spec.odhTrustedCABundle: true;
//  - no app.kubernetes.io/managed-by: $NB_PREFIX annotation (a notebook-only, client-side value);
//  - the extra label codeflare.dev/workload on every child;
//  - num-cpus in rayStartParams, as the SDK's HEAD has it (the stored fixtures predate it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "parse_test_util.hpp"
#include "validation/validator.hpp"
#include "workload/build_appwrapper.hpp"
#include "workload/build_raycluster.hpp"
#include "workload/kueue_labels.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
std::string s(const json::Value& v) {
  return v.IsString() ? v.GetString() : "<" + std::string(json::type_name(v)) + ">";
}

// Parses a CodeFlareWorkload given as a whole YAML document (namespace "ns", as in the SDK tests).
ParsedWorkload parse_doc(const std::string& yaml) {
  json::Document d = yaml_doc(yaml);
  set_identity(d, "ns");
  return parse_workload(d);
}

// The objects the operator would apply for `p` with no namespace default LocalQueue: [RayCluster] or
// [AppWrapper, inner RayCluster].
std::vector<json::Document> children(const ParsedWorkload& p) {
  EXPECT_TRUE(p.ok()) << dump(p.errors);
  const Workload& w = p.workload;
  auto labels = kueue_labels(select_local_queue(w.spec.queue, std::nullopt), w.spec.queue);
  std::vector<json::Document> out;
  if (w.spec.app_wrapper) {
    RayCluster inner = build_ray_cluster(w, RayClusterPlacement{false, {}});
    out.push_back(build_app_wrapper(w, inner, labels).to_json());
    out.push_back(inner.to_json());
  } else {
    out.push_back(build_ray_cluster(w, RayClusterPlacement{true, labels}).to_json());
  }
  return out;
}

std::vector<std::string> member_names(const json::Value& obj) {
  std::vector<std::string> out;
  for (const auto& m : obj.GetObject()) out.push_back(m.name.GetString());
  return out;
}

std::vector<std::string> field_of_each(const json::Value& list, const char* field) {
  std::vector<std::string> out;
  for (const auto& e : list.GetArray()) out.push_back(s(at(e, {field})));
  return out;
}

using Strings = std::vector<std::string>;

const Strings kOdhMountPaths = {"/etc/pki/tls/certs/odh-trusted-ca-bundle.crt",
                                "/etc/ssl/certs/odh-trusted-ca-bundle.crt", "/etc/pki/tls/certs/odh-ca-bundle.crt",
                                "/etc/ssl/certs/odh-ca-bundle.crt"};

// The SDK's autoscalerOptions, present although autoscaling is off (every fixture).
void expect_sdk_autoscaler_options(const json::Value& spec) {
  EXPECT_FALSE(at(spec, {"enableInTreeAutoscaling"}).GetBool());
  const auto& o = at(spec, {"autoscalerOptions"});
  EXPECT_EQ(at(o, {"idleTimeoutSeconds"}).GetInt(), 60);
  EXPECT_EQ(s(at(o, {"upscalingMode"})), "Default");
  for (const char* side : {"requests", "limits"}) {
    EXPECT_EQ(s(at(o, {"resources", side, "cpu"})), "500m") << side;
    EXPECT_EQ(s(at(o, {"resources", side, "memory"})), "512Mi") << side;
  }
}

// cpu / memory requests and limits of a container, as quantity text.
void expect_cpu_memory(const json::Value& c, const char* cpu_req, const char* cpu_lim, const char* mem_req,
                       const char* mem_lim) {
  EXPECT_EQ(s(at(c, {"resources", "requests", "cpu"})), cpu_req);
  EXPECT_EQ(s(at(c, {"resources", "limits", "cpu"})), cpu_lim);
  EXPECT_EQ(s(at(c, {"resources", "requests", "memory"})), mem_req);
  EXPECT_EQ(s(at(c, {"resources", "limits", "memory"})), mem_lim);
}

// What every Ray container of every fixture has: pull policy, preStop hook, env ending with usage stats off.
void expect_sdk_container_basics(const json::Value& c, const std::string& name, const Strings& env_names) {
  EXPECT_EQ(s(at(c, {"name"})), name);
  EXPECT_EQ(s(at(c, {"imagePullPolicy"})), "Always");
  const auto& cmd = at(c, {"lifecycle", "preStop", "exec", "command"});
  EXPECT_EQ(field_of_each(at(c, {"env"}), "name"), env_names);
  ASSERT_EQ(cmd.Size(), 3u);
  EXPECT_EQ(s(cmd[0]), "/bin/sh");
  EXPECT_EQ(s(cmd[1]), "-c");
  EXPECT_EQ(s(cmd[2]), "ray stop");
  const auto& env = at(c, {"env"});
  EXPECT_EQ(s(at(env, {static_cast<int>(env.Size()) - 1, "value"})), "0");
}

// The head ports: the SDK's gcs, dashboard, client, then our metrics port. KubeRay serves metrics on 8080 and the
// codeflare-operator's head NetworkPolicy opens it; declaring it lets monitoring find it by name (difference).
void expect_head_ports(const json::Value& c) {
  const auto& ports = at(c, {"ports"});
  EXPECT_EQ(field_of_each(ports, "name"), (Strings{"gcs", "dashboard", "client", "metrics"}));
  std::vector<int> numbers;
  for (const auto& p : ports.GetArray()) numbers.push_back(at(p, {"containerPort"}).GetInt());
  EXPECT_EQ(numbers, (std::vector<int>{6379, 8265, 10001, 8080}));
}

// The two ODH volumes at `first` and `first + 1` of a pod's volume list, as the SDK writes them.
void expect_odh_volumes(const json::Value& volumes, int first) {
  const auto& trusted = at(volumes, {first});
  EXPECT_EQ(s(at(trusted, {"name"})), "odh-trusted-ca-cert");
  EXPECT_EQ(s(at(trusted, {"configMap", "name"})), "odh-trusted-ca-bundle");
  EXPECT_EQ(s(at(trusted, {"configMap", "items", 0, "key"})), "ca-bundle.crt");
  EXPECT_EQ(s(at(trusted, {"configMap", "items", 0, "path"})), "odh-trusted-ca-bundle.crt");
  EXPECT_TRUE(at(trusted, {"configMap", "optional"}).GetBool());
  const auto& odh = at(volumes, {first + 1});
  EXPECT_EQ(s(at(odh, {"name"})), "odh-ca-cert");
  EXPECT_EQ(s(at(odh, {"configMap", "name"})), "odh-trusted-ca-bundle");
  EXPECT_EQ(s(at(odh, {"configMap", "items", 0, "key"})), "odh-ca-bundle.crt");
  EXPECT_EQ(s(at(odh, {"configMap", "items", 0, "path"})), "odh-ca-bundle.crt");
  EXPECT_TRUE(at(odh, {"configMap", "optional"}).GetBool());
}

// The four ODH mounts after `user_paths` in a container, names and subPaths as the SDK writes them.
void expect_mounts(const json::Value& c, const Strings& user_paths) {
  const auto& mounts = at(c, {"volumeMounts"});
  Strings paths = user_paths;
  paths.insert(paths.end(), kOdhMountPaths.begin(), kOdhMountPaths.end());
  EXPECT_EQ(field_of_each(mounts, "mountPath"), paths);
  const int n = static_cast<int>(user_paths.size());
  const Strings names = {"odh-trusted-ca-cert", "odh-trusted-ca-cert", "odh-ca-cert", "odh-ca-cert"};
  const Strings sub = {"odh-trusted-ca-bundle.crt", "odh-trusted-ca-bundle.crt", "odh-ca-bundle.crt",
                       "odh-ca-bundle.crt"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(s(at(mounts, {n + i, "name"})), names[i]) << i;
    EXPECT_EQ(s(at(mounts, {n + i, "subPath"})), sub[i]) << i;
  }
}

void expect_upstream_valid(const json::Value& obj) {
  const validation::SchemaSet* schemas = upstream_schemas();
  if (!schemas) return;  // UPSTREAM_CRDS unset: the schema part is covered where CFO_REQUIRE_SCHEMAS skips loudly
  auto errs = validation::validate_object(*schemas, obj);
  EXPECT_FALSE(has_errors(errs)) << dump(errs);
}

// ClusterConfiguration(name="default-cluster", namespace="ns"); odhTrustedCABundle stands for the SDK's
// unconditional CA-bundle volumes.
const char* kDefaultCluster = R"(
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: default-cluster
spec:
  odhTrustedCABundle: true
)";

// unit_test_support.create_cluster_all_config_params(cluster_name="test-all-params", is_appwrapper=False).
// Memory 12 and 16 are the SDK's gigabytes ("12G"); our API takes Kubernetes quantities, so they are written so.
// The third volume mount differs: the SDK mounts volumes test2 and test3 both at /home/ray/test2, which a RayCluster
// refuses (volumeMounts is a list-map keyed by mountPath); test3 goes to /home/ray/test3 here. The configMap item
// path is relative (data.txt), since core/v1 refuses absolute item paths such as /home/ray/test2/data.txt.
const char* kAllParams = R"(
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: test-all-params
spec:
  image: example/ray:tag
  imagePullSecrets: [{name: secret1}, {name: secret2}]
  head:
    resources:
      requests: {cpu: 4, memory: 12G}
      limits: {cpu: 8, memory: 16G, nvidia.com/gpu: 1, intel.com/gpu: 2}
    tolerations: [{key: key1, operator: Equal, value: value1, effect: NoSchedule}]
  workerGroups:
    - name: small-group-test-all-params
      replicas: 10
      resources:
        requests: {cpu: 4, memory: 12G}
        limits: {cpu: 8, memory: 16G, nvidia.com/gpu: 1}
      tolerations: [{key: key2, operator: Equal, value: value2, effect: NoSchedule}]
  env:
    - {name: key1, value: value1}
    - {name: key2, value: value2}
  labels: {key1: value1, key2: value2}
  annotations: {key1: value1, key2: value2}
  extendedResourceMapping: {example.com/gpu: GPU, intel.com/gpu: TPU}
  overwriteDefaultResourceMapping: true
  queue: {localQueue: local-queue-default}
  volumes:
    - {name: test, emptyDir: {sizeLimit: 500Gi}}
    - {name: test2, configMap: {name: config-map-test, items: [{key: test, path: data.txt}]}}
    - {name: test3, secret: {secretName: test-secret}}
  volumeMounts:
    - {name: test, mountPath: /home/ray/test1}
    - {name: test2, mountPath: /home/ray/test2}
    - {name: test3, mountPath: /home/ray/test3}
  odhTrustedCABundle: true
)";

// unit_test_support.createClusterConfig() renamed "unit-test-cluster-kueue" with local_queue "local-queue-default":
// one group of 2 workers with cpu 3/4 and memory 5G/6G, head defaults.
std::string kueue_workload(bool app_wrapper) {
  return std::string(R"(
apiVersion: codeflare.dev/v1alpha1
kind: CodeFlareWorkload
metadata:
  name: unit-test-cluster-kueue
spec:
  appWrapper: )") +
         (app_wrapper ? "true" : "false") +
         R"(
  queue: {localQueue: local-queue-default}
  odhTrustedCABundle: true
  workerGroups:
    - name: small-group-unit-test-cluster-kueue
      replicas: 2
      resources:
        requests: {cpu: 3, memory: 5G}
        limits: {cpu: 4, memory: 6G}
)";
}
}  // namespace

// tests/test_cluster_yamls/ray/default-ray-cluster.yaml
TEST(SdkParity, DefaultCluster) {
  auto p = parse_doc(kDefaultCluster);
  EXPECT_TRUE(p.errors.empty()) << dump(p.errors);
  auto objs = children(p);
  ASSERT_EQ(objs.size(), 1u);
  const json::Value& rc = objs[0];
  EXPECT_EQ(s(at(rc, {"apiVersion"})), "ray.io/v1");
  EXPECT_EQ(s(at(rc, {"kind"})), "RayCluster");
  EXPECT_EQ(s(at(rc, {"metadata", "name"})), "default-cluster");
  EXPECT_EQ(s(at(rc, {"metadata", "namespace"})), "ns");
  // The SDK's two labels, plus ours (codeflare.dev/workload, so that the RayCluster maps back to its workload).
  EXPECT_EQ(member_names(at(rc, {"metadata", "labels"})),
            (Strings{"codeflare.dev/workload", "controller-tools.k8s.io", "ray.io/cluster"}));
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "controller-tools.k8s.io"})), "1.0");
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "ray.io/cluster"})), "default-cluster");
  EXPECT_FALSE(json::find(at(rc, {"metadata"}), "annotations"));

  const auto& spec = at(rc, {"spec"});
  expect_sdk_autoscaler_options(spec);
  // Ours: the default rayVersion and an image of that version (the SDK: RAY_VERSION and a quay.io/modh digest).
  EXPECT_EQ(s(at(spec, {"rayVersion"})), "2.52.1");

  const auto& head = at(spec, {"headGroupSpec"});
  EXPECT_FALSE(at(head, {"enableIngress"}).GetBool());
  EXPECT_EQ(s(at(head, {"serviceType"})), "ClusterIP");
  const auto& hp = at(head, {"rayStartParams"});
  EXPECT_EQ(member_names(hp), (Strings{"block", "dashboard-host", "num-cpus", "num-gpus", "resources"}));
  EXPECT_EQ(s(at(hp, {"block"})), "true");
  EXPECT_EQ(s(at(hp, {"dashboard-host"})), "0.0.0.0");
  EXPECT_EQ(s(at(hp, {"num-cpus"})), "2");  // head cpu limit 2 (SDK HEAD)
  EXPECT_EQ(s(at(hp, {"num-gpus"})), "0");
  EXPECT_EQ(s(at(hp, {"resources"})), "\"{}\"");
  EXPECT_FALSE(json::find(at(head, {"template"}), "metadata"));  // no annotations, no template metadata
  const auto& hc = at(head, {"template", "spec", "containers", 0});
  EXPECT_EQ(s(at(hc, {"image"})), "quay.io/rayproject/ray:2.52.1");
  expect_sdk_container_basics(hc, "ray-head", {"RAY_USAGE_STATS_ENABLED"});
  expect_head_ports(hc);
  expect_cpu_memory(hc, "1", "2", "5G", "8G");
  expect_mounts(hc, {});
  expect_odh_volumes(at(head, {"template", "spec", "volumes"}), 0);
  EXPECT_EQ(at(head, {"template", "spec", "volumes"}).Size(), 2u);
  EXPECT_FALSE(json::find(at(head, {"template", "spec"}), "tolerations"));
  EXPECT_FALSE(json::find(at(head, {"template", "spec"}), "imagePullSecrets"));

  const auto& groups = at(spec, {"workerGroupSpecs"});
  ASSERT_EQ(groups.Size(), 1u);
  const auto& g = groups[0];
  EXPECT_EQ(s(at(g, {"groupName"})), "small-group-default-cluster");
  for (const char* f : {"replicas", "minReplicas", "maxReplicas"}) EXPECT_EQ(at(g, {f}).GetInt(), 1) << f;
  const auto& wp = at(g, {"rayStartParams"});
  EXPECT_EQ(member_names(wp), (Strings{"block", "num-cpus", "num-gpus", "resources"}));
  EXPECT_EQ(s(at(wp, {"num-cpus"})), "1");
  EXPECT_EQ(s(at(wp, {"num-gpus"})), "0");
  EXPECT_EQ(s(at(wp, {"resources"})), "\"{}\"");
  const auto& wc = at(g, {"template", "spec", "containers", 0});
  expect_sdk_container_basics(wc, "machine-learning", {"RAY_USAGE_STATS_ENABLED"});
  EXPECT_FALSE(json::find(wc, "ports"));
  expect_cpu_memory(wc, "1", "1", "3G", "6G");
  expect_mounts(wc, {});
  expect_odh_volumes(at(g, {"template", "spec", "volumes"}), 0);
  expect_upstream_valid(rc);
}

// The SDK always adds the CA-bundle volumes; we add them only on request, since the ConfigMap exists only on
// OpenDataHub / OpenShift AI (difference).
TEST(SdkParity, DefaultClusterWithoutOdhBundleHasNoVolumes) {
  auto p = parse_doc("metadata: {name: default-cluster}\nspec: {}\n");
  auto objs = children(p);
  ASSERT_EQ(objs.size(), 1u);
  for (const auto* pod : {&at(objs[0], {"spec", "headGroupSpec", "template", "spec"}),
                          &at(objs[0], {"spec", "workerGroupSpecs", 0, "template", "spec"})}) {
    EXPECT_FALSE(json::find(*pod, "volumes"));
    EXPECT_FALSE(json::find(at(*pod, {"containers", 0}), "volumeMounts"));
  }
}

// tests/test_cluster_yamls/ray/unit-test-all-params.yaml
TEST(SdkParity, AllParameters) {
  auto p = parse_doc(kAllParams);
  ASSERT_TRUE(p.ok()) << dump(p.errors);
  // Overwriting intel.com/gpu's default mapping is allowed by the flag and warned about, as the SDK warns.
  const FieldError* w =
      finding(p.errors, "spec.extendedResourceMapping[intel.com/gpu]", "OverwriteDefaultResourceMapping");
  ASSERT_NE(w, nullptr) << dump(p.errors);
  EXPECT_EQ(w->severity, Severity::Warning);
  auto objs = children(p);
  ASSERT_EQ(objs.size(), 1u);
  const json::Value& rc = objs[0];

  // Labels: the SDK's base labels, the user's, and the queue label on the RayCluster (not wrapped).
  const auto& labels = at(rc, {"metadata", "labels"});
  EXPECT_EQ(member_names(labels), (Strings{"codeflare.dev/workload", "controller-tools.k8s.io", "key1", "key2",
                                           "kueue.x-k8s.io/queue-name", "ray.io/cluster"}));
  EXPECT_EQ(s(at(labels, {"key1"})), "value1");
  EXPECT_EQ(s(at(labels, {"key2"})), "value2");
  EXPECT_EQ(s(at(labels, {"kueue.x-k8s.io/queue-name"})), "local-queue-default");
  EXPECT_EQ(s(at(labels, {"ray.io/cluster"})), "test-all-params");
  // Annotations: the user's on the cluster and on both pod templates. The SDK adds app.kubernetes.io/managed-by
  // from the notebook's NB_PREFIX environment variable; an operator has no notebook (difference).
  const Strings annotations = {"key1", "key2"};
  EXPECT_EQ(member_names(at(rc, {"metadata", "annotations"})), annotations);

  const auto& spec = at(rc, {"spec"});
  expect_sdk_autoscaler_options(spec);
  const auto& head = at(spec, {"headGroupSpec"});
  EXPECT_EQ(member_names(at(head, {"template", "metadata", "annotations"})), annotations);
  const auto& hp = at(head, {"rayStartParams"});
  EXPECT_EQ(s(at(hp, {"num-cpus"})), "8");
  EXPECT_EQ(s(at(hp, {"num-gpus"})), "1");                   // nvidia.com/gpu only: intel.com/gpu is TPU now
  EXPECT_EQ(s(at(hp, {"resources"})), R"("{\"TPU\": 2}")");  // the SDK's '"{\"TPU\": 2}"'
  const auto& hpod = at(head, {"template", "spec"});
  const auto& hc = at(hpod, {"containers", 0});
  EXPECT_EQ(s(at(hc, {"image"})), "example/ray:tag");
  expect_sdk_container_basics(hc, "ray-head", {"key1", "key2", "RAY_USAGE_STATS_ENABLED"});
  EXPECT_EQ(s(at(hc, {"env", 0, "value"})), "value1");
  EXPECT_EQ(s(at(hc, {"env", 1, "value"})), "value2");
  expect_head_ports(hc);
  expect_cpu_memory(hc, "4", "8", "12G", "16G");
  for (const char* side : {"requests", "limits"}) {
    EXPECT_EQ(s(at(hc, {"resources", side, "nvidia.com/gpu"})), "1") << side;
    EXPECT_EQ(s(at(hc, {"resources", side, "intel.com/gpu"})), "2") << side;
  }
  expect_mounts(hc, {"/home/ray/test1", "/home/ray/test2", "/home/ray/test3"});
  EXPECT_EQ(field_of_each(at(hpod, {"volumes"}), "name"),
            (Strings{"test", "test2", "test3", "odh-trusted-ca-cert", "odh-ca-cert"}));
  EXPECT_EQ(s(at(hpod, {"volumes", 0, "emptyDir", "sizeLimit"})), "500Gi");
  EXPECT_EQ(s(at(hpod, {"volumes", 1, "configMap", "name"})), "config-map-test");
  EXPECT_EQ(s(at(hpod, {"volumes", 2, "secret", "secretName"})), "test-secret");
  expect_odh_volumes(at(hpod, {"volumes"}), 3);
  EXPECT_EQ(field_of_each(at(hpod, {"imagePullSecrets"}), "name"), (Strings{"secret1", "secret2"}));
  ASSERT_EQ(at(hpod, {"tolerations"}).Size(), 1u);
  EXPECT_EQ(s(at(hpod, {"tolerations", 0, "key"})), "key1");
  EXPECT_EQ(s(at(hpod, {"tolerations", 0, "operator"})), "Equal");
  EXPECT_EQ(s(at(hpod, {"tolerations", 0, "value"})), "value1");
  EXPECT_EQ(s(at(hpod, {"tolerations", 0, "effect"})), "NoSchedule");

  const auto& g = at(spec, {"workerGroupSpecs", 0});
  EXPECT_EQ(s(at(g, {"groupName"})), "small-group-test-all-params");
  for (const char* f : {"replicas", "minReplicas", "maxReplicas"}) EXPECT_EQ(at(g, {f}).GetInt(), 10) << f;
  EXPECT_EQ(member_names(at(g, {"template", "metadata", "annotations"})), annotations);
  const auto& wp = at(g, {"rayStartParams"});
  EXPECT_EQ(s(at(wp, {"num-cpus"})), "8");
  EXPECT_EQ(s(at(wp, {"num-gpus"})), "1");
  EXPECT_EQ(s(at(wp, {"resources"})), "\"{}\"");
  const auto& wpod = at(g, {"template", "spec"});
  const auto& wc = at(wpod, {"containers", 0});
  expect_sdk_container_basics(wc, "machine-learning", {"key1", "key2", "RAY_USAGE_STATS_ENABLED"});
  EXPECT_FALSE(json::find(wc, "ports"));
  expect_cpu_memory(wc, "4", "8", "12G", "16G");
  for (const char* side : {"requests", "limits"}) {
    EXPECT_EQ(s(at(wc, {"resources", side, "nvidia.com/gpu"})), "1") << side;
    EXPECT_FALSE(json::find(at(wc, {"resources", side}), "intel.com/gpu")) << side;
  }
  expect_mounts(wc, {"/home/ray/test1", "/home/ray/test2", "/home/ray/test3"});
  expect_odh_volumes(at(wpod, {"volumes"}), 3);
  EXPECT_EQ(field_of_each(at(wpod, {"imagePullSecrets"}), "name"), (Strings{"secret1", "secret2"}));
  EXPECT_EQ(s(at(wpod, {"tolerations", 0, "key"})), "key2");
  EXPECT_EQ(s(at(wpod, {"tolerations", 0, "value"})), "value2");
  expect_upstream_valid(rc);
}

// tests/test_cluster_yamls/kueue/ray_cluster_kueue.yaml at HEAD: a RayCluster carrying the queue label.
TEST(SdkParity, KueueRayCluster) {
  auto p = parse_doc(kueue_workload(false));
  EXPECT_TRUE(p.errors.empty()) << dump(p.errors);
  auto objs = children(p);
  ASSERT_EQ(objs.size(), 1u);
  const json::Value& rc = objs[0];
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "kueue.x-k8s.io/queue-name"})), "local-queue-default");
  EXPECT_EQ(s(at(rc, {"metadata", "labels", "ray.io/cluster"})), "unit-test-cluster-kueue");
  const auto& spec = at(rc, {"spec"});
  expect_sdk_autoscaler_options(spec);
  // Head: the SDK HEAD defaults (1/2 cpu, 5G/8G). The AppWrapper-era fixture shows 2/2 and 8G/8G, the defaults of
  // that time.
  const auto& hc = at(spec, {"headGroupSpec", "template", "spec", "containers", 0});
  expect_cpu_memory(hc, "1", "2", "5G", "8G");
  EXPECT_EQ(s(at(spec, {"headGroupSpec", "rayStartParams", "num-gpus"})), "0");
  EXPECT_EQ(s(at(spec, {"headGroupSpec", "rayStartParams", "resources"})), "\"{}\"");
  const auto& g = at(spec, {"workerGroupSpecs", 0});
  EXPECT_EQ(s(at(g, {"groupName"})), "small-group-unit-test-cluster-kueue");
  for (const char* f : {"replicas", "minReplicas", "maxReplicas"}) EXPECT_EQ(at(g, {f}).GetInt(), 2) << f;
  EXPECT_EQ(s(at(g, {"rayStartParams", "num-cpus"})), "4");
  EXPECT_EQ(s(at(g, {"rayStartParams", "num-gpus"})), "0");
  EXPECT_EQ(s(at(g, {"rayStartParams", "resources"})), "\"{}\"");
  const auto& wc = at(g, {"template", "spec", "containers", 0});
  expect_sdk_container_basics(wc, "machine-learning", {"RAY_USAGE_STATS_ENABLED"});
  expect_cpu_memory(wc, "3", "4", "5G", "6G");
  expect_mounts(wc, {});
  expect_odh_volumes(at(g, {"template", "spec", "volumes"}), 0);
  expect_upstream_valid(rc);
}

// tests/test_cluster_yamls/kueue/ray_cluster_kueue.yaml of the AppWrapper era (9870725): the queue label on the
// AppWrapper only, the inner RayCluster with the base labels and no queue label.
TEST(SdkParity, KueueAppWrapper) {
  auto p = parse_doc(kueue_workload(true));
  EXPECT_TRUE(p.errors.empty()) << dump(p.errors);
  auto objs = children(p);
  ASSERT_EQ(objs.size(), 2u);
  const json::Value& aw = objs[0];
  EXPECT_EQ(s(at(aw, {"kind"})), "AppWrapper");
  EXPECT_EQ(s(at(aw, {"metadata", "name"})), "unit-test-cluster-kueue");
  EXPECT_EQ(s(at(aw, {"metadata", "labels", "kueue.x-k8s.io/queue-name"})), "local-queue-default");
  const auto& inner = at(aw, {"spec", "components", 0, "template"});
  EXPECT_EQ(member_names(at(inner, {"metadata", "labels"})),
            (Strings{"codeflare.dev/workload", "controller-tools.k8s.io", "ray.io/cluster"}));
  EXPECT_EQ(s(at(inner, {"spec", "workerGroupSpecs", 0, "groupName"})), "small-group-unit-test-cluster-kueue");
  expect_cpu_memory(at(inner, {"spec", "workerGroupSpecs", 0, "template", "spec", "containers", 0}), "3", "4", "5G",
                    "6G");
  expect_upstream_valid(aw);
}

#include "test_support.hpp"

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/yaml.hpp"

namespace cfo::test {

const validation::SchemaSet* upstream_schemas() { return test_support::upstream_schemas().get(); }

json::Document yaml1(std::string_view text) { return test_support::yaml_doc(text); }

json::Document example_crd(std::string_view kind, std::string_view properties_yaml, std::string_view root_yaml,
                           std::string_view version_yaml, bool cluster) {
  std::string plural(kind);
  for (char& c : plural) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  plural += "s";
  json::Document crd = yaml1(
      "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n"
      "metadata: {name: " +
      plural +
      ".example.com}\n"
      "spec:\n  group: example.com\n  names: {kind: " +
      std::string(kind) + ", plural: " + plural + "}\n  scope: " + (cluster ? "Cluster" : "Namespaced") +
      "\n"
      "  versions:\n  - {name: v1, served: true, storage: true, schema: {openAPIV3Schema:\n"
      "      {type: object, properties: {apiVersion: {type: string}, kind: {type: string},\n"
      "       metadata: {type: object}}}}}\n");
  auto& a = crd.GetAllocator();
  json::Value& version = crd["spec"]["versions"][0];
  json::Value& root = version["schema"]["openAPIV3Schema"];
  auto merge = [&a](json::Value& into, std::string_view yaml) {
    json::Document extra = yaml1(yaml);
    EXPECT_TRUE(extra.IsObject()) << "expected a YAML map: " << yaml;
    if (!extra.IsObject()) return;
    for (auto& m : extra.GetObject()) json::set(into, m.name.GetString(), json::Value(m.value, a), a);
  };
  merge(root["properties"], properties_yaml);
  merge(root, root_yaml);
  merge(version, version_yaml);
  return crd;
}

std::vector<json::Document> yaml_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  auto docs = yaml::to_json(text.str());
  if (!docs) {
    ADD_FAILURE() << path << ": " << docs.error().message;
    return {};
  }
  return std::move(*docs);
}

namespace {

struct Step {
  bool index = false;
  std::size_t i = 0;
  std::string key;
};

std::vector<Step> split_path(const std::string& path) {
  std::vector<Step> steps;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '.') {
      ++i;
    } else if (path[i] == '[') {
      auto end = path.find(']', i);
      std::string inside = path.substr(i + 1, end - i - 1);
      bool numeric = !inside.empty() && inside.find_first_not_of("0123456789") == std::string::npos;
      steps.push_back(numeric ? Step{true, std::stoul(inside), {}} : Step{false, 0, inside});
      i = end + 1;
    } else {
      auto end = path.find_first_of(".[", i);
      steps.push_back(Step{false, 0, path.substr(i, end == std::string::npos ? std::string::npos : end - i)});
      i = end == std::string::npos ? path.size() : end;
    }
  }
  return steps;
}

}  // namespace

json::Document patched(const json::Value& base, const std::vector<std::pair<std::string, std::string>>& edits) {
  json::Document doc = json::clone(base);
  auto& a = doc.GetAllocator();
  for (const auto& [path, value] : edits) {
    auto steps = split_path(path);
    json::Value* cur = &doc;
    for (std::size_t s = 0; s + 1 < steps.size(); ++s) {
      const Step& st = steps[s];
      if (st.index) {
        if (!cur->IsArray() || st.i >= cur->Size()) {
          ADD_FAILURE() << "patch path " << path << ": no index " << st.i;
          return doc;
        }
        cur = &(*cur)[static_cast<rapidjson::SizeType>(st.i)];
      } else {
        if (!cur->IsObject()) cur->SetObject();
        json::Value* next = json::find(*cur, st.key);
        if (!next) {
          json::set(*cur, st.key, json::Value(rapidjson::kObjectType), a);
          next = json::find(*cur, st.key);
        }
        cur = next;
      }
    }
    const Step& last = steps.back();
    if (value == "~delete") {
      if (last.index && cur->IsArray() && last.i < cur->Size())
        cur->Erase(cur->Begin() + last.i);
      else if (!last.index && cur->IsObject())
        cur->RemoveMember(last.key.c_str());
      continue;
    }
    json::Document v = yaml1("v: " + value);
    json::Value copy(v["v"], a);
    if (last.index) {
      if (cur->IsArray() && last.i < cur->Size())
        (*cur)[static_cast<rapidjson::SizeType>(last.i)] = std::move(copy);
      else if (cur->IsArray())
        cur->PushBack(std::move(copy), a);
    } else {
      if (!cur->IsObject()) cur->SetObject();
      json::set(*cur, last.key, std::move(copy), a);
    }
  }
  return doc;
}

std::vector<FieldError> matching(const FieldErrors& errs, std::string_view path, std::string_view rule,
                                 std::optional<Severity> severity) {
  std::vector<FieldError> out;
  for (const auto& e : errs)
    if (e.path == path && e.rule == rule && (!severity || e.severity == *severity)) out.push_back(e);
  return out;
}

bool has(const FieldErrors& errs, std::string_view path, std::string_view rule, Severity severity) {
  return !matching(errs, path, rule, severity).empty();
}

std::size_t error_count(const FieldErrors& errs) {
  std::size_t n = 0;
  for (const auto& e : errs) n += e.severity == Severity::Error;
  return n;
}

std::string describe(const FieldErrors& errs) {
  std::string s;
  for (const auto& e : errs)
    s += std::string(e.severity == Severity::Error ? "  E " : "  W ") + e.path + " [" + e.rule + "] (" + e.source +
         ") " + e.reason + "\n";
  return s.empty() ? "  (no findings)\n" : s;
}

const char* raycluster_yaml() {
  return R"(
apiVersion: ray.io/v1
kind: RayCluster
metadata:
  name: demo
  namespace: team-a
spec:
  rayVersion: "2.46.0"
  headGroupSpec:
    rayStartParams: {}
    template:
      spec:
        containers:
          - name: ray-head
            image: rayproject/ray:2.46.0
            ports:
              - {containerPort: 6379, name: gcs}
            resources:
              requests: {cpu: "1", memory: 4Gi}
              limits: {cpu: "1", memory: 4Gi}
  workerGroupSpecs:
    - groupName: workers
      replicas: 1
      minReplicas: 1
      maxReplicas: 2
      rayStartParams: {}
      template:
        spec:
          containers:
            - name: ray-worker
              image: rayproject/ray:2.46.0
              resources:
                requests: {cpu: "2", memory: 8Gi}
                limits: {cpu: "2", memory: 8Gi}
)";
}

const char* rayjob_yaml() {
  return R"(
apiVersion: ray.io/v1
kind: RayJob
metadata:
  name: train
  namespace: team-a
spec:
  entrypoint: python train.py
  shutdownAfterJobFinishes: true
  rayClusterSpec:
    rayVersion: "2.46.0"
    headGroupSpec:
      template:
        spec:
          containers:
            - name: ray-head
              image: rayproject/ray:2.46.0
    workerGroupSpecs:
      - groupName: workers
        replicas: 1
        minReplicas: 1
        maxReplicas: 1
        template:
          spec:
            containers:
              - name: ray-worker
                image: rayproject/ray:2.46.0
)";
}

const char* appwrapper_yaml() {
  return R"(
apiVersion: workload.codeflare.dev/v1beta2
kind: AppWrapper
metadata:
  name: demo-aw
  namespace: team-a
  labels:
    kueue.x-k8s.io/queue-name: team-a-queue
spec:
  components:
    - template:
        apiVersion: ray.io/v1
        kind: RayCluster
        metadata:
          name: demo
        spec:
          rayVersion: "2.46.0"
          headGroupSpec:
            template:
              spec:
                containers:
                  - name: ray-head
                    image: rayproject/ray:2.46.0
          workerGroupSpecs:
            - groupName: workers
              replicas: 2
              minReplicas: 2
              maxReplicas: 2
              template:
                spec:
                  containers:
                    - name: ray-worker
                      image: rayproject/ray:2.46.0
)";
}

const char* clusterqueue_yaml() {
  return R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata:
  name: team-a-cq
spec:
  namespaceSelector: {}
  resourceGroups:
    - coveredResources: ["cpu", "memory"]
      flavors:
        - name: default-flavor
          resources:
            - name: cpu
              nominalQuota: 16
            - name: memory
              nominalQuota: 64Gi
)";
}

const char* resourceflavor_yaml() {
  return R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata:
  name: default-flavor
spec:
  nodeLabels:
    cloud.example.com/pool: gpu
)";
}

const char* localqueue_yaml() {
  return R"(
apiVersion: kueue.x-k8s.io/v1beta2
kind: LocalQueue
metadata:
  name: team-a-queue
  namespace: team-a
spec:
  clusterQueue: team-a-cq
)";
}

}  // namespace cfo::test

#include "workload/quota_preview.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <iterator>
#include <ranges>

#include "workload/labels.hpp"
#include "workload/pod_types.hpp"
#include "workload/sdk_defaults.hpp"

namespace cfo::workload {

namespace {
using Nanos = __int128;

// Resource name -> nano-units, in first-seen order.
struct Amounts {
  std::vector<std::pair<std::string, Nanos>> items;

  Nanos* find(const std::string& name) {
    for (auto& [n, v] : items)
      if (n == name) return &v;
    return nullptr;
  }
  void add(const std::string& name, Nanos v) {
    if (Nanos* have = find(name))
      *have += v;
    else
      items.emplace_back(name, v);
  }
  void add(const Amounts& o) {
    for (const auto& [n, v] : o.items) add(n, v);
  }
  void max_with(const Amounts& o) {
    for (const auto& [n, v] : o.items) {
      if (Nanos* have = find(n))
        *have = std::max(*have, v);
      else
        items.emplace_back(n, v);
    }
  }
  void set(const std::string& name, Nanos v) {
    if (Nanos* have = find(name))
      *have = v;
    else
      items.emplace_back(name, v);
  }
};

// Whether amounts of resource `name` are told with binary suffixes (Ki ... Ei): byte amounts are, counts (cpu, pods,
// GPUs and other extended resources) are not, as a Node's capacity writes them (resource.BinarySI for memory,
// ephemeral-storage, storage and hugepages-<size>; DecimalSI for the rest). A sum of 1024 CPUs reads "1024", not
// "1Ki" (the fortieth user trial).
bool binary_amount(std::string_view name) {
  return name == "memory" || name == "ephemeral-storage" || name == "storage" || name.starts_with("hugepages-");
}

// A resource list ({name: quantity}) as nano-units; entries that do not parse are skipped.
Amounts amounts_of(const json::Value* list) {
  Amounts out;
  if (!list || !list->IsObject()) return out;
  for (const auto& m : list->GetObject()) {
    std::string text = m.value.IsString()   ? std::string(m.value.GetString(), m.value.GetStringLength())
                       : m.value.IsNumber() ? json::dump(m.value)
                                            : "";
    auto q = Quantity::parse(text);
    if (q) out.add(std::string(m.name.GetString(), m.name.GetStringLength()), q->nanos());
  }
  return out;
}

// Kueue UseLimitsAsMissingRequestsInPod: requests, with each limit standing in for a missing request.
Amounts effective_requests(const json::Value& resources_owner) {
  const json::Value* res = json::find(resources_owner, "resources");
  Amounts out = amounts_of(res ? json::find(*res, "requests") : nullptr);
  for (const auto& [n, v] : amounts_of(res ? json::find(*res, "limits") : nullptr).items)
    if (!out.find(n)) out.items.emplace_back(n, v);
  return out;
}

// k8s.io/component-helpers resource.PodRequests (no overhead: Pod templates do not carry it).
Amounts pod_requests(const json::Value& pod_spec) {
  Amounts reqs;
  if (const json::Value* cs = json::find(pod_spec, "containers"); cs && cs->IsArray())
    for (const auto& c : cs->GetArray()) reqs.add(effective_requests(c));
  Amounts sidecars, init_max;
  if (const json::Value* ics = json::find(pod_spec, "initContainers"); ics && ics->IsArray())
    for (const auto& c : ics->GetArray()) {
      Amounts r = effective_requests(c);
      if (json::get_string(c, "restartPolicy") == "Always") {
        reqs.add(r);
        sidecars.add(r);
        init_max.max_with(sidecars);
      } else {
        r.add(sidecars);
        init_max.max_with(r);
      }
    }
  reqs.max_with(init_max);
  // Pod-level requests (PodLevelResources) stand for the Pod's cpu and memory when given.
  Amounts pod_level = effective_requests(pod_spec);
  for (const auto& [n, v] : pod_level.items)
    if (n == "cpu" || n == "memory") reqs.set(n, v);
  return reqs;
}

// A container that only carries resources (the autoscaler and submitter sidecars as Kueue adds them).
json::Value resources_container(const char* name, const json::Value* resources, const ContainerDefaults* d,
                                json::Allocator& a) {
  json::Value c(rapidjson::kObjectType);
  c.AddMember("name", json::str(name, a), a);
  if (resources) {
    c.AddMember("resources", json::Value(*resources, a), a);
  } else {
    json::Value req(rapidjson::kObjectType), lim(rapidjson::kObjectType), res(rapidjson::kObjectType);
    req.AddMember("cpu", json::str(d->cpu_request, a), a);
    req.AddMember("memory", json::str(d->memory_request, a), a);
    lim.AddMember("cpu", json::str(d->cpu_limit, a), a);
    lim.AddMember("memory", json::str(d->memory_limit, a), a);
    res.AddMember("requests", std::move(req), a);
    res.AddMember("limits", std::move(lim), a);
    c.AddMember("resources", std::move(res), a);
  }
  return c;
}

int32_t int_or(const json::Value& obj, const char* key, int32_t fallback) {
  auto v = json::get_int(obj, key);
  return v ? static_cast<int32_t>(*v) : fallback;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Builder {
  QuotaPreview out;

  void add(std::string name, int32_t count, const json::Value& pod_spec) {
    PodSetQuota ps{std::move(name), count, {}};
    for (const auto& [n, v] : pod_requests(pod_spec).items)
      if (auto q = Quantity::parse(Quantity::format_nanos(v, binary_amount(n)))) ps.requests.emplace_back(n, *q);
    out.pod_sets.push_back(std::move(ps));
  }

  // Kueue BuildPodSets for a RayClusterSpec (`owner` carries the annotations); `names` "" gives Kueue's names of a
  // RayCluster's PodSets, else "<names>-<i>" (an AppWrapper's).
  void cluster(const json::Value& spec, const json::Value& owner, const std::string& names, bool sidecar_submitter) {
    json::Document d;
    auto& a = d.GetAllocator();
    const json::Value* tpl_spec = json::find_path(spec, "headGroupSpec.template.spec");
    json::Value head(rapidjson::kObjectType);
    if (tpl_spec && tpl_spec->IsObject()) head.CopyFrom(*tpl_spec, a);
    if (!json::find(head, "containers")) head.AddMember("containers", json::Value(rapidjson::kArrayType), a);
    json::Value& containers = head["containers"];
    if (names.empty() && containers.IsArray()) {
      const json::Value* ft = json::find(spec, "gcsFaultToleranceOptions");
      const json::Value* ann = json::find_path(owner, "metadata.annotations");
      const bool ft_on = ft || (ann && json::get_string(*ann, kFtEnabledAnnotation) == "true");
      if (ft_on && !containers.Empty() && containers[0].IsObject()) raise_for_redis_cleanup(containers[0], a);
      if (json::get_bool(spec, "enableInTreeAutoscaling").value_or(false)) {
        const json::Value* res = json::find_path(spec, "autoscalerOptions.resources");
        containers.PushBack(resources_container("autoscaler", res, &sdk_defaults().autoscaler, a), a);
      }
      if (sidecar_submitter)
        containers.PushBack(resources_container(kSubmitterContainerName, nullptr, &sdk_defaults().submitter, a), a);
    }
    int index = 0;
    auto name = [&](const std::string& kueue_name) {
      return names.empty() ? kueue_name : names + "-" + std::to_string(index++);
    };
    add(name("head"), 1, head);
    if (const json::Value* groups = json::find(spec, "workerGroupSpecs"); groups && groups->IsArray())
      for (const auto& g : groups->GetArray()) {
        if (!g.IsObject()) continue;
        int32_t count = int_or(g, "replicas", 1);
        if (int32_t hosts = int_or(g, "numOfHosts", 1); hosts > 1 && names.empty()) count *= hosts;
        static const json::Value empty(rapidjson::kObjectType);
        const json::Value* ps = json::find_path(g, "template.spec");
        add(name(lower(json::get_string(g, "groupName").value_or(""))), count, ps ? *ps : empty);
      }
  }

  // Kueue accountForRedisCleanupInHeadPodSet: the Ray container's requests are at least KubeRay's Redis cleanup Job's
  // (cpu 200m, memory 256Mi).
  static void raise_for_redis_cleanup(json::Value& container, json::Allocator& a) {
    if (!json::find(container, "resources")) container.AddMember("resources", json::Value(rapidjson::kObjectType), a);
    json::Value& res = container["resources"];
    if (!res.IsObject()) return;
    if (!json::find(res, "requests")) res.AddMember("requests", json::Value(rapidjson::kObjectType), a);
    json::Value& req = res["requests"];
    if (!req.IsObject()) return;
    for (auto [name, min] : {std::pair{"cpu", "200m"}, {"memory", "256Mi"}}) {
      bool below = true;
      if (const json::Value* have = json::find(req, name); have && have->IsString())
        if (auto q = Quantity::parse(have->GetString())) below = *q < must_quantity(min);
      if (below) json::set(req, name, json::str(min, a), a);
    }
  }
};
}  // namespace

std::string quantity_text(const Quantity& q) { return Quantity::format_nanos(q.nanos()); }

namespace {

/// A non-negative whole number of any size, in base-1e9 limbs (least significant first): the exact total of
/// quantities whose product with a Pod count leaves 128 bits (999999999Pi of memory times 2^31 - 1 Pods).
struct BigNanos {
  static constexpr uint64_t kBase = 1'000'000'000;
  std::vector<uint32_t> limbs;

  static BigNanos of(unsigned __int128 v) {
    BigNanos b;
    for (; v > 0; v /= kBase) b.limbs.push_back(static_cast<uint32_t>(v % kBase));
    return b;
  }
  void times(uint64_t k) {
    unsigned __int128 carry = 0;
    for (auto& l : limbs) {
      carry += static_cast<unsigned __int128>(l) * k;
      l = static_cast<uint32_t>(carry % kBase);
      carry /= kBase;
    }
    for (; carry > 0; carry /= kBase) limbs.push_back(static_cast<uint32_t>(carry % kBase));
  }
  void plus(const BigNanos& o) {
    uint64_t carry = 0;
    for (std::size_t i = 0; i < o.limbs.size() || carry > 0; ++i) {
      if (i == limbs.size()) limbs.push_back(0);
      carry += uint64_t{limbs[i]} + (i < o.limbs.size() ? o.limbs[i] : 0);
      limbs[i] = static_cast<uint32_t>(carry % kBase);
      carry /= kBase;
    }
  }
  /// As a decimal quantity: the digits with the largest of n, u, m, "", k, M, G, T, P, E their trailing zeros allow.
  std::string text() const {
    std::string digits;
    for (const uint32_t limb : std::ranges::reverse_view(limbs)) {
      std::string part = std::to_string(limb);
      if (!digits.empty()) part.insert(0, 9 - part.size(), '0');
      digits += part;
    }
    if (digits.empty()) return "0";
    static constexpr const char* kSuffixes[] = {"n", "u", "m", "", "k", "M", "G", "T", "P", "E"};
    std::size_t step = 0;  // thousands dropped from the nano-units
    while (step + 1 < std::size(kSuffixes) && digits.size() > 3 && digits.ends_with("000")) {
      digits.resize(digits.size() - 3);
      ++step;
    }
    return digits + kSuffixes[step];
  }
};

}  // namespace

std::vector<std::pair<std::string, std::string>> totals(const std::vector<PodSetQuota>& pod_sets) {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::string> names;  // first-seen order
  for (const auto& ps : pod_sets)
    for (const auto& [n, q] : ps.requests)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  for (const auto& name : names) {
    Nanos sum = 0;
    bool fits = true;
    bool negative = false;
    BigNanos big;
    for (const auto& ps : pod_sets)
      for (const auto& [n, q] : ps.requests) {
        if (n != name) continue;
        Nanos product = 0;
        if (q.nanos() < 0 || ps.count < 0) negative = true;
        if (fits && (__builtin_mul_overflow(q.nanos(), Nanos{ps.count}, &product) ||
                     __builtin_add_overflow(sum, product, &sum)))
          fits = false;
        if (q.nanos() >= 0 && ps.count >= 0) {
          BigNanos term = BigNanos::of(static_cast<unsigned __int128>(q.nanos()));
          term.times(static_cast<uint64_t>(ps.count));
          big.plus(term);
        }
      }
    if (fits)
      out.emplace_back(name, Quantity::format_nanos(sum, binary_amount(name)));
    else if (!negative)  // a negative request is an error reported elsewhere; its total is not told
      out.emplace_back(name, big.text());
  }
  return out;
}

QuotaPreview quota_preview(const json::Value& child) {
  Builder b;
  const std::string kind = json::get_string(child, "kind").value_or("");
  const json::Value* spec = json::find(child, "spec");
  if (!spec || !spec->IsObject()) return {};
  if (kind == "RayCluster") {
    b.cluster(*spec, child, "", false);
  } else if (kind == "RayJob") {
    const json::Value* cluster = json::find(*spec, "rayClusterSpec");
    if (!cluster || !cluster->IsObject()) return {};
    const std::string mode = json::get_string(*spec, "submissionMode").value_or("K8sJobMode");
    b.cluster(*cluster, child, "", mode == "SidecarMode");
    if (mode == "K8sJobMode") {
      json::Document d;
      const json::Value* tpl = json::find_path(*spec, "submitterPodTemplate.spec");
      json::Value pod(rapidjson::kObjectType);
      if (tpl && tpl->IsObject()) {
        pod.CopyFrom(*tpl, d.GetAllocator());
      } else {
        json::Value cs(rapidjson::kArrayType);
        cs.PushBack(resources_container(kSubmitterContainerName, nullptr, &sdk_defaults().submitter, d.GetAllocator()),
                    d.GetAllocator());
        pod.AddMember("containers", std::move(cs), d.GetAllocator());
      }
      b.add("submitter", 1, pod);
    }
  } else if (kind == "AppWrapper") {
    const json::Value* comps = json::find(*spec, "components");
    const std::string name = json::string_at(child, "metadata.name");
    if (comps && comps->IsArray())
      for (const auto& c : comps->GetArray())
        if (const json::Value* inner = json::find_path(c, "template.spec"); inner && inner->IsObject())
          b.cluster(*inner, c, name, false);
  }
  b.out.total = totals(b.out.pod_sets);
  return b.out;
}

json::Value QuotaPreview::pod_sets_json(json::Allocator& a) const {
  json::Value arr(rapidjson::kArrayType);
  for (const auto& ps : pod_sets) {
    json::Value o(rapidjson::kObjectType), req(rapidjson::kObjectType);
    o.AddMember("name", json::str(ps.name, a), a);
    o.AddMember("count", ps.count, a);
    for (const auto& [n, q] : ps.requests)
      req.AddMember(json::str(n, a), json::str(Quantity::format_nanos(q.nanos(), binary_amount(n)), a), a);
    o.AddMember("requests", std::move(req), a);
    arr.PushBack(std::move(o), a);
  }
  return arr;
}

json::Value QuotaPreview::total_json(json::Allocator& a) const {
  json::Value o(rapidjson::kObjectType);
  for (const auto& [n, q] : total) o.AddMember(json::str(n, a), json::str(q, a), a);
  return o;
}

}  // namespace cfo::workload

// The quota preview (status.podSets, status.totalRequests, render --quota): the PodSets Kueue makes of the top-level
// child and the requests it charges per Pod.
#include <gtest/gtest.h>

#include "reconcile_test_util.hpp"
#include "workload/quota_preview.hpp"

using namespace cfo;
using namespace cfo::workload;
using namespace cfo::workload::test;

namespace {
// "name x count {resource=quantity ...}" per PodSet, then "total {...}".
std::string describe(const QuotaPreview& q) {
  auto list = [](const std::vector<std::pair<std::string, Quantity>>& r) {
    std::string s;
    for (const auto& [n, v] : r) s += (s.empty() ? "" : " ") + n + "=" + quantity_text(v);
    return "{" + s + "}";
  };
  std::string out;
  for (const auto& ps : q.pod_sets) out += ps.name + " x" + std::to_string(ps.count) + " " + list(ps.requests) + "; ";
  std::string total;
  for (const auto& [n, v] : q.total) total += (total.empty() ? "" : " ") + n + "=" + v;
  return out + "total {" + total + "}";
}

std::string preview_of(const std::string& spec, const validation::SchemaSet& schemas) {
  Outcome out = reconcile_spec(spec, schemas);
  EXPECT_TRUE(out.valid) << spec << "\n" << dump(out.errors);
  if (out.desired.empty()) return "<nothing>";
  return describe(quota_preview(top(out)));
}
}  // namespace

TEST(QuotaPreview, HeadAndGroupsWithTheirCounts) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome out = reconcile(sample("cfw_cpu.yaml"), Observed{}, ClusterFacts{}, schemas, "2026-01-01T00:00:00Z");
  ASSERT_TRUE(out.valid) << dump(out.errors);
  EXPECT_EQ(describe(quota_preview(top(out))),
            "head x1 {cpu=1 memory=5G}; cpu-workers x2 {cpu=1 memory=3G}; total {cpu=3 memory=11G}");
  // The status carries it.
  const json::Value* sets = json::find(out.status, "podSets");
  ASSERT_TRUE(sets && sets->IsArray() && sets->Size() == 2u) << json::dump(out.status);
  EXPECT_EQ(json::string_at(at(*sets, {1}), "name"), "cpu-workers");
  EXPECT_EQ(json::get_int(at(*sets, {1}), "count"), 2);
  EXPECT_EQ(json::string_at(at(*sets, {1}), "requests.memory"), "3G");
  EXPECT_EQ(json::string_at(out.status, "totalRequests.cpu"), "3");
}

// Counts are told in decimal and byte amounts may take binary suffixes, as a Node's capacity writes them: 1024 CPUs
// (1023 workers and the head) are "1024", not "1Ki" (the fortieth user trial), while 1Gi of memory stays "1Gi".
TEST(QuotaPreview, CountsStayDecimalAndBytesMayBeBinary) {
  auto q = [](const char* text) { return *Quantity::parse(text); };
  auto total = totals({{"head", 1, {{"cpu", q("1")}, {"memory", q("1Mi")}, {"nvidia.com/gpu", q("1")}}},
                       {"w", 1023, {{"cpu", q("1")}, {"memory", q("1Mi")}, {"nvidia.com/gpu", q("1")}}}});
  ASSERT_EQ(total.size(), 3u);
  EXPECT_EQ(total[0].second, "1024");
  EXPECT_EQ(total[1].second, "1Gi");
  EXPECT_EQ(total[2].second, "1024");
  EXPECT_EQ(Quantity::format_nanos(q("2Ki").nanos(), false), "2048");
  EXPECT_EQ(Quantity::format_nanos(q("2Ki").nanos()), "2Ki");
}

// A total beyond what a Quantity holds (999999999Pi of memory for each of 2^31 - 1 Pods is 2.4e33 bytes, 2.4e42
// nano-units) is told exactly, not left out (the thirtieth user trial: totalRequests lost its memory key).
TEST(QuotaPreview, ATotalTooLargeForAQuantityIsToldExactly) {
  auto q = [](const char* text) { return *Quantity::parse(text); };
  std::vector<PodSetQuota> sets{{"head", 1, {{"cpu", q("1")}, {"memory", q("2G")}}},
                                {"w", 2147483647, {{"cpu", q("99999999999")}, {"memory", q("999999999Pi")}}}};
  auto total = totals(sets);
  ASSERT_EQ(total.size(), 2u);
  EXPECT_EQ(total[0], (std::pair<std::string, std::string>{"cpu", "214748364697852516354"}));
  EXPECT_EQ(total[1], (std::pair<std::string, std::string>{"memory", "2417851635685506804466371557430272"}));
  // Round totals beyond the range keep a suffix: 1000E of memory for each of 10^9 Pods.
  auto round = totals({{"w", 1000000000, {{"memory", q("1000E")}}}});
  ASSERT_EQ(round.size(), 1u);
  EXPECT_EQ(round[0].second, "1000000000000E");
  // A negative request (an error of its own) has no total once the sum leaves the range.
  EXPECT_TRUE(totals({{"a", 2147483647, {{"memory", q("999999999Pi")}}}, {"b", 1, {{"memory", q("-1")}}}}).empty());
}

TEST(QuotaPreview, AcceleratorsAndGroupNamesInLowerCase) {
  CFO_REQUIRE_SCHEMAS(schemas);
  EXPECT_EQ(preview_of("{head: {resources: {limits: {cpu: '2', memory: 8Gi}}}, workerGroups: [{name: gpu, replicas: 3, "
                       "resources: {limits: {cpu: '4', memory: 16Gi, nvidia.com/gpu: 2}}}]}",
                       schemas),
            "head x1 {cpu=2 memory=8Gi}; gpu x3 {cpu=4 memory=16Gi nvidia.com/gpu=2}; "
            "total {cpu=14 memory=56Gi nvidia.com/gpu=6}");
}

TEST(QuotaPreview, TheAutoscalerSidecarIsChargedToTheHead) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string groups = "workerGroups: [{name: w, minReplicas: 1, maxReplicas: 4}]";
  EXPECT_EQ(preview_of("{autoscaling: {enabled: true}, " + groups + "}", schemas),
            "head x1 {cpu=1500m memory=5536870912}; w x1 {cpu=1 memory=3G}; total {cpu=2500m memory=8536870912}");
  EXPECT_EQ(preview_of("{autoscaling: {enabled: true, resources: {limits: {cpu: '1', memory: 1G}}}, " + groups + "}",
                       schemas),
            "head x1 {cpu=2 memory=6G}; w x1 {cpu=1 memory=3G}; total {cpu=3 memory=9G}");
}

TEST(QuotaPreview, GcsFaultToleranceRaisesTheHeadToTheRedisCleanupJob) {
  CFO_REQUIRE_SCHEMAS(schemas);
  EXPECT_EQ(preview_of("{gcsFaultTolerance: {redisAddress: 'r:6379'}, head: {resources: {requests: {cpu: 100m, "
                       "memory: 128Mi}}}, workerGroups: [{name: w, replicas: 0}]}",
                       schemas),
            "head x1 {cpu=200m memory=256Mi}; w x0 {cpu=1 memory=3G}; total {cpu=200m memory=256Mi}");
}

TEST(QuotaPreview, TheSubmitterByMode) {
  CFO_REQUIRE_SCHEMAS(schemas);
  const std::string base = "workerGroups: [{name: w, replicas: 0}], job: {entrypoint: x";
  EXPECT_EQ(preview_of("{" + base + "}}", schemas),
            "head x1 {cpu=1 memory=5G}; w x0 {cpu=1 memory=3G}; submitter x1 {cpu=500m memory=200Mi}; "
            "total {cpu=1500m memory=5209715200}");
  EXPECT_EQ(preview_of("{" + base +
                           ", submitter: {template: {spec: {containers: [{name: ray-job-submitter, "
                           "resources: {requests: {cpu: '1'}}}]}}}}}",
                       schemas),
            "head x1 {cpu=1 memory=5G}; w x0 {cpu=1 memory=3G}; submitter x1 {cpu=1 memory=200Mi}; "
            "total {cpu=2 memory=5209715200}");
  EXPECT_EQ(preview_of("{" + base + ", submissionMode: SidecarMode}}", schemas),
            "head x1 {cpu=1500m memory=5209715200}; w x0 {cpu=1 memory=3G}; total {cpu=1500m memory=5209715200}");
  EXPECT_EQ(preview_of("{" + base + ", submissionMode: HTTPMode}}", schemas),
            "head x1 {cpu=1 memory=5G}; w x0 {cpu=1 memory=3G}; total {cpu=1 memory=5G}");
  EXPECT_EQ(preview_of("{job: {entrypoint: x, clusterSelector: {ray.io/cluster: c}}}", schemas), "total {}");
}

TEST(QuotaPreview, SidecarsInitContainersAndLimitsStandingForRequests) {
  CFO_REQUIRE_SCHEMAS(schemas);
  // A limits-only sidecar is charged its limits; a native sidecar (init, restartPolicy Always) adds up; a plain init
  // container counts where it is bigger than what runs beside it.
  EXPECT_EQ(preview_of(R"({workerGroups: [{name: w, replicas: 2, template: {spec: {
      containers: [{name: shipper, image: b, resources: {limits: {cpu: 250m, memory: 64Mi}}}],
      initContainers: [{name: proxy, image: p, restartPolicy: Always, resources: {requests: {cpu: 100m}}},
                       {name: warmup, image: w, resources: {requests: {cpu: '8', memory: 1Gi}}}]}}}]})",
                       schemas),
            "head x1 {cpu=1 memory=5G}; w x2 {cpu=8100m memory=3067108864}; total {cpu=17200m memory=11134217728}");
}

TEST(QuotaPreview, AnAppWrappersPodSetsAreNumbered) {
  CFO_REQUIRE_SCHEMAS(schemas);
  EXPECT_EQ(preview_of("{appWrapper: true, workerGroups: [{name: w, replicas: 2}]}", schemas),
            "demo-0 x1 {cpu=1 memory=5G}; demo-1 x2 {cpu=1 memory=3G}; total {cpu=3 memory=11G}");
}

TEST(QuotaPreview, AnInvalidSpecKeepsThePreviewOfWhatRuns) {
  CFO_REQUIRE_SCHEMAS(schemas);
  Outcome first = reconcile(sample("cfw_cpu.yaml"), Observed{}, ClusterFacts{}, schemas, "2026-01-01T00:00:00Z");
  json::Document bad = workload_doc("{workerGroups: [{name: Bad_Name}]}", "raytest-cpu");
  json::set(bad, "status", json::Value(first.status, bad.GetAllocator()), bad.GetAllocator());
  Outcome out = reconcile(bad, Observed{}, ClusterFacts{}, schemas, "2026-01-01T00:01:00Z");
  ASSERT_FALSE(out.valid);
  EXPECT_EQ(json::dump(*json::find(out.status, "podSets")), json::dump(*json::find(first.status, "podSets")));
  EXPECT_EQ(json::dump(*json::find(out.status, "totalRequests")),
            json::dump(*json::find(first.status, "totalRequests")));
}

TEST(QuotaPreview, QuantityText) {
  auto text = [](const char* q) { return quantity_text(must_quantity(q)); };
  EXPECT_EQ(text("1000m"), "1");
  EXPECT_EQ(text("1500m"), "1500m");
  EXPECT_EQ(text("8000000000"), "8G");
  EXPECT_EQ(text("1073741824"), "1Gi");
  EXPECT_EQ(text("0"), "0");
  EXPECT_EQ(text("0.5"), "500m");
  EXPECT_EQ(text("1n"), "1n");
  EXPECT_EQ(text("5209715200"), "5209715200");  // 5G + 200Mi has no shorter exact form
  EXPECT_EQ(text("102400000"), "102400000");    // nine digits read as they are, not "100000Ki"
  // Ten digits or more read badly as digits: a mantissa of up to six digits is taken (the thirty-fourth user trial:
  // 999999Ti of memory showed as 1099510526525767680 in totalRequests).
  EXPECT_EQ(text("999999Ti"), "999999Ti");
  EXPECT_EQ(text("1099510537928048640"), "1099510537928048640");  // 999999Ti + 9Gi: 1023998985Gi is no better
  EXPECT_EQ(text("8536870912"), "8536870912");                    // not 8336788Ki
  EXPECT_EQ(text("-999999Ti"), "-999999Ti");
}

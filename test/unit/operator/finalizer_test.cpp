// operator/finalizer.hpp: the finalizer of a workload is added and removed as one entry of the list, so that the
// finalizers of others stay (the twenty-second user trial: a server-side apply of the list took them away).
#include "operator/finalizer.hpp"

#include <gtest/gtest.h>

#include "fake_api.hpp"
#include "test_files.hpp"

using namespace cfo;
using namespace cfo::op;
using cfo::op::test::FakeApi;

namespace {

constexpr const char* kPath = "/apis/codeflare.dev/v1alpha1/namespaces/team-a/codeflareworkloads/demo";

json::Document workload_with(const std::string& finalizers) {
  return test_support::yaml_doc(
      "{apiVersion: codeflare.dev/v1alpha1, kind: CodeFlareWorkload, metadata: {name: demo, namespace: team-a, uid: "
      "uid-1, resourceVersion: '42'" +
      (finalizers.empty() ? std::string() : ", finalizers: " + finalizers) + "}, spec: {}}");
}

// The JSON patch sent for `present` on a workload with `finalizers` ("" when none is sent).
std::string patch_for(const std::string& finalizers, bool present) {
  FakeApi fake;
  auto r = set_local_queue_finalizer(fake.api(), workload_with(finalizers), present);
  EXPECT_TRUE(r.has_value()) << r.error().message;
  auto sent = fake.applied_to(kPath);
  EXPECT_LE(sent.size(), 1u);
  return sent.empty() ? "" : json::dump(sent[0]);
}

}  // namespace

TEST(Finalizer, AnAdditionAppendsToTheListAsCached) {
  EXPECT_EQ(patch_for("", true),
            R"([{"op":"test","path":"/metadata/uid","value":"uid-1"},)"
            R"({"op":"test","path":"/metadata/resourceVersion","value":"42"},)"
            R"({"op":"add","path":"/metadata/finalizers","value":["codeflare.dev/managed-local-queue"]}])");
  EXPECT_EQ(patch_for("[example.com/hold, foregroundDeletion]", true),
            R"([{"op":"test","path":"/metadata/uid","value":"uid-1"},)"
            R"({"op":"test","path":"/metadata/resourceVersion","value":"42"},)"
            R"({"op":"add","path":"/metadata/finalizers/-","value":"codeflare.dev/managed-local-queue"}])");
  EXPECT_EQ(patch_for("[example.com/hold, codeflare.dev/managed-local-queue]", true), "") << "there already";
}

TEST(Finalizer, ARemovalTakesOnlyItsOwnEntry) {
  EXPECT_EQ(patch_for("[example.com/hold, codeflare.dev/managed-local-queue, foregroundDeletion]", false),
            R"([{"op":"test","path":"/metadata/uid","value":"uid-1"},)"
            R"({"op":"test","path":"/metadata/finalizers/1","value":"codeflare.dev/managed-local-queue"},)"
            R"({"op":"remove","path":"/metadata/finalizers/1"}])");
  EXPECT_EQ(patch_for("[example.com/hold]", false), "") << "not there";
  EXPECT_EQ(patch_for("", false), "");
}

// The twenty-third user trial: a finalizer of someone else added meanwhile failed the test, and the race was reported
// as a failed apply. The object is read once and the patch made again from it.
TEST(Finalizer, AFailedTestIsTriedOnceMoreFromTheObjectAsItIs) {
  const std::string patch = std::string("PATCH ") + kPath;
  FakeApi raced;
  raced.put(kPath, workload_with("[example.com/hold]"));
  raced.failures_once[patch] = Error{"Testing value /metadata/resourceVersion failed", 422, ""};
  ASSERT_TRUE(set_local_queue_finalizer(raced.api(), workload_with(""), true).has_value());
  EXPECT_EQ(raced.log, (std::vector<std::string>{patch, std::string("GET ") + kPath, patch}));
  auto sent = raced.applied_to(kPath);  // the patch that went through
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(json::dump(sent[0][2]),
            R"({"op":"add","path":"/metadata/finalizers/-","value":"codeflare.dev/managed-local-queue"})")
      << "appended to the list as it is now";

  // Failing again, or another object of that name now: the error.
  FakeApi failing;
  failing.put(kPath, workload_with(""));
  failing.failures[patch] = Error{"Testing value /metadata/resourceVersion failed", 422, ""};
  auto r = set_local_queue_finalizer(failing.api(), workload_with(""), true);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().http_status, 422);
  EXPECT_EQ(failing.count(patch), 2u);
  FakeApi replaced;
  json::Document other = workload_with("");
  json::set(other["metadata"], "uid", json::str("uid-2", other.GetAllocator()), other.GetAllocator());
  replaced.put(kPath, other);
  replaced.failures_once[patch] = Error{"Testing value /metadata/uid failed", 422, ""};
  EXPECT_FALSE(set_local_queue_finalizer(replaced.api(), workload_with(""), true).has_value());
  EXPECT_EQ(replaced.count(patch), 1u) << "never patched into another object of that name";
}

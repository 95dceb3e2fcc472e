// Tests of the pure helpers of the client layer: paths, queries, URLs, Status errors, line splitting, stop tokens
// and refreshing credential files.
#include <gtest/gtest.h>

#include <thread>

#include "client/line_splitter.hpp"
#include "client/query.hpp"
#include "client/refreshing_file.hpp"
#include "client/rest_client.hpp"
#include "client/server_url.hpp"
#include "temp_dir.hpp"

using namespace cfo;
using namespace cfo::client;
using cfo::client::testing::TempDir;

TEST(ResourceType, BuildsCoreAndGroupPaths) {
  ResourceType pods{"", "v1", "pods", true};
  EXPECT_EQ(pods.api_prefix(), "/api/v1");
  EXPECT_EQ(pods.collection_path("ns1"), "/api/v1/namespaces/ns1/pods");
  EXPECT_EQ(pods.collection_path(""), "/api/v1/pods");
  EXPECT_EQ(pods.object_path("ns1", "p"), "/api/v1/namespaces/ns1/pods/p");

  ResourceType rc{"ray.io", "v1", "rayclusters", true};
  EXPECT_EQ(rc.object_path("team", "demo"), "/apis/ray.io/v1/namespaces/team/rayclusters/demo");

  ResourceType crd{"apiextensions.k8s.io", "v1", "customresourcedefinitions", false};
  EXPECT_EQ(crd.collection_path("ignored"), "/apis/apiextensions.k8s.io/v1/customresourcedefinitions");
  EXPECT_EQ(crd.object_path("ignored", "x.ray.io"), "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.ray.io");
}

TEST(Query, AppendsWithQuestionMarkThenAmpersandAndEscapes) {
  std::string t = append_query("/api/v1/pods", "labelSelector", "app=ray,tier in (a b)");
  EXPECT_EQ(t, "/api/v1/pods?labelSelector=app%3Dray%2Ctier%20in%20%28a%20b%29");
  EXPECT_EQ(append_query(t, "watch", "1"), t + "&watch=1");
  EXPECT_EQ(query_escape("a-b_c.d~e/f"), "a-b_c.d~e%2Ff");
}

TEST(ServerUrlParse, SplitsHostPortAndPrefix) {
  auto u = parse_server_url("https://127.0.0.1:6443");
  ASSERT_TRUE(u.has_value()) << u.error().message;
  EXPECT_EQ(u->host, "127.0.0.1");
  EXPECT_EQ(u->port, "6443");
  EXPECT_TRUE(u->host_is_ip);
  EXPECT_EQ(u->path_prefix, "");

  u = parse_server_url("https://[fd00::1]/k8s/clusters/c-1/");
  ASSERT_TRUE(u.has_value()) << u.error().message;
  EXPECT_EQ(u->host, "fd00::1");
  EXPECT_EQ(u->port, "443");
  EXPECT_TRUE(u->host_is_ip);
  EXPECT_EQ(u->path_prefix, "/k8s/clusters/c-1");
  EXPECT_EQ(u->host_header(), "[fd00::1]:443");

  u = parse_server_url("https://api.example.com:8443");
  ASSERT_TRUE(u.has_value());
  EXPECT_FALSE(u->host_is_ip);
  EXPECT_EQ(u->host_header(), "api.example.com:8443");
}

TEST(ServerUrlParse, RejectsMalformedUrls) {
  for (const char* bad : {"127.0.0.1:6443", "http://k:80", "https://", "https://k:0", "https://k:70000", "https://k:",
                          "https://[fd00::1", "https://fd00::1:6443", "https://user@k", "https://k/x?y=1"}) {
    EXPECT_FALSE(parse_server_url(bad).has_value()) << bad;
  }
}

TEST(StatusError, ParsesMetaV1Status) {
  Response r{404, R"({"kind":"Status","apiVersion":"v1","status":"Failure",
    "message":"rayclusters.ray.io \"demo\" not found","reason":"NotFound","code":404})",
             0};
  Error e = status_error(r);
  EXPECT_EQ(e.http_status, 404);
  EXPECT_EQ(e.reason, "NotFound");
  EXPECT_EQ(e.message, "rayclusters.ray.io \"demo\" not found");
  EXPECT_TRUE(e.is_not_found());
}

TEST(StatusError, FallsBackToHttpStatusForOtherBodies) {
  Error e = status_error(Response{503, "upstream connect error", 0});
  EXPECT_EQ(e.http_status, 503);
  EXPECT_EQ(e.reason, "ServiceUnavailable");
  EXPECT_NE(e.message.find("503"), std::string::npos);
  EXPECT_NE(e.message.find("upstream connect error"), std::string::npos);

  Error conflict = status_error(Response{409, R"({"kind":"Status","reason":"Conflict","message":"changed"})", 0});
  EXPECT_TRUE(conflict.is_conflict());
  EXPECT_EQ(conflict.message, "changed");

  Error empty = status_error(Response{422, "", 0});
  EXPECT_EQ(empty.reason, "Invalid");
  EXPECT_FALSE(empty.message.empty());

  // The apiserver's plain 404 for an API it does not serve: one line, no literal line break in logs or conditions.
  Error missing = status_error(Response{404, "404 page not found\n", 0});
  EXPECT_EQ(missing.message, "the server responded with HTTP 404 (NotFound): 404 page not found");
  Error lines = status_error(Response{500, "first\r\n\tsecond\n", 0});
  EXPECT_EQ(lines.message.find('\n'), std::string::npos);
  EXPECT_NE(lines.message.find("first   second"), std::string::npos);
}

TEST(LineSplitter, JoinsPiecesAndSkipsEmptyLines) {
  LineSplitter s;
  std::vector<std::string> got;
  auto collect = [&](std::string_view l) {
    got.emplace_back(l);
    return true;
  };
  EXPECT_TRUE(s.feed("{\"a\":", collect));
  EXPECT_TRUE(got.empty());
  EXPECT_EQ(s.pending_bytes(), 5u);
  EXPECT_TRUE(s.feed("1}\r\n\n{\"b\"", collect));
  EXPECT_TRUE(s.feed(":2}\n{\"c\":3}", collect));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "{\"a\":1}");
  EXPECT_EQ(got[1], "{\"b\":2}");
  EXPECT_TRUE(s.finish(collect));
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2], "{\"c\":3}");
  EXPECT_EQ(s.pending_bytes(), 0u);
}

TEST(LineSplitter, StopsWhenTheConsumerSaysSo) {
  LineSplitter s;
  int calls = 0;
  EXPECT_FALSE(s.feed("a\nb\nc\n", [&](std::string_view) { return ++calls < 2; }));
  EXPECT_EQ(calls, 2);
}

TEST(StopToken, RunsCallbacksOnceAndAtOnceWhenAlreadyStopped) {
  StopToken t;
  int a = 0, b = 0, removed = 0;
  t.on_stop([&] { ++a; });
  int id = t.on_stop([&] { ++removed; });
  t.remove_callback(id);
  EXPECT_FALSE(t.stop_requested());
  t.request_stop();
  t.request_stop();
  EXPECT_TRUE(t.stop_requested());
  EXPECT_EQ(a, 1);
  EXPECT_EQ(removed, 0);
  t.on_stop([&] { ++b; });
  EXPECT_EQ(b, 1);
}

TEST(StopToken, RequestFromAnotherThreadReachesCallback) {
  StopToken t;
  std::atomic<int> calls{0};
  t.on_stop([&] { ++calls; });
  std::thread th([&] { t.request_stop(); });
  th.join();
  EXPECT_EQ(calls.load(), 1);
}

TEST(RefreshingFile, ReReadsWhenDueAndKeepsLastGoodContent) {
  TempDir dir;
  std::string path = dir.write("token", "one\n");
  RefreshingFile always(path, std::chrono::milliseconds(0), "", true);
  EXPECT_EQ(always.get().value(), "one");
  dir.write("token", "two");
  EXPECT_EQ(always.get().value(), "two");
  std::filesystem::remove(path);
  EXPECT_EQ(always.get().value(), "two");  // read fails: last good token kept
  dir.write("token", "  \n");
  EXPECT_EQ(always.get().value(), "two");  // empty file: last good token kept

  dir.write("token", "fresh");
  RefreshingFile hourly(path, std::chrono::hours(1), "initial", true);
  EXPECT_EQ(hourly.get().value(), "initial");  // not due yet: the file is not read
}

TEST(RefreshingFile, ErrorWhenNeverReadableThenRecovers) {
  TempDir dir;
  std::string path = (dir.path() / "later").string();
  RefreshingFile f(path, std::chrono::hours(1), "", false);
  auto r = f.get();
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find(path), std::string::npos);
  dir.write("later", "PEM\n");
  EXPECT_EQ(f.get().value(), "PEM\n");  // untrimmed, and retried although the period has not passed
}

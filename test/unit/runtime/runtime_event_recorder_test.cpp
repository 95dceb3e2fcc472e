#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "core/json.hpp"
#include "json_doc.hpp"
#include "core/clock.hpp"
#include "runtime/event_recorder.hpp"

using namespace cfo;
using namespace cfo::runtime;
using cfo::runtime::test::doc;
using namespace std::chrono;

namespace {

const char* kWorkload = R"({"apiVersion":"codeflare.dev/v1alpha1","kind":"CodeFlareWorkload",
  "metadata":{"name":"demo","namespace":"team-a","uid":"0b1c","resourceVersion":"42","generation":3},
  "spec":{"x":1}})";

system_clock::time_point at_2026_11_29_19_36_02_123456() {
  return sys_days{year{2026} / November / 29} + hours{19} + minutes{36} + seconds{2} + microseconds{123456};
}

std::string str(const json::Value& v, const char* path) {
  const json::Value* f = json::find_path(v, path);
  return f && f->IsString() ? f->GetString() : "<missing>";
}

/// Records what would be POSTed; fails when told to.
struct FakePoster {
  std::vector<std::string> paths;
  std::vector<json::Document> bodies;
  bool failing = false;
  EventPoster fn() {
    return [this](const std::string& path, const json::Value& body) -> Result<json::Document> {
      paths.push_back(path);
      bodies.push_back(json::clone(body));
      if (failing) return fail("apiserver unavailable", 503);
      return json::clone(body);
    };
  }
};

}  // namespace

TEST(EventBody, HasTheEventsV1Shape) {
  auto obj = doc(kWorkload);
  json::Document body =
      event_body(obj, {"Warning", "InvalidSpec", "Validate", "spec.x: must be a string"},
                 "codeflare.dev/codeflare-operator", "node-7", at_2026_11_29_19_36_02_123456(), "17f3a2b4c5d6e7f8");
  const std::string expected = R"({"apiVersion":"events.k8s.io/v1","kind":"Event",)"
                               R"("metadata":{"name":"demo.17f3a2b4c5d6e7f8","namespace":"team-a"},)"
                               R"("regarding":{"apiVersion":"codeflare.dev/v1alpha1","kind":"CodeFlareWorkload",)"
                               R"("name":"demo","namespace":"team-a","uid":"0b1c","resourceVersion":"42"},)"
                               R"("reportingController":"codeflare.dev/codeflare-operator",)"
                               R"("reportingInstance":"node-7","eventTime":"2026-11-29T19:36:02.123456Z",)"
                               R"("type":"Warning","reason":"InvalidSpec","action":"Validate",)"
                               R"("note":"spec.x: must be a string"})";
  EXPECT_EQ(json::dump(body), expected);
}

TEST(EventBody, ClusterScopedObjectsGetEventsInDefault) {
  auto node = doc(R"({"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","uid":"u"}})");
  json::Document body = event_body(node, {"Normal", "Seen", "Observe", ""}, "c", "i", system_clock::time_point{}, "ab");
  EXPECT_EQ(str(body, "metadata.namespace"), "default");
  EXPECT_EQ(json::find_path(body, "regarding.namespace"), nullptr);
  EXPECT_EQ(str(body, "eventTime"), "1970-01-01T00:00:00.000000Z");
}

TEST(EventBody, NoteIsCutTo1024BytesOnACharacterBoundary) {
  auto obj = doc(kWorkload);
  std::string note(1023, 'x');
  note += "\xC3\xA9tail";  // a two-byte character straddling the limit
  json::Document body = event_body(obj, {"Normal", "R", "A", note}, "c", "i", system_clock::time_point{}, "ab");
  EXPECT_EQ(str(body, "note"), std::string(1023, 'x'));
  std::string exact(1024, 'y');
  body = event_body(obj, {"Normal", "R", "A", exact + "z"}, "c", "i", system_clock::time_point{}, "ab");
  EXPECT_EQ(str(body, "note"), exact);
}

TEST(EventBody, LongNamesAreShortenedToFitASubdomain) {
  std::string long_name = std::string(240, 'a') + "-" + std::string(12, 'b');  // 253 characters
  auto obj = doc(R"({"kind":"X","metadata":{"name":")" + long_name + R"(","namespace":"n"}})");
  json::Document body =
      event_body(obj, {"Normal", "R", "A", ""}, "c", "i", system_clock::time_point{}, "0123456789abcdef");
  std::string name = str(body, "metadata.name");
  EXPECT_EQ(name.size(), 253u);
  EXPECT_EQ(name, long_name.substr(0, 236) + ".0123456789abcdef");
  EXPECT_EQ(str(body, "regarding.name"), long_name);  // the reference is exact

  std::string dash_at_cut = std::string(235, 'a') + "-" + std::string(17, 'b');
  obj = doc(R"({"kind":"X","metadata":{"name":")" + dash_at_cut + R"(","namespace":"n"}})");
  body = event_body(obj, {"Normal", "R", "A", ""}, "c", "i", system_clock::time_point{}, "0123456789abcdef");
  EXPECT_EQ(str(body, "metadata.name"), std::string(235, 'a') + ".0123456789abcdef");
}

TEST(MicroTime, SixFractionalDigits) {
  EXPECT_EQ(format_micro_time(at_2026_11_29_19_36_02_123456()), "2026-11-29T19:36:02.123456Z");
  EXPECT_EQ(format_micro_time(sys_days{year{2024} / February / 29} + microseconds{7}), "2024-02-29T00:00:00.000007Z");
}

TEST(EventRecorder, PostsToTheObjectsNamespaceAndDeduplicatesForFiveMinutes) {
  ManualClock clock;
  FakePoster poster;
  int suffix = 0;
  EventRecorder rec(poster.fn(), {.reporting_instance = "pod-1",
                                  .now = clock.fn(),
                                  .wall_now = [] { return at_2026_11_29_19_36_02_123456(); },
                                  .name_suffix = [&] { return "s" + std::to_string(++suffix); }});
  auto obj = doc(kWorkload);
  EXPECT_EQ(rec.record(obj, "Warning", "InvalidSpec", "Validate", "bad"), EventRecorder::Outcome::Posted);
  ASSERT_EQ(poster.paths.size(), 1u);
  EXPECT_EQ(poster.paths[0], "/apis/events.k8s.io/v1/namespaces/team-a/events");
  EXPECT_EQ(str(poster.bodies[0], "metadata.name"), "demo.s1");
  EXPECT_EQ(str(poster.bodies[0], "reportingInstance"), "pod-1");
  EXPECT_EQ(str(poster.bodies[0], "reportingController"), "codeflare.dev/codeflare-operator");

  clock.advance(std::chrono::milliseconds(4 * 60 * 1000));
  EXPECT_EQ(rec.record(obj, "Warning", "InvalidSpec", "Validate", "bad"), EventRecorder::Outcome::Deduplicated);
  // A different note, reason or type is a different event.
  EXPECT_EQ(rec.record(obj, "Warning", "InvalidSpec", "Validate", "worse"), EventRecorder::Outcome::Posted);
  EXPECT_EQ(rec.record(obj, "Normal", "InvalidSpec", "Validate", "bad"), EventRecorder::Outcome::Posted);
  EXPECT_EQ(poster.paths.size(), 3u);

  clock.advance(std::chrono::milliseconds(60 * 1000));  // 5 minutes after the first one
  EXPECT_EQ(rec.record(obj, "Warning", "InvalidSpec", "Validate", "bad"), EventRecorder::Outcome::Posted);
  EXPECT_EQ(poster.paths.size(), 4u);
}

TEST(EventRecorder, FailuresAreReportedAndNotRemembered) {
  ManualClock clock;
  FakePoster poster;
  EventRecorder rec(poster.fn(), {.reporting_instance = "pod-1", .now = clock.fn()});
  auto obj = doc(kWorkload);
  poster.failing = true;
  EXPECT_EQ(rec.record(obj, "Normal", "Created", "Create", "made it"), EventRecorder::Outcome::Failed);
  poster.failing = false;
  EXPECT_EQ(rec.record(obj, "Normal", "Created", "Create", "made it"), EventRecorder::Outcome::Posted);
  EXPECT_EQ(poster.paths.size(), 2u);
}

TEST(EventRecorder, RejectsUnknownTypesWithoutPosting) {
  FakePoster poster;
  EventRecorder rec(poster.fn(), {.reporting_instance = "pod-1"});
  EXPECT_EQ(rec.record(doc(kWorkload), "Error", "R", "A", "n"), EventRecorder::Outcome::Failed);
  EXPECT_TRUE(poster.paths.empty());
}

TEST(EventRecorder, DedupMemoryIsBounded) {
  ManualClock clock;
  FakePoster poster;
  EventRecorder rec(poster.fn(), {.reporting_instance = "pod-1", .dedup_capacity = 2, .now = clock.fn()});
  auto obj = doc(kWorkload);
  rec.record(obj, "Normal", "R", "A", "1");
  clock.advance(std::chrono::milliseconds(1));
  rec.record(obj, "Normal", "R", "A", "2");
  clock.advance(std::chrono::milliseconds(1));
  rec.record(obj, "Normal", "R", "A", "3");  // evicts "1", the oldest
  EXPECT_EQ(rec.record(obj, "Normal", "R", "A", "3"), EventRecorder::Outcome::Deduplicated);
  EXPECT_EQ(rec.record(obj, "Normal", "R", "A", "1"), EventRecorder::Outcome::Posted);
}

TEST(EventRecorder, DefaultsToTheHostName) {
  FakePoster poster;
  EventRecorder rec(poster.fn(), {});
  EXPECT_FALSE(rec.reporting_instance().empty());
  ASSERT_EQ(rec.record(doc(kWorkload), "Normal", "R", "A", "n"), EventRecorder::Outcome::Posted);
  std::string name = str(poster.bodies[0], "metadata.name");
  ASSERT_EQ(name.size(), std::string("demo.").size() + 16);
  EXPECT_EQ(name.find_first_not_of("0123456789abcdef", 5), std::string::npos);
}

// With async_capacity, record() hands the Event to the recorder's thread and returns at once; a full queue drops.
TEST(EventRecorder, AsynchronousRecordingPostsOnItsOwnThread) {
  std::mutex mu;
  std::condition_variable cv;
  bool release = false, entered = false;
  std::vector<std::string> posted;
  EventRecorderOptions o;
  o.async_capacity = 2;
  o.name_suffix = [] { return std::string("x"); };
  auto rec = std::make_unique<EventRecorder>(
      [&](const std::string&, const json::Value& body) -> Result<json::Document> {
        std::unique_lock lk(mu);
        entered = true;
        cv.notify_all();
        cv.wait(lk, [&] { return release; });  // the poster blocks until released: record() must not wait for it
        posted.push_back(json::string_at(body, "note"));
        return json::clone(body);
      },
      o);
  const json::Document obj = doc(kWorkload);
  EXPECT_EQ(rec->record(obj, "Normal", "A", "X", "1"), EventRecorder::Outcome::Queued);
  {
    // The thread took "1" and blocks in the poster: the queue is empty again.
    std::unique_lock lk(mu);
    cv.wait(lk, [&] { return entered; });
  }
  EXPECT_EQ(rec->record(obj, "Normal", "A", "X", "2"), EventRecorder::Outcome::Queued);
  EXPECT_EQ(rec->record(obj, "Normal", "A", "X", "3"), EventRecorder::Outcome::Queued);
  EXPECT_EQ(rec->record(obj, "Normal", "A", "X", "4"), EventRecorder::Outcome::Failed);  // the queue holds 2
  {
    std::lock_guard lk(mu);
    release = true;
  }
  cv.notify_all();
  rec.reset();  // drains what is queued
  EXPECT_EQ(posted, (std::vector<std::string>{"1", "2", "3"}));
}

// The log line of an event: its type, reason and note, at warn for a Warning and info for a Normal event.
TEST(EventRecorder, AnEventsLogLineHasTheLevelOfItsType) {
  std::ostringstream out;
  auto previous = spdlog::default_logger();
  auto capture = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(out));
  capture->set_pattern("%l|%v");
  spdlog::set_default_logger(capture);
  log_event("Warning", "ChildModified", "spec.replicas set back");
  log_event("Normal", "Admitted", "by ClusterQueue cq");
  spdlog::set_default_logger(previous);
  EXPECT_EQ(out.str(),
            "warning|Warning ChildModified: spec.replicas set back\ninfo|Normal Admitted: by ClusterQueue cq\n");
}

// AdmissionReview decoding and encoding (admission.k8s.io/v1).
#include <gtest/gtest.h>

#include <string>

#include "webhook/admission.hpp"

using namespace cfo;
using namespace cfo::webhook;

namespace {

const char* kCreate = R"({
  "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
  "request": {
    "uid": "705ab4f5-6393-11e8-b7cc-42010a800002",
    "kind": {"group": "codeflare.dev", "version": "v1alpha1", "kind": "CodeFlareWorkload"},
    "resource": {"group": "codeflare.dev", "version": "v1alpha1", "resource": "codeflareworkloads"},
    "name": "demo", "namespace": "team-a", "operation": "CREATE",
    "userInfo": {"username": "alice", "uid": "u-1", "groups": ["system:authenticated", "team-a"]},
    "object": {"apiVersion": "codeflare.dev/v1alpha1", "kind": "CodeFlareWorkload", "metadata": {"name": "demo"}},
    "oldObject": null,
    "dryRun": true
  }
})";

std::string with(std::string text, const std::string& from, const std::string& to) {
  auto pos = text.find(from);
  EXPECT_NE(pos, std::string::npos) << from;
  if (pos != std::string::npos) text.replace(pos, from.size(), to);
  return text;
}

json::Document parse(const std::string& text) {
  auto d = json::parse(text);
  EXPECT_TRUE(d) << text;
  return d ? std::move(*d) : json::Document();
}

}  // namespace

TEST(AdmissionDecode, ReadsEveryFieldOfACreate) {
  auto r = decode_admission_review(kCreate);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->review_api_version, "admission.k8s.io/v1");
  EXPECT_EQ(r->uid, "705ab4f5-6393-11e8-b7cc-42010a800002");
  EXPECT_EQ(r->group, "codeflare.dev");
  EXPECT_EQ(r->version, "v1alpha1");
  EXPECT_EQ(r->kind, "CodeFlareWorkload");
  EXPECT_EQ(r->resource, "codeflareworkloads");
  EXPECT_EQ(r->operation, Operation::Create);
  EXPECT_EQ(r->name, "demo");
  EXPECT_EQ(r->namespace_, "team-a");
  EXPECT_TRUE(r->dry_run);
  EXPECT_EQ(r->user_info.username, "alice");
  EXPECT_EQ(r->user_info.uid, "u-1");
  EXPECT_EQ(r->user_info.groups, (std::vector<std::string>{"system:authenticated", "team-a"}));
  ASSERT_NE(r->object(), nullptr);
  EXPECT_EQ(json::string_at(*r->object(), "metadata.name"), "demo");
  EXPECT_EQ(r->old_object(), nullptr);
}

TEST(AdmissionDecode, ObjectsSurviveAMove) {
  auto r = decode_admission_review(kCreate);
  ASSERT_TRUE(r);
  AdmissionRequest moved = std::move(*r);
  ASSERT_NE(moved.object(), nullptr);
  EXPECT_EQ(json::string_at(*moved.object(), "kind"), "CodeFlareWorkload");
}

TEST(AdmissionDecode, UpdateNeedsTheOldObject) {
  std::string update = with(kCreate, "\"CREATE\"", "\"UPDATE\"");
  auto r = decode_admission_review(update);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("oldObject is missing on UPDATE"), std::string::npos) << r.error().message;
  auto ok =
      decode_admission_review(with(update, "\"oldObject\": null", R"("oldObject": {"metadata": {"name": "demo"}})"));
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(ok->operation, Operation::Update);
  ASSERT_NE(ok->old_object(), nullptr);
}

TEST(AdmissionDecode, AcceptsV1beta1AndDeleteWithoutObject) {
  auto r = decode_admission_review(
      with(with(kCreate, "admission.k8s.io/v1", "admission.k8s.io/v1beta1"), "\"CREATE\"", "\"DELETE\""));
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->review_api_version, "admission.k8s.io/v1beta1");
  EXPECT_EQ(r->operation, Operation::Delete);
}

TEST(AdmissionDecode, RefusesWhatIsNotAReview) {
  struct Case {
    std::string body;
    std::string says;
  } cases[] = {
      {"", "empty"},
      {"{not json", "not JSON"},
      {"[1,2]", "not an object"},
      {with(kCreate, "admission.k8s.io/v1", "v1"), "is not admission.k8s.io/v1"},
      {with(kCreate, "\"kind\": \"AdmissionReview\"", "\"kind\": \"Review\""), "is not AdmissionReview"},
      {R"({"apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview"})", "no request"},
      {with(kCreate, "\"705ab4f5-6393-11e8-b7cc-42010a800002\"", "\"\""), "uid is empty"},
      {with(kCreate, "\"705ab4f5-6393-11e8-b7cc-42010a800002\"", "42"), "uid must be a string"},
      {with(kCreate, "\"CREATE\"", "\"PATCH\""), "\"PATCH\" is not CREATE"},
      {with(kCreate, R"("object": {"apiVersion")", R"("object": null, "x": {"apiVersion")"),
       "object is missing on CREATE"},
      {with(kCreate, R"("object": {"apiVersion")", R"("object": "text", "x": {"apiVersion")"),
       "object must be an object"},
      {with(kCreate, "\"dryRun\": true", "\"dryRun\": \"yes\""), "dryRun must be a boolean"},
      {with(kCreate, "\"kind\": \"CodeFlareWorkload\"}", "\"kind\": \"\"}"), "kind.kind is empty"},
  };
  for (const auto& c : cases) {
    auto r = decode_admission_review(c.body);
    ASSERT_FALSE(r) << c.body;
    EXPECT_NE(r.error().message.find(c.says), std::string::npos) << r.error().message << " / want " << c.says;
  }
}

TEST(AdmissionDecode, RefusesABodyOverTheLimitBeforeParsing) {
  std::string huge(kMaxReviewBytes + 1, ' ');
  auto r = decode_admission_review(huge);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("more than the 7340032 accepted"), std::string::npos) << r.error().message;
}

TEST(AdmissionEncode, AllowedEchoesUidAndVersionWithWarnings) {
  auto doc = parse(encode_admission_review("admission.k8s.io/v1", "abc", allow({"spec.image: old tag [Rule]"})));
  EXPECT_EQ(json::string_at(doc, "apiVersion"), "admission.k8s.io/v1");
  EXPECT_EQ(json::string_at(doc, "kind"), "AdmissionReview");
  EXPECT_EQ(json::string_at(doc, "response.uid"), "abc");
  EXPECT_TRUE(json::find_path(doc, "response.allowed")->GetBool());
  EXPECT_EQ(json::find_path(doc, "response.status"), nullptr);
  const json::Value* w = json::find_path(doc, "response.warnings");
  ASSERT_TRUE(w && w->IsArray() && w->Size() == 1);
  EXPECT_STREQ((*w)[0].GetString(), "spec.image: old tag [Rule]");
  auto beta = parse(encode_admission_review("admission.k8s.io/v1beta1", "x", allow()));
  EXPECT_EQ(json::string_at(beta, "apiVersion"), "admission.k8s.io/v1beta1");
  EXPECT_EQ(json::find_path(beta, "response.warnings"), nullptr);
}

TEST(AdmissionEncode, DeniedCarriesAStatusWithDetails) {
  AdmissionResponse r = deny(422, "Invalid", "CodeFlareWorkload.codeflare.dev \"demo\" is invalid: spec.x: bad [R]");
  r.details_name = "demo";
  r.details_group = "codeflare.dev";
  r.details_kind = "CodeFlareWorkload";
  r.causes.push_back({"FieldValueInvalid", "bad", "spec.x"});
  auto doc = parse(encode_admission_review("admission.k8s.io/v1", "u", r));
  EXPECT_FALSE(json::find_path(doc, "response.allowed")->GetBool());
  EXPECT_EQ(json::string_at(doc, "response.status.status"), "Failure");
  EXPECT_EQ(json::find_path(doc, "response.status.code")->GetInt(), 422);
  EXPECT_EQ(json::string_at(doc, "response.status.reason"), "Invalid");
  EXPECT_EQ(json::string_at(doc, "response.status.message"), r.message);
  EXPECT_EQ(json::string_at(doc, "response.status.details.name"), "demo");
  EXPECT_EQ(json::string_at(doc, "response.status.details.kind"), "CodeFlareWorkload");
  const json::Value* causes = json::find_path(doc, "response.status.details.causes");
  ASSERT_TRUE(causes && causes->IsArray() && causes->Size() == 1);
  EXPECT_EQ(json::string_at((*causes)[0], "field"), "spec.x");
  EXPECT_EQ(json::string_at((*causes)[0], "reason"), "FieldValueInvalid");
}

TEST(AdmissionEncode, WarningsAreMadeValidHeaderText) {
  // Go's NewWarningHeader refuses control characters and invalid UTF-8: the apiserver would drop such a warning.
  EXPECT_EQ(sanitize_warning("line one\nline two\ttab\r"), "line one line two tab ");
  EXPECT_EQ(sanitize_warning(std::string("bell\x07 del\x7f")), "bell del");
  EXPECT_EQ(sanitize_warning("caf\xc3\xa9 \xe2\x82\xac"), "caf\xc3\xa9 \xe2\x82\xac");  // é and € stay
  EXPECT_EQ(sanitize_warning("bad \xff\xfe byte"), "bad  byte");
  EXPECT_EQ(sanitize_warning("cut \xe2\x82"), "cut ");                    // truncated sequence
  EXPECT_EQ(sanitize_warning("over \xc0\xaf long"), "over  long");        // overlong encoding of '/'
  EXPECT_EQ(sanitize_warning("c1 \xc2\x85 next line"), "c1  next line");  // U+0085 is a control character
  auto doc = parse(encode_admission_review("admission.k8s.io/v1", "u", allow({"a\nb", "\x01"})));
  const json::Value* w = json::find_path(doc, "response.warnings");
  ASSERT_TRUE(w && w->Size() == 1);  // the warning made only of a control character is left out
  EXPECT_STREQ((*w)[0].GetString(), "a b");
}

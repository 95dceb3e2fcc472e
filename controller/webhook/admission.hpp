#pragma once
// admission.k8s.io/v1 AdmissionReview: the request a kube-apiserver sends to a validating webhook and the response
// it expects back (k8s.io/api/admission/v1 types.go; "Dynamic Admission Control" in the Kubernetes docs).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.hpp"
#include "core/json.hpp"

namespace cfo::webhook {

/// The largest AdmissionReview body accepted, in bytes. The apiserver accepts request bodies of up to 3 MiB
/// (apiserver MaxRequestBodyBytes), and an UPDATE's review carries both the new object and the stored one, plus the
/// request's metadata: 7 MiB leaves room for both, as controller-runtime's webhook server allows. A larger body is
/// refused with HTTP 413 before it is parsed.
inline constexpr std::size_t kMaxReviewBytes = std::size_t{7} * 1024 * 1024;

/// The admission operations the apiserver sends (AdmissionRequest.operation).
enum class Operation { Create, Update, Delete, Connect };

/// "CREATE", "UPDATE", "DELETE", "CONNECT".
const char* operation_name(Operation op);

/// AdmissionRequest.userInfo (authentication/v1 UserInfo), without `extra`.
struct UserInfo {
  std::string username;
  std::string uid;
  std::vector<std::string> groups;
};

/// One decoded AdmissionReview request. The objects stay in the parsed document; object() and old_object() point
/// into it and live as long as this value.
struct AdmissionRequest {
  std::string review_api_version;    ///< "admission.k8s.io/v1" (or v1beta1, whose request has the same shape)
  std::string uid;                   ///< echoed in the response
  std::string group, version, kind;  ///< request.kind: the object's group/version/kind as the webhook sees it
  std::string resource;              ///< request.resource.resource, e.g. "codeflareworkloads"
  std::string sub_resource;          ///< request.subResource, "" for the main resource
  Operation operation = Operation::Create;
  std::string name;        ///< request.name ("" on a create with generateName, before the name is generated)
  std::string namespace_;  ///< request.namespace ("" for a cluster-scoped object)
  bool dry_run = false;    ///< request.dryRun: nothing the webhook does may persist (we never write anyway)
  UserInfo user_info;
  json::Document review;  ///< the whole parsed body

  /// request.object: the object as it would be stored (null on DELETE or when absent).
  const json::Value* object() const;
  /// request.oldObject: the stored object on UPDATE and DELETE (null otherwise).
  const json::Value* old_object() const;
};

/// Decodes an AdmissionReview body (JSON). Errors (each says what is wrong, for a 400 answer): a body over
/// kMaxReviewBytes, text that is not JSON, an object that is not an admission.k8s.io/v1 or v1beta1 AdmissionReview,
/// no `request`, an empty `uid`, an unknown `operation`, no object on CREATE or UPDATE, no oldObject on UPDATE, or a
/// field of the wrong type.
Result<AdmissionRequest> decode_admission_review(std::string_view body);

/// One field finding in a denial (metav1.StatusCause): `field` is the path ("spec.workerGroups[0].name"), `reason`
/// a CamelCase cause type ("FieldValueInvalid").
struct StatusCause {
  std::string reason;
  std::string message;
  std::string field;
};

/// The verdict on one request (AdmissionResponse without its uid). When !allowed, `code`, `reason` and `message`
/// form the metav1.Status the apiserver turns into the client's error ("admission webhook \"...\" denied the
/// request: " + message); `causes` and details_* fill Status.details. `warnings` go to the client as HTTP Warning
/// headers, which kubectl prints as "Warning: ..." lines, allowed or not.
struct AdmissionResponse {
  bool allowed = true;
  int32_t code = 0;
  std::string reason;
  std::string message;
  std::string details_name;
  std::string details_group;
  std::string details_kind;
  std::vector<StatusCause> causes;
  std::vector<std::string> warnings;
};

/// An allowing response with `warnings`.
AdmissionResponse allow(std::vector<std::string> warnings = {});

/// A denying response with HTTP code `code` (403 Forbidden, 422 Invalid, 400 BadRequest, 500 InternalError), its
/// Status reason, and `message`.
AdmissionResponse deny(int32_t code, std::string reason, std::string message);

/// The review to send back: {"apiVersion": <review_api_version>, "kind": "AdmissionReview", "response": {"uid": uid,
/// "allowed": ..., "status": {...} when denied, "warnings": [...] when any}}. Warnings are made valid for an HTTP
/// header first (sanitize_warning): the apiserver silently drops a warning with a control character or invalid
/// UTF-8. An unknown review_api_version is answered as admission.k8s.io/v1.
std::string encode_admission_review(const std::string& review_api_version, const std::string& uid,
                                    const AdmissionResponse& response);

/// `text` as one warning the apiserver forwards (k8s.io/apimachinery NewWarningHeader refuses control characters and
/// invalid UTF-8): a line break or tab becomes a space, other control characters and invalid bytes are removed.
std::string sanitize_warning(std::string_view text);

}  // namespace cfo::webhook

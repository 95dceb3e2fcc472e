#pragma once
// From findings to an admission verdict: a denial that reads like the apiserver's own field errors, and warnings
// within what the apiserver forwards unchanged.
#include <cstddef>
#include <string>
#include <vector>

#include "core/field_error.hpp"
#include "webhook/admission.hpp"

namespace cfo::webhook {

/// The longest denial message, in bytes. kube-apiserver forwards a webhook's Status.message unchanged, prefixed with
/// `admission webhook "<name>" denied the request: ` (webhook/errors ToStatusErr); kubectl prints all of it. 4 KiB
/// keeps a denial readable in a terminal and in a controller's Event (which other clients may cut at 1 KiB) and
/// still names dozens of findings; the rest are counted ("and N more").
inline constexpr std::size_t kMaxDenialMessageBytes = 4096;

/// The longest warning and the longest list of warnings, in bytes. kube-apiserver's warning recorder
/// (endpoints/filters/warning.go, Kubernetes 1.19+) starts truncating once the warnings of one response pass 4096
/// runes (then every warning to 256 runes, dropping the ones past the total); staying within 4096 bytes (at least as
/// many as runes) means nothing is ever cut by the apiserver.
inline constexpr std::size_t kMaxWarningBytes = 1024;
inline constexpr std::size_t kMaxWarningsBytes = 4096;

/// The warnings of `findings` (Severity::Warning, in order), each cut to kMaxWarningBytes, the whole within
/// kMaxWarningsBytes; when some do not fit, the last entry says how many were left out.
std::vector<std::string> warnings_of(const FieldErrors& findings);

/// Whom a denial names: the object's kind, API group and name (Status.details; the message's
/// `<Kind>.<group> "<name>" is invalid` prefix, as apimachinery's NewInvalid writes it).
struct ObjectRef {
  std::string kind;
  std::string group;
  std::string name;
};

/// The verdict on `findings`: allowed with their warnings when none is an error; otherwise denied with code 422,
/// reason Invalid, the message `<Kind>.<group> "<name>" is invalid: [<finding>, <finding>, ...]` (no brackets for one
/// finding, as apimachinery's aggregate of field errors reads) within kMaxDenialMessageBytes, the warnings as well,
/// and one StatusCause (FieldValueInvalid, the field path, "reason [rule]") per finding shown, plus one with field
/// "..." counting the findings left out. kubectl prints an Invalid status as its causes, one "field: message" line
/// each ("The CodeFlareWorkload \"demo\" is invalid: ..."), as it prints the apiserver's own field errors; other
/// clients show the message.
AdmissionResponse verdict(const FieldErrors& findings, const ObjectRef& object);

/// `s` cut to at most `max_bytes` bytes without splitting a UTF-8 sequence, "..." marking a cut (max_bytes >= 3).
std::string truncate_utf8(std::string s, std::size_t max_bytes);

}  // namespace cfo::webhook

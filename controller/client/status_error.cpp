// Errors from apiserver responses. The body of a failed request is a metav1.Status ("kind":"Status") with
// message, reason and code (apimachinery pkg/apis/meta/v1 types.go); when it is something else, the reason is
// derived from the HTTP status as apimachinery's errors.NewGenericServerResponse does.
#include "client/rest_client.hpp"

namespace cfo::client {

namespace {

const char* reason_for_status(unsigned status) {
  switch (status) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return status >= 500 ? "InternalError" : "Unknown";
  }
}

}  // namespace

// How much of a body that is not a Status goes into the message.
constexpr std::size_t kShownBodyBytes = 200;

Error status_error(const Response& r) {
  Error e;
  e.http_status = static_cast<int>(r.status);
  if (auto doc = json::parse(r.body); doc && doc->IsObject()) {
    auto kind = json::get_string(*doc, "kind");
    auto message = json::get_string(*doc, "message");
    if ((kind && *kind == "Status") || message) {
      if (message) e.message = *message;
      if (auto reason = json::get_string(*doc, "reason")) e.reason = *reason;
      // A Status may carry a code of its own (e.g. 410 in a watch ERROR event); the HTTP status wins when set.
      if (auto code = json::get_int(*doc, "code"); code && e.http_status == 0) e.http_status = static_cast<int>(*code);
    }
  }
  if (e.reason.empty()) e.reason = reason_for_status(static_cast<unsigned>(e.http_status));
  if (e.message.empty()) {
    e.message = "the server responded with HTTP " + std::to_string(e.http_status) + " (" + e.reason + ")";
    // A plain-text body ("404 page not found\n") is shown on one line: line breaks and tabs become spaces, and the
    // ends are trimmed, so that logs and conditions carry no literal "\n".
    std::string text = r.body.substr(0, kShownBodyBytes);
    for (char& c : text)
      if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    const auto first = text.find_first_not_of(' ');
    text = first == std::string::npos ? "" : text.substr(first, text.find_last_not_of(' ') - first + 1);
    if (!text.empty()) e.message += ": " + text + (r.body.size() > kShownBodyBytes ? "..." : "");
  }
  return e;
}

}  // namespace cfo::client

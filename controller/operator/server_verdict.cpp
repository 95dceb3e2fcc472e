#include "operator/server_verdict.hpp"

namespace cfo::op {

bool is_server_rejection(const Error& e) {
  switch (e.http_status) {
    case 400:
    case 422:
      return true;
    case 403: {
      // The RBAC authorizer's refusal names the user and the verb it may not use; admission refusals do not.
      const bool authorization =
          e.message.find("cannot ") != std::string::npos &&
          (e.message.find("User \"") != std::string::npos || e.message.find("user \"") != std::string::npos) &&
          e.message.find(" resource ") != std::string::npos;
      // NamespaceLifecycle refuses every new object of a namespace being deleted: not a verdict on the object either
      // (the fifteenth user trial: each namespace deletion counted as a dry-run disagreement).
      const bool terminating = e.message.find("because it is being terminated") != std::string::npos;
      return !authorization && !terminating;
    }
    default:
      return false;
  }
}

}  // namespace cfo::op

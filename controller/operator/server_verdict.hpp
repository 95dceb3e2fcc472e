#pragma once
// Reading the apiserver's answer to a server-side dry run: a verdict on the object, or some other failure.
#include "core/error.hpp"

namespace cfo::op {

/// True when the apiserver refused a write because of the object itself, so that our validation, which accepted
/// it, disagrees with the cluster: 400 BadRequest (e.g. an undecodable field), 422 Invalid (schema, CEL, built-in
/// validation) and 403 Forbidden from admission (a webhook's denial, ResourceQuota, LimitRange, a policy engine).
/// A 403 from authorization is not a verdict on the object (RBAC is missing a verb); it is recognised by the
/// authorizer's wording ("User \"...\" cannot <verb> resource ..."), nor is NamespaceLifecycle's refusal of new
/// objects in a namespace being deleted ("... because it is being terminated"). Anything else (conflicts, 404, 429,
/// 5xx, transport errors) is false.
bool is_server_rejection(const Error& e);

}  // namespace cfo::op

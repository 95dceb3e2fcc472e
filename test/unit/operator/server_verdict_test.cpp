#include <gtest/gtest.h>

#include "operator/server_verdict.hpp"

using namespace cfo;
using cfo::op::is_server_rejection;

TEST(ServerVerdict, InvalidBadRequestAndAdmissionRefusalsAreVerdictsOnTheObject) {
  EXPECT_TRUE(
      is_server_rejection({"RayCluster.ray.io \"x\" is invalid: spec.headGroupSpec: Required value", 422, "Invalid"}));
  EXPECT_TRUE(is_server_rejection({"error decoding patch", 400, "BadRequest"}));
  EXPECT_TRUE(
      is_server_rejection({"rayclusters.ray.io \"x\" is forbidden: exceeded quota: q, requested: "
                           "count/rayclusters.ray.io=1, used: count/rayclusters.ray.io=0, limited: "
                           "count/rayclusters.ray.io=0",
                           403, "Forbidden"}));
  EXPECT_TRUE(is_server_rejection(
      {"admission webhook \"vraycluster.kb.io\" denied the request: spec.headGroupSpec: bad", 403, "Forbidden"}));
}

TEST(ServerVerdict, AuthorizationTransportAndServerErrorsAreNot) {
  EXPECT_FALSE(
      is_server_rejection({"rayclusters.ray.io \"x\" is forbidden: User \"system:serviceaccount:a:b\" cannot "
                           "patch resource \"rayclusters\" in API group \"ray.io\" in the namespace \"n\"",
                           403, "Forbidden"}));
  EXPECT_FALSE(
      is_server_rejection({"rayclusters.ray.io \"x\" is forbidden: unable to create new content in namespace "
                           "brk because it is being terminated",
                           403, "Forbidden"}));
  EXPECT_FALSE(is_server_rejection({"the object has been modified", 409, "Conflict"}));
  EXPECT_FALSE(is_server_rejection({"not found", 404, "NotFound"}));
  EXPECT_FALSE(is_server_rejection({"too many requests", 429, "TooManyRequests"}));
  EXPECT_FALSE(is_server_rejection({"etcdserver: request timed out", 500, "InternalError"}));
  EXPECT_FALSE(is_server_rejection({"connect: connection refused", 0, ""}));
}
